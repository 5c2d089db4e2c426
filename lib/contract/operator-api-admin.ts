/**
 * The admins' calls of the operator API (docs/OPERATOR-API.md): prompts and settings, the audit,
 * demands and consent, the CRM projection, dead letters and one customer's data. Types only;
 * `operator-api.ts` re-exports them and declares their routes.
 * Internal: not part of the jsii API.
 */

import type { Timestamp, JsonObject, StoredItem, ConversationState } from './operator-api-basics';

// ---- Admin: prompts and settings -----------------------------------------------------------------------

/** One version of a prompt; the current prompt is its newest version. */
export interface PromptVersion {
  readonly resourceType: string;
  readonly resourceId: string;
  readonly version: number;
  readonly content: string;
  readonly description?: string;
  readonly active: boolean;
  readonly author: string;
  readonly createdAt: Timestamp;
  /** The version this one restored, when it came from a rollback. */
  readonly rolledBackFrom?: number;
}

export interface PromptAnswer {
  readonly prompt: PromptVersion;
}

export interface PromptEdit {
  /** 1–40,000 characters, not blank. */
  readonly content: string;
  /** The version edited; 0 creates the prompt. */
  readonly expectedVersion: number;
  readonly description?: string;
  /** Needed when the deployment has a scenario suite (edits then go through an evaluated draft): the reason, recorded in the audit. */
  readonly overrideReason?: string;
}

export interface PromptRollback {
  readonly targetVersion: number;
}

/** A setting; one never written has `value: null` and `version: 0`. */
export interface ConfigSetting {
  readonly key: string;
  readonly value: unknown;
  readonly version: number;
  readonly author?: string;
  readonly updatedAt?: Timestamp;
}

export interface ConfigAnswer {
  readonly config: ConfigSetting;
}

export interface ConfigEdit {
  readonly value: unknown;
  /** The version read; 0: the setting must not exist yet. */
  readonly expectedVersion: number;
}

// ---- Admin: lists --------------------------------------------------------------------------------------

/** What an operator or admin did. Customers are named by pseudonym only (docs/PRIVACY.md). */
export interface AuditEvent {
  readonly eventId: string;
  readonly occurredAt: Timestamp;
  /** The operator's phone. */
  readonly author: string;
  readonly action: string;
  readonly resourceType?: string;
  /** For a `conversation` or `customer` resource, the customer's pseudonym. */
  readonly resourceId?: string;
  /** `customer`: the pseudonym of the customer concerned when the resource is something else (a CRM row). */
  readonly details?: JsonObject;
}

/** Something a customer asked for outside the portfolio, as the agent recorded it. */
export interface Demand {
  readonly demandId: string;
  readonly sourceMessageId: string;
  readonly customerId: string;
  readonly sessionId?: string;
  readonly requestedService: string;
  readonly originalMessage: string;
  readonly estimatedSegment?: string;
  readonly businessPhoneNumberId?: string;
  readonly recordedAt: Timestamp;
}

export interface ConsentEvent {
  readonly consentId: string;
  readonly customerId: string;
  readonly recordedAt: Timestamp;
  readonly purpose: string;
  readonly granted: boolean;
  readonly source: string;
  readonly sessionId?: string;
  readonly termsVersion?: string;
  readonly evidenceMessageId?: string;
}

// ---- Admin: CRM ---------------------------------------------------------------------------------------

export type CrmSyncStatus = 'PENDING' | 'SYNCED' | 'BLOCKED' | 'UNCERTAIN';

/** A session's CRM projection row (docs/CRM.md). */
export interface CrmSyncRow {
  readonly sessionId: string;
  readonly customerId: string;
  readonly status: CrmSyncStatus;
  readonly desired: { readonly contact: JsonObject; readonly deal: JsonObject };
  readonly revision: string;
  readonly syncedRevision?: string;
  readonly contactId?: string;
  readonly dealId?: string;
  readonly contactCreationStartedAt?: Timestamp;
  readonly dealCreationStartedAt?: Timestamp;
  readonly attempts: number;
  readonly nextAttemptAt: Timestamp;
  readonly lastError?: string;
  readonly claimedUntil?: Timestamp;
  readonly etag: string;
  readonly updatedAt: Timestamp;
}

export interface CrmProblems {
  /** Rows blocked or uncertain, per status; `oldest` waits longest. */
  readonly problems: readonly { readonly status: CrmSyncStatus; readonly count: number; readonly oldest?: CrmSyncRow }[];
}

export interface CrmSyncAnswer {
  readonly crmSync: CrmSyncRow;
}

export interface CrmResolution {
  /** The ids found in the CRM for an uncertain create (non-blank, at most 256 characters). */
  readonly contactId: string;
  readonly dealId: string;
}

// ---- Admin: dead letters ------------------------------------------------------------------------------

