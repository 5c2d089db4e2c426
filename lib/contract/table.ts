/**
 * The single table's schema, its partitions (which IAM scopes by), and the physical resource names.
 * CDK-free: the construct, the Lambda handlers, the console and the local runtime import it alike.
 * Internal: not part of the jsii API.
 */

/** Key schema of the single table (docs/DESIGN.md#data-model). */
export const TABLE_SCHEMA = {
  partitionKey: 'PK',
  sortKey: 'SK',
  gsi1: { indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' },
  timeToLiveAttribute: 'ttl',
} as const;

/**
 * Every partition of the table, by what it holds (docs/DESIGN.md#inventory). `keys.ts` builds each
 * key from these and the construct scopes IAM with them (`dynamodb:LeadingKeys`), so a renamed
 * partition cannot leave a function without access to its own items, nor with access to another's.
 *
 * A prefix is followed by an id (`SESSION#{customerId}`); a constant partition is the whole key.
 */
export const TABLE_PARTITIONS = {
  prefixes: {
    /** Per customer: sessions, the active-session pointer and the message history. */
    session: 'SESSION#',
    /** Per customer: inbound receipts, the latest-inbound marker and the legacy debounce items ("debounce" is the seed's name). */
    inbound: 'DEBOUNCE#',
    /** Per customer: the budget counts. */
    budget: 'BUDGET#',
    /** Per customer (or operator phone): consents, and references to their items keyed elsewhere. */
    customer: 'CUSTOMER#',
    /** Per session: its CRM projection row. */
    crmSync: 'CRM_SYNC#',
    /** Per admin resource type (current items) and per resource (its versions). */
    adminResource: 'ADMIN#RESOURCE#',
    /** Per write shard: the pipeline-wide daily token count, which the orchestrator adds to and reads; and its `evaluation` line, which evaluation runs add to. */
    pipelineBudget: 'PIPELINE_BUDGET#',
    /** Per UTC day: one item per handoff with its claim and first human reply, which the admins' report reads. */
    handoffReport: 'REPORT#HANDOFF#',
    /** Per write shard: how often the agent's turns changed a conversation it serves, which an admin's inbox lists of those conversations compare. */
    agentActivity: 'AGENT_ACTIVITY#',
    /** Per prompt: the console gate's evaluation runs, which the operator function starts and the evaluator function plays. */
    evaluationRun: 'EVALUATION#RUN#',
  },
  constants: {
    /** Operational config (operators, availability, handoff texts, the deployed prompt's hash). */
    adminConfig: 'ADMIN#CONFIG',
    /** The business's WhatsApp message templates, as the template sync and Meta's status notifications left them. */
    messageTemplates: 'ADMIN#TEMPLATES',
    /** The admin audit trail. */
    adminAudit: 'ADMIN#AUDIT',
    /** The pseudonym salt of the erasure audit. */
    adminPrivacy: 'ADMIN#PRIVACY',
    /** The deployment's key that signs the operator API's page cursors. */
    cursorKey: 'ADMIN#CURSOR',
    /** The inbox's version: raised by every change of a row people's lists show, so an unchanged inbox answers `304` for one read. */
    inboxVersion: 'ADMIN#INBOX',
    /** Consent events in the seed's layout, still read and erased. */
    legacyConsent: 'ADMIN#CONSENT',
    /** Operator login grants and sessions. */
    operatorAuth: 'OPERATOR#AUTH',
    /** Out-of-portfolio demands and their source markers. */
    demands: 'DEMAND#OOP',
    /** The write-shard backfill's completion marker. */
    keyLayoutMigration: 'MIGRATION#KEY_LAYOUT',
  },
} as const;

/**
 * What the customer ids of evaluation runs start with (`eval-<run>-<n>`, keys.ts): no phone number
 * spells it, so their items lie in per-customer partitions of their own (`SESSION#eval-…`), and IAM
 * can hold the evaluator to them.
 */
export const EVALUATION_CUSTOMER_PREFIX = 'eval-';

/** Every partition of GSI1 (`GSI1PK`), as {@link TABLE_PARTITIONS} for the table. */
export const GSI1_PARTITIONS = {
  prefixes: {
    /** Sessions by state: `STATE#{state}`, or `STATE#{state}#{shard}` in the sharded key layout. */
    sessionState: 'STATE#',
    /** Agent replies by UTC day: `LLM#{yyyy-mm-dd}`, or `LLM#{yyyy-mm-dd}#{shard}`. */
    llmDay: 'LLM#',
    /** CRM projection rows by status: `CRM_SYNC#{status}`, or `CRM_SYNC#{status}#{shard}`. */
    crmSyncStatus: 'CRM_SYNC#',
    /** Sent messages Meta priced that are not agent replies, by the UTC day of the pricing status: `FEE#{yyyy-mm-dd}#{shard}` (sharded from the start). */
    feeDay: 'FEE#',
  },
  constants: {
    /** Every consent event, newest first: the admin's timeline. */
    consentTimeline: 'CONSENT#TIMELINE',
  },
} as const;

/** A partition of the table or of GSI1: a prefix's name or a constant's. */
export type TablePartition = keyof typeof TABLE_PARTITIONS.prefixes | keyof typeof TABLE_PARTITIONS.constants;
export type Gsi1Partition = keyof typeof GSI1_PARTITIONS.prefixes | keyof typeof GSI1_PARTITIONS.constants;

/** Physical resource names, derived as in the original template. */
export function physicalNames(serviceName: string, environment: string) {
  return {
    table: `${serviceName}-${environment}`,
    // "debounce" is the original design's name for the turn queue; renaming a deployed queue would replace it.
    queue: `${serviceName}-debounce-${environment}.fifo`,
    deadLetterQueue: `${serviceName}-debounce-dlq-${environment}.fifo`,
  };
}

