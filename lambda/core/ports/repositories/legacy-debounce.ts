import type { LegacyDebounceBuffer, LegacyPendingReply } from '../../domain/legacy-debounce';
import type { IsoTimestamp } from '../../domain/timestamps';

/**
 * The BUFFER and PENDING_REPLY items of the former debounce design, which an older deployment may
 * have left: the orchestrator drains them once, then deletes them. Nothing writes new ones.
 */
export interface LegacyDebounceRepository {
  /** Both items, in one consistent read. */
  getLegacyItems(customerId: string): Promise<LegacyItems>;
  /** Deletes the buffer only if it is still the one that started at `firstMessageAt`. */
  deleteLegacyBufferIfFirstMessageAt(customerId: string, firstMessageAt: IsoTimestamp): Promise<boolean>;
  deleteLegacyPendingReply(customerId: string): Promise<void>;
}

/** What an older deployment left for one customer. */
export interface LegacyItems {
  readonly buffer?: LegacyDebounceBuffer;
  readonly pendingReply?: LegacyPendingReply;
}
