import { callbackDataOf } from '../domain/callback-data';
import type { LatestInbound, OutboxEntry, PendingInbound } from '../domain/inbound-receipt';
import type { DeliveryFailureReason } from '../domain/delivery-receipt';
import type { Message } from '../domain/message';
import { isInsideServiceWindow, lastCustomerMessageOf } from '../domain/service-window';
import type { Session } from '../domain/session';
import { isoMicros } from '../domain/timestamps';
import { completionsAfter, isStillDeliverable } from '../domain/turn';
import type { Clock } from '../ports/clock';
import type { MessageRepository, ReplyDelivery, TurnLedger } from '../ports/repositories';
import { WhatsAppSendError, type SentTextMessage, type WhatsAppSender } from '../ports/whatsapp-sender';
import { ReplyDeliveryError } from './reply-delivery-error';
import type { TurnOutcome } from './turn-settings';

export interface OutboxSettlementDependencies {
  readonly ledger: TurnLedger;
  readonly messages: MessageRepository;
  readonly whatsapp: WhatsAppSender;
  readonly clock: Clock;
}

/** What the turn last read about a persisted reply: the reply, its session (the active one on a retry) and the customer's consent. */
export interface OutboxFindings {
  readonly reply?: Message;
  readonly session?: Session;
  readonly optedOut: boolean;
}

/**
 * The end of a turn for the reply in the outbox (docs/DESIGN.md#a-normal-turn-step-by-step, from the
 * deliverability check of step 8 to step 10): sends or supersedes it, then — in one transaction —
 * records its delivery status, completes the messages it answered and clears the outbox. Runs right
 * after a persist and again on every retry of the record, so each step checks what an earlier
 * attempt already did: a `sent` reply is never sent again, and a status leaves `pending_send` once.
 * A reply an earlier attempt persisted that no longer answers the latest message may have been sent
 * by that attempt: it becomes `maybe_sent`, never `superseded` (which means never sent).
 */
export class OutboxSettlement {
  constructor(private readonly deps: OutboxSettlementDependencies) {}

  async settle(latest: LatestInbound, outbox: OutboxEntry, answered: readonly PendingInbound[], sentOutcome: 'answered' | 'resent', found: OutboxFindings): Promise<TurnOutcome> {
    const { reply, session } = found;
    let outcome: TurnOutcome = 'superseded';
    let delivery: ReplyDelivery | undefined;
    if (reply?.deliveryStatus === 'sent') outcome = sentOutcome;
    else if (reply?.deliveryStatus === 'failed_permanent') outcome = 'failed_permanent';
    else if (reply?.deliveryStatus === 'pending_send') {
      // An opt-out that arrived while the agent was thinking stops the reply too.
      if (session !== undefined && isStillDeliverable(latest, outbox, reply, session) && !found.optedOut) {
        delivery = this.windowClosed(latest, answered) ?? (await this.deliver(reply, session, outbox));
        outcome = delivery.status === 'sent' ? sentOutcome : 'failed_permanent';
      } else if (sentOutcome === 'resent' && reply.unsentAt === undefined) {
        // An earlier attempt persisted it and may have died right after WhatsApp took it (one
        // that failed without sending it said so): the customer may have it. Not sent again, kept
        // in the history as such, counted.
        delivery = { status: 'maybe_sent', at: isoMicros(this.deps.clock.now()) };
        outcome = 'maybe_sent';
      } else {
        delivery = { status: 'superseded', at: isoMicros(this.deps.clock.now()) };
      }
    }
    try {
      await this.deps.ledger.complete({ customerId: latest.customerId, answered: completionsAfter(answered, reply?.timestamp), latest, outbox: outbox.ref, delivery });
    } catch (error) {
      if (delivery?.status !== 'sent') throw error;
      // The customer has the reply: record that much on its own, so the retry only finishes the
      // bookkeeping. If even that fails, the table still says pending_send and the retry sends again.
      const recorded = await this.deps.messages.markOutboundSent(outbox.ref, delivery, delivery.sentAt).then(
        () => true,
        () => false,
      );
      throw recorded ? error : new ReplyDeliveryError(error as Error, { acceptedButUnrecorded: true });
    }
    return outcome;
  }

  /**
   * A reply persisted inside the customer's 24-hour window and retried after it closed: free text
   * no longer reaches them, so it is refused here as Meta would refuse it (131047), without a send.
   */
  private windowClosed(latest: LatestInbound, answered: readonly PendingInbound[]): ReplyDelivery | undefined {
    if (isInsideServiceWindow(lastCustomerMessageOf(latest.historyWatermark, answered), this.deps.clock.now())) return undefined;
    return { status: 'failed_permanent', reason: 'window-closed' satisfies DeliveryFailureReason };
  }

  /** Sends the reply; a refusal for good is a `failed_permanent` delivery. Throws ReplyDeliveryError to retry. */
  private async deliver(reply: Message, session: Session, outbox: OutboxEntry): Promise<ReplyDelivery> {
    try {
      const sent: SentTextMessage = await this.deps.whatsapp.sendText({
        businessPhoneNumberId: session.businessPhoneNumberId ?? '',
        customerId: session.customerId,
        customerIdKind: session.customerIdKind ?? 'phone',
        text: reply.text,
        ...(reply.interactive === undefined ? {} : { interactive: reply.interactive }),
        // Meta echoes it in the reply's statuses: they settle an unknown outcome before a retry resends.
        callbackData: callbackDataOf(outbox.ref),
      });
      return { status: 'sent', providerMessageId: sent.providerMessageId, providerMessageIds: sent.providerMessageIds, sentAt: isoMicros(this.deps.clock.now()) };
    } catch (error) {
      if (error instanceof WhatsAppSendError && !error.retryable) return { status: 'failed_permanent', reason: `${error.category}${error.metaCode === undefined ? '' : `:${error.metaCode}`}` };
      if (error instanceof WhatsAppSendError && !error.outcomeUnknown && error.partsDelivered === 0) {
        // Certainly not sent: if a newer message makes it obsolete before the retry, it was never sent.
        await this.deps.messages.markUnsent(outbox.ref, isoMicros(this.deps.clock.now())).catch(() => false);
      }
      throw new ReplyDeliveryError(error as Error);
    }
  }
}
