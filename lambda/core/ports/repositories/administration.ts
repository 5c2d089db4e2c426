import type { AdminAuditEvent, OperationalConfig, VersionedResource } from '../../domain/admin';
import type { IsoTimestamp } from '../../domain/timestamps';
import type { Page, PageRequest } from './paging';

export interface NextVersionInput {
  readonly resourceType: string;
  readonly resourceId: string;
  readonly content: string;
  readonly description?: string;
  readonly author: string;
  readonly active?: boolean;
  /** The version the editor started from (0: creating). Omitted: the current version, read now. */
  readonly expectedVersion?: number;
}

/** Versioned admin resources (the system prompt): a current item and one immutable item per version. */
export interface VersionedResourceRepository {
  listCurrent(resourceType: string, page?: PageRequest): Promise<Page<VersionedResource>>;
  getCurrent(resourceType: string, resourceId: string): Promise<VersionedResource | undefined>;
  getVersion(resourceType: string, resourceId: string, version: number): Promise<VersionedResource | undefined>;
  /** Newest first. */
  listVersions(resourceType: string, resourceId: string, page?: PageRequest): Promise<Page<VersionedResource>>;
  /** Current + new version in ONE conditional transaction; VersionConflictError for the loser. */
  putNextVersion(input: NextVersionInput): Promise<VersionedResource>;
  /** A new version carrying the target's content; AdminResourceVersionNotFoundError if it does not exist. */
  rollback(resourceType: string, resourceId: string, targetVersion: number, author: string): Promise<VersionedResource>;
}

export interface OperationalConfigInput {
  readonly key: string;
  readonly value: unknown;
  readonly author: string;
}

/** Operational settings an admin edits (operators, handoff texts, …), each versioned. */
export interface OperationalConfigRepository {
  get(key: string): Promise<OperationalConfig | undefined>;
  /** With `expectedVersion` (0: must not exist) a compare-and-set: VersionConflictError when stale. */
  set(config: OperationalConfigInput, options?: { readonly expectedVersion?: number }): Promise<OperationalConfig>;
  /**
   * Sets (or with `null` removes) one operator's entry in the `operator_availability` map in place,
   * atomically; returns the whole map afterwards.
   */
  setOperatorAvailability(operatorPhone: string, availableSince: IsoTimestamp | null, author: string): Promise<Readonly<Record<string, IsoTimestamp>>>;
}

/** What operators and admins did, append-only. */
export interface AdminAuditRepository {
  record(event: AdminAuditEvent): Promise<void>;
  /** Newest first. */
  listRecent(page?: PageRequest): Promise<Page<AdminAuditEvent>>;
}
