import type { AgentAction, RecordOutOfPortfolioDemandAction } from './agent-action';
import { MAX_HANDOFF_REASON_CHARS, previewOf } from './inbox-summary';
import type { CompletedInbound, LatestInbound, OutboxEntry, PendingInbound } from './inbound-receipt';
import type { Message } from './message';
import { isHumanOwned, isLegalTransition, SessionState, transitionSession, type Session } from './session';
import { cutOnCodePoints } from './text-bounds';
import { isoMicros, latestOf, nextMicrosecond, toEpochMicros, type IsoTimestamp } from './timestamps';

/**
 * The pure rules of the turn protocol (see docs/DESIGN.md#turn-protocol); the use case in
 * application/process-turn.ts applies them against the stores.
 */

/**
 * The message a turn answers: the newest in the history. It is the last registered, except that a
 * redriven message is listed after the messages registered while it was parked, which are newer.
 */
export function newest(pending: readonly PendingInbound[]): PendingInbound {
  return pending.reduce((found, turn) => (toEpochMicros(turn.historyTimestamp) > toEpochMicros(found.historyTimestamp) ? turn : found));
}

export function completion(turn: PendingInbound): CompletedInbound {
  return { customerId: turn.customerId, messageId: turn.messageId, historyTimestamp: turn.historyTimestamp };
}

/**
 * Completions whose history watermark ends at the reply, so the customer's next message is placed
 * after the reply in the history even when the provider's clock is behind ours.
 */
export function completionsAfter(answered: readonly PendingInbound[], replyTimestamp: IsoTimestamp | undefined): CompletedInbound[] {
  const completions = answered.map(completion);
  if (replyTimestamp !== undefined && completions.length > 0) {
    const last = completions[completions.length - 1];
    completions[completions.length - 1] = { ...last, historyTimestamp: latestOf(last.historyTimestamp ?? replyTimestamp, replyTimestamp) };
  }
  return completions;
}

/** When what answers `last` is written: now, but never before the message it answers, whatever the provider's clock said. */
export function answerTimestamp(now: Date, last: PendingInbound): IsoTimestamp {
  return latestOf(isoMicros(now), nextMicrosecond(last.historyTimestamp));
}

/** The pending messages a persisted reply answered: all registered up to the one it replies to. */
export function prefixThrough(pending: readonly PendingInbound[], messageId: string): PendingInbound[] {
  const index = pending.findIndex((turn) => turn.messageId === messageId);
  return pending.slice(0, index + 1);
}

/**
 * Whether a reply to `messageId` still answers the customer: it is the latest message and the
 * marker is not invalidated — what the persist guard's condition requires (latestGuardAction).
 */
export function answersLatest(latest: LatestInbound | undefined, messageId: string): boolean {
  return latest !== undefined && latest.latestMessageId === messageId && latest.invalidatedAt === undefined;
}

/**
 * A persisted reply may go out only while it answers the latest message, in the same session, and
 * no human took over (or the session was closed) after it was written.
 */
export function isStillDeliverable(latest: LatestInbound, outbox: OutboxEntry, reply: Message, session: Session): boolean {
  if (!answersLatest(latest, outbox.replyToMessageId)) return false;
  if (session.sessionId !== reply.sessionId) return false;
  const changedSinceReply = toEpochMicros(session.updatedAt) > toEpochMicros(reply.timestamp);
  return !(changedSinceReply && (isHumanOwned(session.state) || session.state === SessionState.CLOSED));
}

/** A new handoff starts with no notification sent (the markers of an earlier handoff are cleared). */
const NEW_HANDOFF_MARKERS: Partial<Session> = { handoffNotifiedAt: undefined, handoffRenotifiedAt: undefined, handoffRenotifyCount: 0, handoffCustomerRenotifiedAt: undefined };

/**
 * The session as the agent's decisions leave it. The first answer moves a NEW session to
 * QUALIFYING; a transition the state machine refuses (e.g. a handoff after closing in the same
 * response) is dropped rather than failing the turn. What the agent learned (registration data,
 * segment, intent) and a handover to another stage are recorded on the session; the tools'
 * schemas already bounded each value.
 */
