import type { InboundTurn } from '../domain/inbound-turn';

/**
 * Hands a registered turn to the orchestrator. Implementations must be idempotent per message id:
 * the webhook re-dispatches an undispatched receipt when Meta retries.
 */
export interface TurnDispatcher {
  dispatch(turn: InboundTurn): Promise<void>;
}
