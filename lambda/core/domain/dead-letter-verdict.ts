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
  /** What a confirmation of a `confirm` verdict does. */
  readonly onConfirm?: 'drop' | 'redrive';
}

type Facts = Pick<DeadLetterInspection, 'messageId' | 'receipt' | 'latest' | 'outbox' | 'session' | 'replies' | 'parked'>;

/** The decision table of the runbook (docs/RELIABILITY.md), one row per case. */
export function verdictFor({ messageId, receipt, latest, outbox, session, replies, parked }: Facts): Pick<DeadLetterInspection, 'verdict' | 'reasons' | 'onConfirm'> {
  const sent = replies.find((reply) => reply.status === 'sent');
  const owner = session && isHumanOwned(session.state) ? ` A human owns the session (${session.state}): the message goes to their inbox.` : '';
  const overtaken = latest?.latestMessageId !== undefined && latest.latestMessageId !== messageId ? ' A newer message is the latest: the turn completes this one without a reply.' : '';
  if (receipt === undefined) {
    return {
      verdict: 'confirm',
      onConfirm: 'drop',
      reasons: ['No receipt: it expired (receipts live 7 days, the DLQ keeps records 14) or the message was never registered. Nothing can be redriven; the history still shows what the customer wrote.'],
    };
  }
  const consumed =
    receipt.completedAt !== undefined
      ? `Completed at ${receipt.completedAt}${sent ? `; its reply was sent at ${sent.sentAt ?? sent.at}` : ' (answered together with, or overtaken by, another message)'}.`
      : receipt.humanRoutedAt !== undefined
        ? `Routed to the human inbox at ${receipt.humanRoutedAt}: not the agent's to answer.`
        : undefined;
  if (consumed !== undefined) {
    if (parked.length > 0) return { verdict: 'redrive', reasons: [`${consumed} But the customer has parked messages: the redrive restores them and runs their turn.${overtaken}`] };
    if (outbox !== undefined) {
      return { verdict: 'redrive', reasons: [`${consumed} But a reply (${outbox.status}) is still in the customer's outbox: the redriven turn settles it and sends nothing already sent.`] };
    }
    return { verdict: 'drop', reasons: [`${consumed} Nothing to redo.`] };
  }
  if (latest?.invalidatedAt !== undefined) {
    return { verdict: 'confirm', onConfirm: 'redrive', reasons: [`The customer's pending messages were invalidated at ${latest.invalidatedAt} (an operator barrier): check why before redriving.`] };
  }
  const isParked = receipt.deadLetteredAt !== undefined;
  const pending = messageId !== undefined && (latest?.pendingMessageIds.includes(messageId) ?? false);
  if (!isParked && !pending) {
    return {
      verdict: 'confirm',
      onConfirm: 'drop',
      reasons: ['Neither completed nor parked, and not on the pending list: a turn would find nothing to do. Check the receipt before dropping it.'],
    };
  }
  const others = parked.filter((message) => message.messageId !== messageId).length;
  const where = `${isParked ? `Parked at ${receipt.deadLetteredAt} (hidden from the agent until redriven).` : 'Still on the pending list.'}${
    others > 0 ? ` ${others} other parked message(s) of the customer come back with it.` : ''
  }`;
  if (sent) {
    return {
      verdict: 'complete',
      reasons: [`${where} Its reply was already sent at ${sent.sentAt ?? sent.at}: the redriven turn completes the bookkeeping and never sends it again.${overtaken}`],
    };
  }
  const waiting = outbox !== undefined && outbox.replyTo === messageId && outbox.status === 'pending_send';
  return {
    verdict: 'redrive',
    reasons: [
      `${where} No reply for it was sent.${
        waiting ? ' Its reply waits in the outbox: the turn sends it without asking the agent again (if earlier attempts timed out, WhatsApp may have delivered it already: see ReplyOutcomeUnknown).' : ''
      }${overtaken}${owner}`,
    ],
  };
}
