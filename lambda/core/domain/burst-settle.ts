import type { LatestInbound, PendingInbound } from './inbound-receipt';

/**
 * A burst is answered within this many settle periods of its first message, however long the
 * customer keeps writing: each newer message ends the waiting turn, and the turn whose oldest
 * pending message is that old answers at once.
 */
export const BURST_SETTLE_MAX_PERIODS = 3;

/** What bounds a turn's wait for the customer to go quiet. */
export interface SettleBounds {
  /** How long the customer must have been quiet (since their newest message was received). */
  readonly settleMs: number;
  /** Epoch milliseconds by which the agent must have answered (the invocation's deadline less the delivery reserve). */
  readonly agentDeadline: number;
  readonly now: number;
}

/**
 * Until when (epoch milliseconds) a turn waits before asking the agent: until the customer has been
 * quiet for `settleMs` since `last` was received, but never past {@link BURST_SETTLE_MAX_PERIODS}
 * settle periods after the oldest pending message (a burst that keeps going is still answered), nor
 * past half of the time the agent has left (the wait never costs the agent its turn). `now` or
 * earlier: no wait.
 */
export function settleUntil(pending: readonly PendingInbound[], last: PendingInbound, { settleMs, agentDeadline, now }: SettleBounds): number {
  if (settleMs <= 0) return now;
  const oldest = Math.min(...pending.map((turn) => Date.parse(turn.receivedAt)));
  const quiet = Date.parse(last.receivedAt) + settleMs;
  const burstBound = oldest + BURST_SETTLE_MAX_PERIODS * settleMs;
  const agentBound = now + Math.max(0, (agentDeadline - now) / 2);
  return Math.min(quiet, burstBound, agentBound);
}

/**
 * What a newer message found during the wait means for the waiting turn's messages: `pending`
 * when it is on the pending list, so its own record's turn drains them with it (the burst's
 * start stays known, and one agent call answers all of them); `completed` when it is not (it went to
 * the human inbox, or a barrier invalidated the marker): they end as any superseded turn's do, in
 * the history. `undefined`: `lastMessageId` is still the latest.
 */
export function supersededDuringSettle(latest: LatestInbound, lastMessageId: string): 'pending' | 'completed' | undefined {
  if (latest.latestMessageId === lastMessageId && latest.invalidatedAt === undefined) return undefined;
  const newer = latest.latestMessageId;
  return latest.invalidatedAt === undefined && newer !== undefined && latest.pendingMessageIds.includes(newer) ? 'pending' : 'completed';
}
