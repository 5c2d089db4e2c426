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

/** Statuses an operator has to look at. */
export const CRM_PROBLEM_STATUSES: readonly CrmSyncStatus[] = [CrmSyncStatus.PENDING, CrmSyncStatus.BLOCKED, CrmSyncStatus.UNCERTAIN];

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
  /** Changes on every write; writers compare-and-set on it. */
  readonly etag: string;
  readonly updatedAt: IsoTimestamp;
}

export function crmStage(state: SessionState): string {
  return STAGE_BY_STATE[state];
}

export function desiredProjection(session: Session): CrmDesiredProjection {
  return {
    contact: { customerId: session.customerId, ...session.cadastralData },
    deal: {
      stage: crmStage(session.state),
      segment: session.segment,
      intent: session.intent,
      qualification: session.qualificationData,
      assignedTo: session.assignedTo,
    },
  };
}

export function projectionRevision(desired: CrmDesiredProjection): string {
  return stableDigest(desired);
}
