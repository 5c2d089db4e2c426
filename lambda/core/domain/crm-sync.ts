import type { Session, SessionState } from './session';
import { stableDigest } from './stable-json';
import type { IsoTimestamp } from './timestamps';
import type { CarriesUnknownAttributes } from './unknown-attributes';

/**
 * Where a session's projection into the CRM stands:
 * PENDING (content to publish), SYNCED (the CRM has this revision), BLOCKED (needs a person, e.g.
 * rejected data), UNCERTAIN (a create may or may not have happened; reconcile before retrying).
 */
export const CrmSyncStatus = {
  PENDING: 'PENDING',
  SYNCED: 'SYNCED',
  BLOCKED: 'BLOCKED',
  UNCERTAIN: 'UNCERTAIN',
} as const;
export type CrmSyncStatus = (typeof CrmSyncStatus)[keyof typeof CrmSyncStatus];

/**
 * Statuses an operator has to look at. PENDING is the worker's ordinary backlog, not a problem: a
 * stuck backlog shows as rows turning BLOCKED once their attempts run out.
 */
export const CRM_PROBLEM_STATUSES: readonly CrmSyncStatus[] = [CrmSyncStatus.BLOCKED, CrmSyncStatus.UNCERTAIN];

/** The deal stage a session state maps to. */
const STAGE_BY_STATE: Readonly<Record<SessionState, string>> = {
  NEW: 'new',
  QUALIFYING: 'qualifying',
  AWAITING_HUMAN: 'handoff',
  HUMAN_ACTIVE: 'in_service',
  CLOSED: 'closed',
};

/** What the CRM should show for a session (contact + deal), independent of ids the CRM assigned. */
export interface CrmDesiredProjection {
  readonly contact: Readonly<Record<string, unknown>>;
  readonly deal: Readonly<Record<string, unknown>>;
}

export interface CrmSyncRow extends CarriesUnknownAttributes {
  readonly sessionId: string;
  readonly customerId: string;
  readonly status: CrmSyncStatus;
  readonly desired: CrmDesiredProjection;
  /** SHA-256 of the sorted JSON of `desired`: identical content is never re-sent. */
  readonly revision: string;
  /** The revision the CRM last acknowledged. */
  readonly syncedRevision?: string;
  /** Ids the CRM assigned; they survive every snapshot replacement. */
  readonly contactId?: string;
  readonly dealId?: string;
  /** Set before a create call, so a crash mid-create is detected instead of creating twice. */
  readonly contactCreationStartedAt?: IsoTimestamp;
  readonly dealCreationStartedAt?: IsoTimestamp;
  readonly attempts: number;
  readonly nextAttemptAt: IsoTimestamp;
  readonly lastError?: string;
  /** A worker is sending this row until then; other workers leave it alone. */
  readonly claimedUntil?: IsoTimestamp;
  /**
   * Epoch seconds after which the row is gone: the conversation's retention after its close
   * (docs/PRIVACY.md). Unset while the conversation is open.
   */
  readonly retainUntil?: number;
  /** Changes on every write; writers compare-and-set on it. */
  readonly etag: string;
  readonly updatedAt: IsoTimestamp;
}

export function crmStage(state: SessionState): string {
  return STAGE_BY_STATE[state];
}

/**
 * The contact carries the registration data the agent recorded (cadastral_data); the deal its
 * stage, segment, intent, qualification and, with stages, the agent that has the conversation.
 * Absent fields stay out of the JSON, so a session without them keeps the revision it had. What
 * the model recorded (the customer can steer it) is made spreadsheet-safe ({@link spreadsheetSafe}).
 */
export function desiredProjection(session: Session): CrmDesiredProjection {
  return {
    contact: { customerId: session.customerId, ...spreadsheetSafeValues(session.cadastralData) },
    deal: {
      stage: crmStage(session.state),
      segment: spreadsheetSafe(session.segment),
      intent: spreadsheetSafe(session.intent),
      agent: session.currentAgent,
      qualification: spreadsheetSafeValues(session.qualificationData),
      assignedTo: session.assignedTo,
    },
  };
}

