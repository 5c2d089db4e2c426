import type { InboundReceipt, LatestInbound } from './inbound-receipt';
import { isHumanOwned, type Session } from './session';

/*
 * What a redrive of a dead-lettered turn would do, decided from what the table knows about its
 * message (see docs/DESIGN.md#dead-letters-and-redrive and the runbook in docs/RELIABILITY.md).
 */

/**
 * - `drop`: the message was consumed already (answered, superseded or sent to a human): nothing to
 *   redo, the record is deleted from the DLQ;
 * - `redrive`: no reply for the message was sent: it goes back to its customer's turn;
 * - `complete`: a reply for it was already sent; the redriven turn only completes the bookkeeping
 *   (the protocol never re-sends a reply recorded as sent);
 * - `confirm`: something is unusual; nothing happens unless the operator confirms `onConfirm`.
 */
export type RedriveVerdict = 'drop' | 'redrive' | 'complete' | 'confirm';

export interface ReplyRecord {
  readonly messageId: string;
  readonly status: string;
  readonly at: string;
  readonly sentAt?: string;
}

export interface ParkedMessage {
  readonly messageId: string;
  /** Its place in the history (where it is, or will be once its turn appends it). */
  readonly historyTimestamp?: string;
}

export interface DeadLetterInspection {
  /** The dead-letter queue's id of the record. */
  readonly recordId: string;
  readonly receiveCount: number;
  /** When the record first entered the turn queue. */
  readonly queuedAt?: string;
  readonly customer?: string;
  readonly messageId?: string;
  readonly receipt?: InboundReceipt;
  readonly latest?: LatestInbound;
  /** The reply waiting in the customer's outbox, if any (whatever message it answers). */
  readonly outbox?: ReplyRecord & { readonly replyTo: string };
  readonly session?: Pick<Session, 'sessionId' | 'state' | 'updatedAt'>;
  /** Replies recorded for this message (sent, pending, superseded, failed). */
  readonly replies: readonly ReplyRecord[];
  /**
   * The customer's parked messages, oldest first (a failed turn parks every message it drained,
   * while only its own record reaches the DLQ): a redrive restores them all, in this order.
   */
  readonly parked: readonly ParkedMessage[];
  readonly verdict: RedriveVerdict;
  /** Why, in words an operator can check against the fields above. */
  readonly reasons: readonly string[];
  /** The same, as reason codes with the facts they name (for a reader in another language). */
  readonly explanation: readonly DeadLetterReason[];
  /** What a confirmation of a `confirm` verdict does. */
  readonly onConfirm?: 'drop' | 'redrive';
}

/**
 * One part of a verdict's explanation: a code the console words in its language, with the facts
 * it names. The English `reasons` are the same parts in words (see {@link reasonText}).
 */
export type DeadLetterReason =
  | { readonly code: 'not_a_turn' | 'no_message' | 'no_receipt' | 'nothing_pending' | 'parked_restored' | 'nothing_to_redo' | 'not_sent' | 'outbox_waiting' | 'overtaken' | 'still_pending' }
  | { readonly code: 'completed'; readonly completedAt: string }
  | { readonly code: 'completed_sent'; readonly completedAt: string; readonly sentAt: string }
  | { readonly code: 'routed_to_human'; readonly humanRoutedAt: string }
  | { readonly code: 'outbox_settles'; readonly status: string }
  | { readonly code: 'invalidated'; readonly invalidatedAt: string }
  | { readonly code: 'parked'; readonly deadLetteredAt: string }
  | { readonly code: 'others_parked'; readonly count: number }
  | { readonly code: 'already_sent'; readonly sentAt: string }
  | { readonly code: 'human_owned'; readonly state: string };

export type DeadLetterReasonCode = DeadLetterReason['code'];