export function applyActions(session: Session, actions: readonly AgentAction[], at: IsoTimestamp): Session {
  let next: Session = { ...session, updatedAt: at };
  const moveTo = (state: SessionState, extra: Partial<Session> = {}) => {
    if (isLegalTransition(next.state, state)) next = { ...transitionSession(next, state, at), ...extra };
  };
  for (const action of actions) {
    if (action.type === 'update_qualification') next = { ...next, qualificationData: mergeQualification(next.qualificationData, action.data) };
    else if (action.type === 'request_human_handoff') moveTo(SessionState.AWAITING_HUMAN, { handoffRequestedAt: at, handoffReason: previewOf(action.reason, MAX_HANDOFF_REASON_CHARS), ...NEW_HANDOFF_MARKERS });
    else if (action.type === 'close_session') moveTo(SessionState.CLOSED);
    else if (action.type === 'update_cadastral_data') next = { ...next, cadastralData: { ...next.cadastralData, ...action.data } };
    else if (action.type === 'set_segment') next = { ...next, segment: action.segment };
    else if (action.type === 'set_intent') next = { ...next, intent: action.intent };
    else if (action.type === 'handover_to_agent') next = { ...next, currentAgent: action.agent };
  }
  if (next.state === SessionState.NEW) moveTo(SessionState.QUALIFYING);
  return next;
}

/** At most this many qualification fields per session: a form, not a store. */
export const MAX_QUALIFICATION_KEYS = 40;
/**
 * At most this many UTF-8 bytes of qualification keys and values per session. The session item
 * must stay far below DynamoDB's 400 KB item limit, or every later turn of the customer would fail.
 */
export const MAX_QUALIFICATION_BYTES = 16 * 1024;
/** Out-of-portfolio demands recorded per turn; the rest of a (steered) burst is dropped. */
export const MAX_DEMANDS_PER_TURN = 5;

/**
 * The qualification data with `update` merged in, field by field, as far as the bounds allow: a
 * field that would take the data past {@link MAX_QUALIFICATION_KEYS} or {@link MAX_QUALIFICATION_BYTES}
 * is dropped (the turn goes on; the agent still sees the data it has).
 */
export function mergeQualification(data: Readonly<Record<string, unknown>>, update: Readonly<Record<string, string>>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...data };
  for (const [key, value] of Object.entries(update)) {
    const candidate = { ...merged, [key]: value };
    if (Object.keys(candidate).length <= MAX_QUALIFICATION_KEYS && qualificationBytes(candidate) <= MAX_QUALIFICATION_BYTES) Object.assign(merged, { [key]: value });
  }
  return merged;
}

const utf8 = new TextEncoder();

function qualificationBytes(data: Readonly<Record<string, unknown>>): number {
  const text = (value: unknown): string => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));
  return Object.entries(data).reduce((total, [key, value]) => total + utf8.encode(key).length + utf8.encode(text(value)).length, 0);
}

/** The demands of a turn to record: the first {@link MAX_DEMANDS_PER_TURN} the agent decided. */
export function demandsOfTurn(actions: readonly AgentAction[]): RecordOutOfPortfolioDemandAction[] {
  return actions.filter((action): action is RecordOutOfPortfolioDemandAction => action.type === 'record_out_of_portfolio_demand').slice(0, MAX_DEMANDS_PER_TURN);
}

/** Qualification data as the agent is shown it: every value a string. */
export function qualificationAsText(data: Readonly<Record<string, unknown>>): Record<string, string> {
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]));
}

/**
 * The newest entries whose texts fit in `maxCharacters` together, in their order: what a history
 * of long messages may show the model. The newest entry is always kept, cut to the bound if it
 * alone is longer (never inside a character), so the turn's own message is never dropped.
 */
export function newestWithin<T extends { readonly text: string }>(entries: readonly T[], maxCharacters: number): T[] {
  const kept: T[] = [];
  let remaining = maxCharacters;
  for (let index = entries.length - 1; index >= 0; index--) {
    const entry = entries[index];
    if (entry.text.length > remaining) {
      if (kept.length === 0) kept.push({ ...entry, text: cutOnCodePoints(entry.text, maxCharacters) });
      break;
    }
    kept.push(entry);
    remaining -= entry.text.length;
  }
  return kept.reverse();
}
