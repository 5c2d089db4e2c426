import { type Locale, localePreset } from '../../lib/contract';
import { consentRepository, type DynamoTable } from '../core/adapters/dynamodb/dynamo-repositories';
import { createWhatsAppSender, type SenderCompositionOptions, type WhatsAppChannelConfig } from '../core/adapters/whatsapp/whatsapp-channel';
import { consentConfirmationsOf, MessagingConsent } from '../core/application/privacy/messaging-consent';
import type { WhatsAppSender } from '../core/ports/whatsapp-sender';

/** What the functions that write to customers may be handed instead of the channel's sender. */
export interface SenderPorts extends SenderCompositionOptions {
  /** The sender to use instead of the channel's (benchmarks count its calls). */
  readonly whatsapp?: WhatsAppSender;
}

/** How a function writes to customers: the channel's sender, and the opt-out every message obeys (in the locale's words). */
export interface CustomerMessaging {
  readonly whatsapp: WhatsAppSender;
  readonly consent: MessagingConsent;
}

export function composeCustomerMessaging(channel: WhatsAppChannelConfig, locale: Locale, table: DynamoTable, ports: SenderPorts): CustomerMessaging {
  const whatsapp = ports.whatsapp ?? createWhatsAppSender(channel, ports);
  const { texts, consentWords } = localePreset(locale);
  return { whatsapp, consent: new MessagingConsent({ consents: consentRepository(table), whatsapp, confirmations: consentConfirmationsOf(texts), words: consentWords }) };
}
