import { callbackDataOf } from '../domain/callback-data';
import type { PendingInbound } from '../domain/inbound-receipt';
import { failureNoticeMessage } from '../domain/message';
import type { Session } from '../domain/session';
import { isoMicros } from '../domain/timestamps';
import { answerTimestamp, completion, newest } from '../domain/turn';
import type { Clock, IdGenerator } from '../ports/clock';
import type { InboundReceiptRepository, MessageRepository, TurnLedger } from '../ports/repositories';
import type { WhatsAppSender } from '../ports/whatsapp-sender';

export interface FailureNoticeDependencies {
  readonly ledger: TurnLedger;
  readonly receipts: InboundReceiptRepository;
  readonly messages: MessageRepository;
  readonly whatsapp: WhatsAppSender;
  readonly clock: Clock;
  readonly ids: IdGenerator;
}

/** `sent`: the customer got the notice now; `claimed_before`: an earlier failure of the same set sent (or lost) it. */
export type FailureNoticeOutcome = 'sent' | 'claimed_before';

/**
 * Tells a customer whose messages were just parked — their turn failed on every delivery attempt,
 * and nobody else will answer them before a redrive — that something went wrong: the fallback text,
 * once per parked set. The claim and the notice's place in the history are one write; the send
 * follows it, so a crash between them loses the notice rather than sending it twice. The notice
 * is not a reply to the messages (no outbox, no `replyToMessageId`): a redrive still asks the
 * agent, and the agent never sees it (`isVisibleToAgent`).
 */
export class FailureNotice {
  constructor(private readonly deps: FailureNoticeDependencies) {}

  async send(parked: readonly PendingInbound[], session: Session, text: string): Promise<FailureNoticeOutcome> {
    const last = newest(parked);
    const createdAt = answerTimestamp(this.deps.clock.now(), last);
    const notice = failureNoticeMessage(session, { messageId: this.deps.ids.newId(), text, noticeFor: last.messageId, createdAt });
    if (!(await this.deps.ledger.claimFailureNotice(completion(last), notice))) return 'claimed_before';
    // The customer's next message is placed after the notice, whatever the provider's clock says.
    await this.deps.receipts.advanceHistoryWatermark(last.customerId, createdAt);
    const ref = this.deps.messages.refFor(notice);
    const sent = await this.deps.whatsapp.sendText({ businessPhoneNumberId: last.businessPhoneNumberId, customerId: last.customerId, customerIdKind: last.customerIdKind, text, callbackData: callbackDataOf(ref) });
    await this.deps.messages.markOutboundSent(ref, sent, isoMicros(this.deps.clock.now()));
    return 'sent';
  }
}
