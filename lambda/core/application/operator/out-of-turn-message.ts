import type { Message } from '../../domain/message';
import type { Session } from '../../domain/session';
import { isoMicros, latestOf, nextMicrosecond } from '../../domain/timestamps';
import type { Clock, IdGenerator } from '../../ports/clock';
import type { InboundReceiptRepository, MessageRepository } from '../../ports/repositories';

export interface OutOfTurnMessageDependencies {
  readonly messages: MessageRepository;
  readonly receipts: InboundReceiptRepository;
  readonly clock: Clock;
  readonly ids: IdGenerator;
}

/**
 * Records a message WhatsApp already accepted outside a turn (an operator's reply, a handoff
 * notice): after everything in the history, and with the history watermark moved past it, so the
 * customer's next message — whose provider timestamp has whole seconds only — is placed after it.
 */
export async function recordSentOutOfTurn(
  deps: OutOfTurnMessageDependencies,
  session: Session,
  sent: Pick<Message, 'text' | 'providerMessageId' | 'operatorPhone' | 'template'> & { readonly role: 'operator' | 'system' },
): Promise<Message> {
  const now = isoMicros(deps.clock.now());
  const [newest] = (await deps.messages.history(session.customerId, { limit: 1 })).items;
  const message: Message = {
    customerId: session.customerId,
    sessionId: session.sessionId,
    messageId: deps.ids.newId(),
    direction: 'outbound',
    role: sent.role,
    text: sent.text,
    timestamp: newest === undefined ? now : latestOf(now, nextMicrosecond(newest.timestamp)),
    deliveryStatus: 'sent',
    providerMessageId: sent.providerMessageId,
    sentAt: now,
    operatorPhone: sent.operatorPhone,
    template: sent.template,
  };
  await deps.messages.append(message);
  await deps.receipts.advanceHistoryWatermark(session.customerId, message.timestamp);
  return message;
}
