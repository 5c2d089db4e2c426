import type { SessionState } from './session';
import type { IsoTimestamp } from './timestamps';
import type { CarriesUnknownAttributes } from './unknown-attributes';

/** How long the legacy buffer lives after its first message (its TTL). */
export const LEGACY_BUFFER_LIFETIME_SECONDS = 30;

/**
 * The former debounce buffer (messages collected for a window before one turn). New deployments
 * dispatch immediately; the orchestrator still drains a buffer left by an older one.
 */
export interface LegacyDebounceBuffer extends CarriesUnknownAttributes {
  readonly customerId: string;
  /** Message ids in arrival order. */
  readonly messageIds: readonly string[];
  /** Texts in the same order as `messageIds`. */
  readonly texts: readonly string[];
  readonly firstMessageAt: IsoTimestamp;
  readonly lastMessageAt: IsoTimestamp;
  readonly businessPhoneNumberId?: string;
}

/** A reply computed by an older deployment and not yet delivered; replayed, never recomputed. */
export interface LegacyPendingReply extends CarriesUnknownAttributes {
  readonly customerId: string;
  readonly text: string;
  readonly sessionId: string;
  readonly state: SessionState;
  readonly firstMessageId?: string;
  readonly firstMessageAt?: IsoTimestamp;
  readonly createdAt: IsoTimestamp;
}
