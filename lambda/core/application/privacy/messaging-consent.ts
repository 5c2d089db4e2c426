import { type ConsentWords, type LocaleTexts, localePreset } from '../../../../lib/contract';
import { consentCommandOf, MESSAGING_CONSENT_PURPOSE, messagingWithdrawn } from '../../domain/privacy';
import type { InboundTurn } from '../../domain/inbound-turn';
import type { ConsentRepository } from '../../ports/repositories';
import type { WhatsAppSender } from '../../ports/whatsapp-sender';

/** What the customer is told after an opt-out word and after an opt-in word (docs/PRIVACY.md). */
export interface ConsentConfirmations {
  readonly optedOut: string;
  readonly optedIn: string;
}

/** The confirmations of a pipeline's locale. */
export function consentConfirmationsOf(texts: LocaleTexts): ConsentConfirmations {
  return { optedOut: texts.optedOut, optedIn: texts.optedIn };
}

export const DEFAULT_CONSENT_CONFIRMATIONS: ConsentConfirmations = consentConfirmationsOf(localePreset().texts);

/** How the turn must treat a customer's messages, given their messaging consent. */
export type ConsentVerdict = 'answer' | 'confirmed_opt_out' | 'confirmed_opt_in' | 'opted_out';

/**
 * Opt-out and back (the locale's words; pt-BR `PARAR`/`STOP`/`SAIR`, `VOLTAR`/`START`): each word records a consent event for
 * `whatsapp_messages` and gets one confirmation; while the customer is opted out, nothing else is
 * sent to them. The event's time and id come from the message, so a retried turn records it once.
 */
export class MessagingConsent {
  constructor(
    private readonly deps: {
      readonly consents: ConsentRepository;
      readonly whatsapp: WhatsAppSender;
      readonly confirmations?: ConsentConfirmations;
      /** Default: the default locale's words. */
      readonly words?: ConsentWords;
    },
  ) {}

  async isOptedOut(customerId: string): Promise<boolean> {
    return messagingWithdrawn(await this.deps.consents.latestFor(customerId, MESSAGING_CONSENT_PURPOSE));
  }

  /**
   * Records and confirms an opt-out/opt-in word; tells the turn whether it may answer. `optedOut` is
   * the customer's current consent as the turn read it (one batch with its other reads). A word
   * whose turn came after the customer's 24-hour window closed (`windowOpen: false`) is recorded
   * all the same, unconfirmed: the confirmation is free text, which WhatsApp would refuse.
   */
  async gate(message: InboundTurn, optedOut: boolean, windowOpen = true): Promise<ConsentVerdict> {
    const command = consentCommandOf(message.text, this.deps.words);
    if (command === undefined) return optedOut ? 'opted_out' : 'answer';
    if (command === 'opt_in' && !optedOut) return 'answer';
    const granted = command === 'opt_in';
    await this.deps.consents.record({
      consentId: message.messageId,
      customerId: message.customerId,
      recordedAt: message.receivedAt,
      purpose: MESSAGING_CONSENT_PURPOSE,
      granted,
      source: 'whatsapp_keyword',
      evidenceMessageId: message.messageId,
    });
    const confirmations = this.deps.confirmations ?? DEFAULT_CONSENT_CONFIRMATIONS;
    if (windowOpen) {
      await this.deps.whatsapp.sendText({
        businessPhoneNumberId: message.businessPhoneNumberId,
        customerId: message.customerId,
        customerIdKind: message.customerIdKind,
        text: granted ? confirmations.optedIn : confirmations.optedOut,
      });
    }
    return granted ? 'confirmed_opt_in' : 'confirmed_opt_out';
  }
}
