import type { IsoTimestamp } from './timestamps';
import type { CarriesUnknownAttributes } from './unknown-attributes';

/**
 * An administrable resource with full version history (a prompt, a service package…). The
 * current item mirrors the newest version; every edit and every rollback adds a version.
 */
export interface VersionedResource extends CarriesUnknownAttributes {
  /** e.g. `prompt`, `package`. */
  readonly resourceType: string;
  readonly resourceId: string;
  /** 1 for the first version, +1 per edit. */
  readonly version: number;
  readonly content: string;
  readonly description?: string;
  readonly active: boolean;
  readonly author: string;
  /** When this version was written. */
  readonly createdAt: IsoTimestamp;
  /** The version this one restored, when it came from a rollback. */
  readonly rolledBackFrom?: number;
}

/** The config key holding the map operator phone → instant the operator declared availability. */
export const OPERATOR_AVAILABILITY_CONFIG_KEY = 'operator_availability';

/** A named operational setting, versioned so editors can compare-and-set. */
export interface OperationalConfig extends CarriesUnknownAttributes {
  readonly key: string;
  /** Any JSON value. */
  readonly value: unknown;
  readonly author: string;
  readonly updatedAt: IsoTimestamp;
  /** Incremented by every write. */
  readonly version: number;
}

/** Who changed what in the admin surface. */
export interface AdminAuditEvent extends CarriesUnknownAttributes {
  readonly eventId: string;
  readonly occurredAt: IsoTimestamp;
  readonly author: string;
  readonly action: string;
  readonly resourceType?: string;
  readonly resourceId?: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

/**
 * A customer's consent event as the pipeline recorded it. It is a record of what was said, not an
 * automatic clinical or legal approval.
 */
export interface ConsentRecord extends CarriesUnknownAttributes {
  readonly consentId: string;
  readonly customerId: string;
  readonly recordedAt: IsoTimestamp;
  /** What the consent is about, e.g. `data_processing`, `marketing`. */
  readonly purpose: string;
  readonly granted: boolean;
  /** The channel or flow that captured it. */
  readonly source: string;
  readonly sessionId?: string;
  /** The wording (or its version) the customer agreed to. */
  readonly termsVersion?: string;
  readonly evidenceMessageId?: string;
}
