import { useMemo, useState } from 'preact/hooks';
import { AdminApi } from '../admin-api';
import { useConsole } from '../context';
import { describeFailure, FeedbackLine, Section, type Feedback } from './common';

/**
 * The data subject's rights: export one customer's data, or erase it. Erasing asks for the id a
 * second time and the button stays disabled until both match (the API checks the same).
 */
export function CustomerDataScreen() {
  const { t, api } = useConsole();
  const admin = useMemo(() => new AdminApi(api), [api]);
  const [customerId, setCustomerId] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [exported, setExported] = useState<string | undefined>(undefined);
  const [feedback, setFeedback] = useState<Feedback>(undefined);
  const id = customerId.trim();

  const exportData = async () => {
    try {
      setExported(JSON.stringify(await admin.exportCustomer(id), null, 2));
      setFeedback(undefined);
    } catch (failure) {
      setFeedback({ kind: 'error', text: describeFailure(t, failure, 'load') });
    }
  };
  const erase = async () => {
    try {
      const erasure = await admin.eraseCustomer(id, confirmation.trim());
      setExported(undefined);
      setConfirmation('');
      setFeedback({ kind: 'ok', text: t('customers.erased', { pseudonym: erasure.customerPseudonym }) });
    } catch (failure) {
      setFeedback({ kind: 'error', text: describeFailure(t, failure, 'load') });
    }
  };

  return (
    <Section heading={t('customers.heading')}>
      <label>
        {t('customers.id')}
        <input value={customerId} onInput={(event) => setCustomerId((event.target as HTMLInputElement).value)} />
      </label>
      <div class="actions">
        <button type="button" disabled={id === ''} onClick={exportData}>
          {t('customers.export')}
        </button>
      </div>
      <p>{t('customers.eraseHint')}</p>
      <label>
        {t('customers.confirm')}
        <input value={confirmation} onInput={(event) => setConfirmation((event.target as HTMLInputElement).value)} />
      </label>
      <div class="actions">
        <button type="button" class="danger" disabled={id === '' || confirmation.trim() !== id} onClick={erase}>
          {t('customers.erase')}
        </button>
      </div>
      <FeedbackLine feedback={feedback} />
      {exported !== undefined && (
        <>
          <p>{t('customers.exported', { customer: id })}</p>
          <pre class="dry-run">{exported}</pre>
        </>
      )}
    </Section>
  );
}
