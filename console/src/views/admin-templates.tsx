import { useMemo, useState } from 'preact/hooks';
import { AdminApi } from '../admin-api';
import { useConsole } from '../context';
import { describeFailure, FeedbackLine, LoadError, Section, useRemote, type Feedback } from './common';

/** The business's WhatsApp templates as the table holds them, and the admin's sync from the account. */
export function TemplatesScreen() {
  const { t, api } = useConsole();
  const admin = useMemo(() => new AdminApi(api), [api]);
  const { data, error, reload } = useRemote(() => api.templates(), []);
  const [feedback, setFeedback] = useState<Feedback>(undefined);
  const [busy, setBusy] = useState(false);

  const sync = async () => {
    setBusy(true);
    try {
      const synced = await admin.syncTemplates();
      setFeedback({ kind: 'ok', text: t('templates.synced', { stored: synced.stored, removed: synced.removed }) });
    } catch (failure) {
      setFeedback({ kind: 'error', text: describeFailure(t, failure, 'syncTemplates') });
    }
    await reload();
    setBusy(false);
  };

  return (
    <Section heading={t('templates.heading')}>
      <p>{t('templates.hint')}</p>
      <div class="actions">
        <button type="button" class="primary" disabled={busy} onClick={sync}>
          {t('templates.sync')}
        </button>
      </div>
      <FeedbackLine feedback={feedback} />
      <LoadError error={error} />
      {data !== undefined && data.length === 0 && <p>{t('templates.none')}</p>}
      {data !== undefined && data.length > 0 && (
        <div class="table-scroll" tabIndex={0} role="region" aria-label={t('templates.heading')}>
        <table>
          <caption class="visually-hidden">{t('templates.heading')}</caption>
          <thead>
            <tr>
              {(['templates.name', 'templates.language', 'templates.category', 'templates.status', 'templates.body', 'templates.buttons'] as const).map((key) => (
                <th scope="col">{t(key)}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {data.map((template) => (
              <tr>
                <td>{template.name}</td>
                <td>{template.language}</td>
                <td>{template.category}</td>
                <td>
                  <span class={`badge template-${template.status}`}>{template.status}</span>
                  {template.statusReason !== undefined && ` (${template.statusReason})`}
                </td>
                <td class="template-body">{template.body}</td>
                <td>{template.buttons.map((button) => button.text).join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
        </div>
      )}
    </Section>
  );
}
