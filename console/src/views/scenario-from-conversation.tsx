import { useState } from 'preact/hooks';
import { useConsole } from '../context';
import { handScenario } from '../scenario-handoff';
import { hrefOf } from '../view-model';
import { describeFailure, FeedbackLine, type Feedback } from './common';

/**
 * Admins only: drafts a scenario from this conversation (the customer's turns, pseudonymised by the
 * API; nothing stored) and opens the suite's editor with it, for the admin to add what each turn
 * must do and save it.
 */
export function ScenarioFromConversation({ customerId }: { readonly customerId: string }) {
  const { t, api } = useConsole();
  const [busy, setBusy] = useState(false);
  const [feedback, setFeedback] = useState<Feedback>(undefined);
  const draft = async () => {
    setBusy(true);
    try {
      const { id, scenario } = await api.request('POST admin/conversations/:customerId/scenario', { params: { customerId } });
      handScenario({ id, expectedVersion: 0, text: JSON.stringify(scenario, null, 2) });
      location.hash = hrefOf({ kind: 'admin', screen: 'scenarios' });
    } catch (error) {
      setFeedback({ kind: 'error', text: describeFailure(t, error, 'draftScenario') });
      setBusy(false);
    }
  };
  return (
    <div class="to-scenario">
      <button type="button" disabled={busy} onClick={draft}>
        {t('conversation.toScenario')}
      </button>
      <FeedbackLine feedback={feedback} />
    </div>
  );
}
