import type { ConsentWords } from '../../../lib/contract';
import { consentCommandOf } from './privacy';
import { isHumanOwned, SESSION_STATES, type SessionState } from './session';

/**
 * States in which a new customer message goes to the agent. CLOSED is one of them: the agent opens
 * a new session. In the others a human owns the conversation and the message goes to their inbox.
 */
export const AGENT_ROUTED_STATES: readonly SessionState[] = SESSION_STATES.filter((state) => !isHumanOwned(state));

/**
 * The routing rule of the inbound protocol: the agent answers unless a human owns the active session.
 * An opt-out or opt-in word is the customer's decision about every message, whoever answers them, so
 * it always goes to the turn, which records and confirms it; it must not stop in a person's inbox.
 * `consentWords` are the pipeline locale's, the same the turn records.
 */
export function routesToAgent(activeSessionState: SessionState | undefined, text?: string, consentWords?: ConsentWords): boolean {
  return activeSessionState === undefined || AGENT_ROUTED_STATES.includes(activeSessionState) || consentCommandOf(text, consentWords) !== undefined;
}
