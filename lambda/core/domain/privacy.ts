import { createHmac } from 'node:crypto';
import { type ConsentWords, localePreset, RETENTION_DEFAULTS } from '../../../lib/contract';

/**
 * Customer ids are personal data: logs keep only the last four characters, enough to correlate a
 * support ticket without exposing the phone number.
 */
export function maskCustomerId(customerId: string): string {
  return customerId.length <= 4 ? '****' : `****${customerId.slice(-4)}`;
}

/** The consent purpose the opt-out words withdraw and the opt-in words grant again. */
export const MESSAGING_CONSENT_PURPOSE = 'whatsapp_messages';

/** Opted out of messages while the current messaging consent is a withdrawal; with none recorded, not opted out. */
export function messagingWithdrawn(currentMessagingConsent: { readonly granted: boolean } | undefined): boolean {
  return currentMessagingConsent !== undefined && !currentMessagingConsent.granted;
}

/**
 * `opt_out` / `opt_in` when the whole message is one of the locale's words (case, accents and
 * punctuation around it ignored); the default locale's words unless others are given.
 */
export function consentCommandOf(text: string | undefined, words: ConsentWords = localePreset().consentWords): 'opt_out' | 'opt_in' | undefined {
  if (text === undefined) return undefined;
  const word = text
    .normalize('NFD')
    .replace(/\p{Mn}/gu, '')
    .replace(/^[\s\p{P}]+|[\s\p{P}]+$/gu, '')
    .toUpperCase();
  if (words.optOut.includes(word)) return 'opt_out';
  if (words.optIn.includes(word)) return 'opt_in';
  return undefined;
}

/**
 * The pseudonym an erasure audit keeps instead of the customer id: HMAC-SHA-256 under a
 * per-deployment salt. The same customer always gets the same pseudonym within a deployment, so an
 * admin who knows a phone can check that it was erased, but the audit alone does not reveal it.
 */
export function customerPseudonym(salt: string, customerId: string): string {
  return createHmac('sha256', salt).update(customerId, 'utf8').digest('hex');
}

/** How long what the pipeline keeps about a conversation lives (docs/PRIVACY.md). */
export interface RetentionPolicy {
  /** A closed session and its messages, counted from the close. */
  readonly conversationSeconds: number;
  /** An out-of-portfolio demand, counted from when it was recorded. */
  readonly demandSeconds: number;
}

export const DEFAULT_RETENTION: RetentionPolicy = { conversationSeconds: RETENTION_DEFAULTS.conversationDays * 86_400, demandSeconds: RETENTION_DEFAULTS.demandDays * 86_400 };

/** The TTL (epoch seconds) of something that lives `seconds` after `from`. */
export function expiresAt(from: string | Date, seconds: number): number {
  return Math.floor(new Date(from).getTime() / 1000) + seconds;
}

/** Whether an item with this TTL is gone at `now`, whatever DynamoDB (which deletes up to days late) still holds. */
export function isExpired(ttl: unknown, now: Date): boolean {
  return typeof ttl === 'number' && ttl * 1000 <= now.getTime();
}