export interface ReplyRecord {
  readonly messageId: string;
  readonly status: string;
  readonly at: Timestamp;
  readonly sentAt?: Timestamp;
}

/** One dead-lettered turn with what the table knows about it and what a redrive would do (docs/RELIABILITY.md). */
export interface DeadLetterInspection {
  readonly recordId: string;
  readonly receiveCount: number;
  readonly queuedAt?: Timestamp;
  readonly customer?: string;
  readonly messageId?: string;
  readonly receipt?: StoredItem;
  readonly latest?: StoredItem;
  readonly outbox?: ReplyRecord & { readonly replyTo: string };
  readonly session?: { readonly sessionId: string; readonly state: ConversationState; readonly updatedAt: Timestamp };
  readonly replies: readonly ReplyRecord[];
  readonly parked: readonly { readonly messageId: string; readonly historyTimestamp?: Timestamp }[];
  readonly verdict: 'drop' | 'redrive' | 'complete' | 'confirm';
  /** Why, in English (what `npm run redrive` prints). */
  readonly reasons: readonly string[];
  /** The same as reason codes with the facts they name, for the console to word in its language. */
  readonly explanation: readonly DeadLetterReason[];
  readonly onConfirm?: 'drop' | 'redrive';
}

/** One part of a verdict's explanation: `code` (see `reasonText` in dead-letter-verdict.ts) and the facts it names. */
export interface DeadLetterReason {
  readonly code: string;
  readonly [fact: string]: string | number;
}

/** A dead-lettered record as the screen shows it: the inspection without the stored items it was decided from. */
export type DeadLetterCard = Pick<DeadLetterInspection, 'recordId' | 'receiveCount' | 'queuedAt' | 'customer' | 'messageId' | 'session' | 'replies' | 'parked' | 'verdict' | 'reasons' | 'explanation' | 'onConfirm'>;

/**
 * The last reading of the dead-letter queue. Reading SQS counts as a delivery attempt, so the
 * queue is read only on a refresh, a dry run or a redrive (or the very first visit).
 */
export interface DeadLetters {
  readonly takenAt: Timestamp;
  /** The admin who read the queue. */
  readonly takenBy: string;
  /** Records the reading saw (more than `items` past the 100 cards kept). */
  readonly count: number;
  /** In the queue's FIFO order. */
  readonly items: readonly DeadLetterCard[];
}

/** An admin the deployment names; `name` from the `operators` setting when it gives one. */
export interface DeploymentAdmin {
  readonly phone: string;
  readonly role: 'admin';
  readonly name?: string;
}

export interface RedriveRequest {
  /** `true`: inspect only, nothing changes. */
  readonly dryRun: boolean;
}

export interface RedriveAnswer {
  readonly outcomes: readonly { readonly inspection: DeadLetterInspection; readonly action: 'dropped' | 'redriven' | 'held' | 'inspected' }[];
}

// ---- Admin: one customer's data -----------------------------------------------------------------------

export interface CustomerExport {
  readonly format: 'customer-export/1';
  readonly customerId: string;
  readonly exportedAt: Timestamp;
  /** Every item stored about the customer, by kind. */
  readonly records: { readonly [kind: string]: readonly JsonObject[] };
}

export interface ErasureRequest {
  /** Repeats the customer id being erased. */
  readonly confirm: string;
}

export interface ErasureAnswer {
  readonly erasure: {
    /** What the audit calls the customer from now on. */
    readonly customerPseudonym: string;
    readonly deleted: { readonly [kind: string]: number };
    readonly passes: number;
    /** The customer's turns deleted from the dead-letter queue. */
    readonly deadLettersRemoved?: number;
  };
}

/**
 * What the pipeline did for one turn (`GET /api/conversations/:customerId/turns/:messageId/trace`,
 * admins only, `messageId` the message a reply answers): the gates it asked, each model round trip
 * and each of the business's tool calls. Names, figures and outcomes only, never a text.
 */
export interface TurnTraceView {
  readonly at: Timestamp;
  /** Each gate asked, in order: `passed` let the turn through, `decided` answered or ended it. */
  readonly gates: readonly { readonly gate: string; readonly verdict: 'passed' | 'decided' }[];
  readonly stage?: string;
  readonly stopReason?: string;
  readonly modelCalls: readonly {
    readonly inputTokens: number;
    readonly outputTokens: number;
    readonly cacheReadInputTokens?: number;
    readonly cacheWriteInputTokens?: number;
    readonly latencyMs: number;
    readonly stopReason: string;
    /** Replayed from the turn's checkpoint on a retry: the model was not asked again. */
    readonly replayed?: boolean;
  }[];
  readonly toolCalls: readonly {
    readonly name: string;
    readonly sideEffects: boolean;
    readonly outcome?: string;
    readonly durationMs?: number;
    readonly replayed?: boolean;
    readonly recalled?: boolean;
  }[];
}
