import type { ConsentRecord } from '../../domain/admin';
import type { Page, PageRequest } from './paging';

/** The customers' consent events, append-only, and the current consent per purpose (docs/PRIVACY.md). */
export interface ConsentRepository {
  /** Put-if-absent: a retried record never replaces the first. */
  record(consent: ConsentRecord): Promise<void>;
  /** Every customer's events, newest first. */
  listRecent(page?: PageRequest): Promise<Page<ConsentRecord>>;
  /** The customer's newest event for `purpose`, read consistently. */
  latestFor(customerId: string, purpose: string): Promise<ConsentRecord | undefined>;
}
