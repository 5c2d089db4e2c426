import { useMemo, useState } from 'preact/hooks';
import type { CrmSyncRow, Page } from '../../../lib/contract/operator-api';
import { AdminApi } from '../admin-api';
import { useConsole } from '../context';
import { describeFailure, FeedbackLine, LoadError, Section, useRemote, type Feedback } from './common';

type ProblemStatus = 'BLOCKED' | 'UNCERTAIN';

/**
 * Conversations whose CRM sync needs a person: BLOCKED (the CRM refused them, or they ran out of
 * attempts) can be retried; UNCERTAIN (a create may have reached the CRM) are checked in the CRM
 * first, then resolved with the ids found there, or retried when nothing was created.
 */
export function CrmScreen() {
  const { t, api } = useConsole();
  const admin = useMemo(() => new AdminApi(api), [api]);
  const blocked = useRemote(() => admin.crmRows('BLOCKED'), []);
  const uncertain = useRemote(() => admin.crmRows('UNCERTAIN'), []);
  const [feedback, setFeedback] = useState<Feedback>(undefined);

  const act = async (change: () => Promise<unknown>, done: string) => {
    try {
      await change();
      setFeedback({ kind: 'ok', text: done });
    } catch (failure) {
      setFeedback({ kind: 'error', text: describeFailure(t, failure, 'load') });
    }
    await Promise.all([blocked.reload(), uncertain.reload()]);
  };
  const retry = (row: CrmSyncRow) => act(() => admin.retryCrm(row.sessionId), t('crm.retried', { session: row.sessionId }));
  const resolve = (row: CrmSyncRow, contactId: string, dealId: string) => act(() => admin.resolveCrm(row.sessionId, contactId, dealId), t('crm.resolved', { session: row.sessionId }));

  return (
    <Section heading={t('crm.heading')}>
      <p>{t('crm.help')}</p>
      <FeedbackLine feedback={feedback} />
      <CrmRows status="BLOCKED" remote={blocked} onRetry={retry} />
      <CrmRows status="UNCERTAIN" remote={uncertain} onRetry={retry} onResolve={resolve} />
    </Section>
  );
}

function CrmRows(props: {
  readonly status: ProblemStatus;
  readonly remote: { readonly data?: Page<CrmSyncRow>; readonly error?: unknown };
  readonly onRetry: (row: CrmSyncRow) => Promise<void>;
  readonly onResolve?: (row: CrmSyncRow, contactId: string, dealId: string) => Promise<void>;
}) {
  const { t } = useConsole();
  const heading = t(props.status === 'BLOCKED' ? 'crm.blocked' : 'crm.uncertain');
  const items = props.remote.data?.items;
  return (
    <section aria-label={heading}>
      <h3>{heading}</h3>
      <LoadError error={props.remote.error} />
      {items === undefined ? (
        props.remote.error === undefined && <p role="status">{t('loading')}</p>
      ) : items.length === 0 ? (
        <p>{t('list.empty')}</p>
      ) : (
        <ul class="crm-rows">
          {items.map((row) => (
            <li key={row.sessionId} aria-label={row.sessionId}>
              <p>
                <strong>{row.customerId}</strong> · {String(row.desired.deal.stage ?? '')} · {t('crm.attempts', { attempts: row.attempts })}
              </p>
              {row.lastError !== undefined && <p class="crm-error">{row.lastError}</p>}
              <button type="button" onClick={() => props.onRetry(row)}>
                {t('crm.retry')}
              </button>
              {props.onResolve && <ResolveForm onResolve={(contactId, dealId) => props.onResolve!(row, contactId, dealId)} />}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function ResolveForm({ onResolve }: { readonly onResolve: (contactId: string, dealId: string) => Promise<void> }) {
  const { t } = useConsole();
  const [contactId, setContactId] = useState('');
  const [dealId, setDealId] = useState('');
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void onResolve(contactId.trim(), dealId.trim());
      }}
    >
      <label>
        {t('crm.contactId')}
        <input value={contactId} required onInput={(event) => setContactId(event.currentTarget.value)} />
      </label>
      <label>
        {t('crm.dealId')}
        <input value={dealId} required onInput={(event) => setDealId(event.currentTarget.value)} />
      </label>
      <button type="submit" disabled={contactId.trim() === '' || dealId.trim() === ''}>
        {t('crm.resolve')}
      </button>
    </form>
  );
}
