import { useMemo, useState } from 'preact/hooks';
import { AdminApi } from '../admin-api';
import { sha256Hex } from '../payload-hash';
import { useConsole } from '../context';
import { describeFailure, FeedbackLine, Section, type Feedback } from './common';

/**
 * The data subject's rights: export one customer's data as a JSON file, or erase it. Erasing asks
 * for the id a second time and the button stays disabled until both match (the API checks the same).
 */
export function CustomerDataScreen() {
  const { t, api } = useConsole();
  const admin = useMemo(() => new AdminApi(api), [api]);
  const [customerId, setCustomerId] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [exportedFile, setExportedFile] = useState<string | undefined>(undefined);
  const [feedback, setFeedback] = useState<Feedback>(undefined);
  const id = customerId.trim();

  const exportData = async () => {
    try {
      const exported = await admin.exportCustomer(id);
      const file = await exportFileName(exported.customerId, exported.exportedAt);
      saveFile(file, JSON.stringify(exported, null, 2));
      setExportedFile(file);
      setFeedback(undefined);
    } catch (failure) {
      setFeedback({ kind: 'error', text: describeFailure(t, failure, 'load') });
    }
  };
  const erase = async () => {
    try {
      const erasure = await admin.eraseCustomer(id, confirmation.trim());
      setExportedFile(undefined);
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
      {exportedFile !== undefined && <p role="status">{t('customers.exported', { file: exportedFile })}</p>}
    </Section>
  );
}

/**
 * A file name that does not give the customer away (downloads folders are synced and shared):
 * the day, and 8 hex digits of the id's hash, which many numbers share.
 */
async function exportFileName(customerId: string, exportedAt: string): Promise<string> {
  return `customer-export-${exportedAt.slice(0, 10)}-${(await sha256Hex(customerId)).slice(0, 8)}.json`;
}

/** Hands the text to the browser as a file download. */
function saveFile(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  // The click has started the download; the URL is no longer needed.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