/** The English words of each reason part (the command-line tool's and the API's `reasons`). */
export function reasonText(reason: DeadLetterReason): string {
  switch (reason.code) {
    case 'not_a_turn':
      return 'The body is not a turn of this pipeline ({phone_number, message_id}): no turn can process it.';
    case 'no_message':
      return 'The record names no message: a redrive runs a turn for whatever the customer has pending.';
    case 'no_receipt':
      return 'No receipt: it expired (receipts live 7 days, the DLQ keeps records 14) or the message was never registered. Nothing can be redriven; the history still shows what the customer wrote.';
    case 'completed':
      return `Completed at ${reason.completedAt} (answered together with, or overtaken by, another message).`;
    case 'completed_sent':
      return `Completed at ${reason.completedAt}; its reply was sent at ${reason.sentAt}.`;
    case 'routed_to_human':
      return `Routed to the human inbox at ${reason.humanRoutedAt}: not the agent's to answer.`;
    case 'parked_restored':
      return 'But the customer has parked messages: the redrive restores them and runs their turn.';
    case 'outbox_settles':
      return `But a reply (${reason.status}) is still in the customer's outbox: the redriven turn settles it and sends nothing already sent.`;
    case 'nothing_to_redo':
      return 'Nothing to redo.';
    case 'invalidated':
      return `The customer's pending messages were invalidated at ${reason.invalidatedAt} (an operator barrier): check why before redriving.`;
    case 'nothing_pending':
      return 'Neither completed nor parked, and not on the pending list: a turn would find nothing to do. Check the receipt before dropping it.';
    case 'parked':
      return `Parked at ${reason.deadLetteredAt} (hidden from the agent until redriven).`;
    case 'still_pending':
      return 'Still on the pending list.';
    case 'others_parked':
      return `${reason.count} other parked message(s) of the customer come back with it.`;
    case 'already_sent':
      return `Its reply was already sent at ${reason.sentAt}: the redriven turn completes the bookkeeping and never sends it again.`;
    case 'not_sent':
      return 'No reply for it was sent.';
    case 'outbox_waiting':
      return 'Its reply waits in the outbox: the turn sends it without asking the agent again (if earlier attempts timed out, WhatsApp may have delivered it already: see ReplyOutcomeUnknown).';
    case 'overtaken':
      return 'A newer message is the latest: the turn completes this one without a reply.';
    case 'human_owned':
      return `A human owns the session (${reason.state}): the message goes to their inbox.`;
  }
}

export type Verdict = Pick<DeadLetterInspection, 'verdict' | 'reasons' | 'explanation' | 'onConfirm'>;

/** A verdict explained by its reason parts (one sentence of `reasons`, from the same parts). */
export function explainedVerdict(verdict: Pick<DeadLetterInspection, 'verdict' | 'onConfirm'>, ...explanation: DeadLetterReason[]): Verdict {
  return { ...verdict, explanation, reasons: [explanation.map(reasonText).join(' ')] };
}

type Facts = Pick<DeadLetterInspection, 'messageId' | 'receipt' | 'latest' | 'outbox' | 'session' | 'replies' | 'parked'>;

/** The decision table of the runbook (docs/RELIABILITY.md), one row per case. */
export function verdictFor({ messageId, receipt, latest, outbox, session, replies, parked }: Facts): Verdict {
  const sent = replies.find((reply) => reply.status === 'sent');
  const owner: DeadLetterReason[] = session && isHumanOwned(session.state) ? [{ code: 'human_owned', state: session.state }] : [];
  const overtaken: DeadLetterReason[] = latest?.latestMessageId !== undefined && latest.latestMessageId !== messageId ? [{ code: 'overtaken' }] : [];
  if (receipt === undefined) return explainedVerdict({ verdict: 'confirm', onConfirm: 'drop' }, { code: 'no_receipt' });
  const consumed: DeadLetterReason | undefined =
    receipt.completedAt !== undefined
      ? sent
        ? { code: 'completed_sent', completedAt: receipt.completedAt, sentAt: sent.sentAt ?? sent.at }
        : { code: 'completed', completedAt: receipt.completedAt }
      : receipt.humanRoutedAt !== undefined
        ? { code: 'routed_to_human', humanRoutedAt: receipt.humanRoutedAt }
        : undefined;
  if (consumed !== undefined) {
    if (parked.length > 0) return explainedVerdict({ verdict: 'redrive' }, consumed, { code: 'parked_restored' }, ...overtaken);
    if (outbox !== undefined) return explainedVerdict({ verdict: 'redrive' }, consumed, { code: 'outbox_settles', status: outbox.status });
    return explainedVerdict({ verdict: 'drop' }, consumed, { code: 'nothing_to_redo' });
  }
  if (latest?.invalidatedAt !== undefined) return explainedVerdict({ verdict: 'confirm', onConfirm: 'redrive' }, { code: 'invalidated', invalidatedAt: latest.invalidatedAt });
  const isParked = receipt.deadLetteredAt !== undefined;
  const pending = messageId !== undefined && (latest?.pendingMessageIds.includes(messageId) ?? false);
  if (!isParked && !pending) return explainedVerdict({ verdict: 'confirm', onConfirm: 'drop' }, { code: 'nothing_pending' });
  const others = parked.filter((message) => message.messageId !== messageId).length;
  const where: DeadLetterReason[] = [isParked ? { code: 'parked', deadLetteredAt: receipt.deadLetteredAt! } : { code: 'still_pending' }, ...(others > 0 ? [{ code: 'others_parked', count: others } as const] : [])];
  if (sent) return explainedVerdict({ verdict: 'complete' }, ...where, { code: 'already_sent', sentAt: sent.sentAt ?? sent.at }, ...overtaken);
  const waiting: DeadLetterReason[] = outbox !== undefined && outbox.replyTo === messageId && outbox.status === 'pending_send' ? [{ code: 'outbox_waiting' }] : [];
  return explainedVerdict({ verdict: 'redrive' }, ...where, { code: 'not_sent' }, ...waiting, ...overtaken, ...owner);
}