/** A text that starts like a formula; `+` and `-` only when what follows is not a plain number (a phone, an amount). */
const FORMULA_START = /^(?:[=@\t\r]|[+-](?![\d\s().,/-]*$))/;

/**
 * A value as a spreadsheet can take it without running it: one that starts like a formula (`=`,
 * `@`, a tab, a carriage return, or `+`/`-` before anything but a number) gets a leading `'`,
 * which every spreadsheet reads as "this is text" (OWASP's CSV injection advice). Other values,
 * and everything that is not a string, are left as they are.
 */
export function spreadsheetSafe<T>(value: T): T | string {
  return typeof value === 'string' && FORMULA_START.test(value) ? `'${value}` : value;
}

function spreadsheetSafeValues(values: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [name, spreadsheetSafe(value)]));
}

export function projectionRevision(desired: CrmDesiredProjection): string {
  return stableDigest(desired);
}

/** Version of the JSON the CRM target receives (docs/CRM.md); bumped only for breaking changes. */
export const CRM_CONTRACT_VERSION = '1';

/** What the worker sends to the CRM target for one revision of one session (contract version 1). */
export interface CrmSyncRequest {
  readonly version: typeof CRM_CONTRACT_VERSION;
  /** `{sessionId}:{revision}`: the same key means the same content; a CRM keeps the first result. */
  readonly idempotencyKey: string;
  readonly sessionId: string;
  readonly customerId: string;
  readonly revision: string;
  /** Present once the CRM assigned them: update these instead of creating. */
  readonly contactId?: string;
  readonly dealId?: string;
  readonly contact: Readonly<Record<string, unknown>>;
  readonly deal: Readonly<Record<string, unknown>>;
}

export function crmSyncRequest(row: CrmSyncRow): CrmSyncRequest {
  return {
    version: CRM_CONTRACT_VERSION,
    idempotencyKey: `${row.sessionId}:${row.revision}`,
    sessionId: row.sessionId,
    customerId: row.customerId,
    revision: row.revision,
    ...(row.contactId === undefined ? {} : { contactId: row.contactId }),
    ...(row.dealId === undefined ? {} : { dealId: row.dealId }),
    contact: row.desired.contact,
    deal: row.desired.deal,
  };
}

/** How the worker retries a CRM that asks to try again. */
export interface CrmRetryPolicy {
  /** Sends of one row before it is BLOCKED (the claim counts each one). */
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_CRM_RETRY_POLICY: CrmRetryPolicy = { maxAttempts: 6, baseDelayMs: 30_000, maxDelayMs: 3_600_000 };

/**
 * Wait before the next attempt after `attempts` sends: exponential, capped, with "equal jitter"
 * (half fixed, half random) so rows that failed together do not come back together.
 * `random` is in [0, 1).
 */
export function crmRetryDelayMs(attempts: number, random: number, policy: CrmRetryPolicy = DEFAULT_CRM_RETRY_POLICY): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(ceiling / 2 + (ceiling / 2) * random);
}

/**
 * An operator sends a BLOCKED or UNCERTAIN row again: a fresh attempt budget, due now. For an
 * UNCERTAIN create the operator has checked the CRM and found no deal (or the CRM honours the
 * idempotency key, which the retry reuses); the creation markers go.
 */
export function retriedByOperator(row: CrmSyncRow, now: IsoTimestamp): CrmSyncRow {
  return { ...row, status: CrmSyncStatus.PENDING, attempts: 0, nextAttemptAt: now, lastError: undefined, claimedUntil: undefined, contactCreationStartedAt: undefined, dealCreationStartedAt: undefined };
}

/**
 * An operator found the contact and deal in the CRM and records their ids: the row is PENDING again
 * and the worker sends the current revision as an update of those records.
 */
export function resolvedByOperator(row: CrmSyncRow, ids: { readonly contactId: string; readonly dealId: string }, now: IsoTimestamp): CrmSyncRow {
  return { ...retriedByOperator(row, now), contactId: ids.contactId, dealId: ids.dealId };
}
