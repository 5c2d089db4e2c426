import type { GateTurn, GateVerdict, TurnGate } from './turn-gate';

/**
 * The early guard (step 5): a newer message was already consumed — these were redriven from the
 * dead-letter queue after it was answered, say — so any reply would lose the latest-message guard,
 * and the agent is not even asked.
 */
export class LatestMessageGate implements TurnGate {
  readonly name = 'latest';
  readonly step = 'with_history';

  check({ latest, last }: GateTurn): GateVerdict | undefined {
    return latest.latestMessageId === last.messageId ? undefined : { kind: 'unanswered', outcome: 'superseded' };
  }
}
