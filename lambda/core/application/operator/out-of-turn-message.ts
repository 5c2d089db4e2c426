import { callbackDataOf } from '../../domain/callback-data';
import type { Message } from '../../domain/message';
import type { Session } from '../../domain/session';
import { isoMicros, latestOf, nextMicrosecond } from '../../domain/timestamps';
import type { Clock, IdGenerator } from '../../ports/clock';
import type { InboundReceiptRepository, MessageRepository } from '../../ports/repositories';
import type { SentTextMessage } from '../../ports/whatsapp-sender';

export interface OutOfTurnMessageDependencies {
  readonly messages: Pick<MessageRepository, 'history' | 'refFor' | 'append'>;
  readonly receipts: Pick<InboundReceiptRepository, 'advanceHistoryWatermark'>;
  readonly clock: Clock;
  readonly ids: IdGenerator;
}

export type OutOfTurnContent = Pick<Message, 'text' | 'operatorPhone' | 'template' | 'interactive'> & { readonly role: 'operator' | 'system' };

/** Where a message sent outside a turn goes in the history: now, and after everything in it. */
export async function outOfTurnPlacement(deps: Pick<OutOfTurnMessageDependencies, 'messages' | 'clock' | 'ids'>, customerId: string): Promise<Pick<Message, 'customerId' | 'messageId' | 'timestamp'>> {
  const placed = isoMicros(deps.clock.now());
  const [newest] = (await deps.messages.history(customerId, { limit: 1 })).items;
  return { customerId, messageId: deps.ids.newId(), timestamp: newest === undefined ? placed : latestOf(placed, nextMicrosecond(newest.timestamp)) };
}

/**
 * Sends a message outside a turn (an operator's reply, a handoff notice) and records it once
 * WhatsApp accepted it: nothing is recorded for a send that throws, and a crash after the send
 * loses the record, never the message. Its place in the history — after everything in it — is
 * fixed before the send, so the send carries the message's key as callback data and its delivery
 * statuses find it (docs/DESIGN.md#delivery-receipts). The history watermark moves past it, so
 * the customer's next message — whose provider timestamp has whole seconds only — is placed after it.
 */
export async function sendOutOfTurn(
  deps: OutOfTurnMessageDependencies,
  session: Pick<Session, 'customerId' | 'sessionId'>,
  content: OutOfTurnContent,
  send: (callbackData: string) => Promise<SentTextMessage>,
): Promise<Message> {
  const placement = await outOfTurnPlacement(deps, session.customerId);
  const { providerMessageId, providerMessageIds } = await send(callbackDataOf(deps.messages.refFor(placement)));
  const message: Message = {
    ...placement,
    sessionId: session.sessionId,
    direction: 'outbound',
    role: content.role,
    text: content.text,
    deliveryStatus: 'sent',
    providerMessageId,
    ...(providerMessageIds.length > 1 && { providerMessageIds }),
    sentAt: isoMicros(deps.clock.now()),
    operatorPhone: content.operatorPhone,
    template: content.template,
    ...(content.interactive === undefined ? {} : { interactive: content.interactive }),
  };
  await deps.messages.append(message);
  await deps.receipts.advanceHistoryWatermark(session.customerId, message.timestamp);
  return message;
}
