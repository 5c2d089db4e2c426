import type { InboundTurn } from './inbound-turn';
import type { Message } from './message';
import { isoMicros, type IsoTimestamp } from './timestamps';

/**
 * A message the business sent from the WhatsApp Business app (or a device linked to it) on a number
 * the Cloud API shares with the app — Meta's `smb_message_echoes` webhook ("coexistence"). A person
 * of the business wrote it: it is recorded as theirs, never answered, and never opens or extends
 * the customer's 24-hour window (it is not the customer's message).
 */
export interface BusinessEcho extends Pick<InboundTurn, 'customerId' | 'customerIdKind' | 'businessPhoneNumberId' | 'messageType' | 'text' | 'receivedAt'> {
  /** Meta's id of the message the business sent: the deduplication key. */
  readonly messageId: string;
  /** When the business sent it (Meta's timestamp, to the second). */
  readonly providerTimestamp: IsoTimestamp;
}

/** Why the agent stops answering a conversation a person of the business answered from the phone. */
export const ANSWERED_FROM_PHONE = 'Answered from the WhatsApp Business app';

/**
 * The echo as a history entry: outbound (the business's words, so it never counts as the customer
 * writing), written by the business app's person, under Meta's id. Placed at its reception, as a
 * customer message for people is: Meta's timestamp is to the second, and would put an answer from
 * the phone before the agent's reply it followed within that second.
 */
export function businessAppMessage(echo: BusinessEcho, sessionId: string): Message {
  return {
    customerId: echo.customerId,
    sessionId,
    messageId: echo.messageId,
    direction: 'outbound',
    role: 'business_app',
    text: echo.text,
    timestamp: isoMicros(echo.receivedAt),
    messageType: echo.messageType,
    providerMessageId: echo.messageId,
    sentAt: isoMicros(echo.providerTimestamp),
  };
}
