/**
 * The inventory of the single table: every PK/SK/GSI1 key and every entity type is built here and
 * nowhere else (docs/DESIGN.md#data-model). Repositories ask this module for keys and key prefixes; they never
 * concatenate a key themselves.
 *
 * Every segment is checked to be non-empty and free of the `#` separator, so two different
 * identities can never produce the same key (`a#b` + `c` vs `a` + `b#c`).
 */
import { createHash } from 'node:crypto';
import { EVALUATION_CUSTOMER_PREFIX, GSI1_PARTITIONS, TABLE_PARTITIONS, TABLE_SCHEMA } from '../../../../lib/contract';
import { InvalidKeySegmentError } from './dynamo-errors';
import { indexedActivityOf, isAgentOwned, type Session } from '../../domain/session';
import { isoMicros, utcDay } from '../../domain/timestamps';

export const PK = TABLE_SCHEMA.partitionKey;
export const SK = TABLE_SCHEMA.sortKey;
export const GSI1 = TABLE_SCHEMA.gsi1.indexName;
export const GSI1PK = TABLE_SCHEMA.gsi1.partitionKey;
export const GSI1SK = TABLE_SCHEMA.gsi1.sortKey;
export const TTL = TABLE_SCHEMA.timeToLiveAttribute;

/**
 * Names every item by what it is. GSI1 holds sessions, CRM projections and LLM messages side by
 * side, so readers check this attribute — never the mere presence of GSI1PK.
 */
export const ENTITY_TYPE = 'entity_type';

export const EntityType = {
  session: 'session',
  activePointer: 'active_pointer',
  message: 'message',
  demand: 'oop_demand',
  demandSource: 'oop_demand_source',
  inboundReceipt: 'inbound_receipt',
  latestInbound: 'latest_inbound',
  legacyDebounceBuffer: 'debounce_buffer',
  legacyPendingReply: 'pending_reply',
  crmSync: 'crm_sync',
  adminResource: 'admin_resource',
  adminResourceVersion: 'admin_resource_version',
  operationalConfig: 'operational_config',
  adminAudit: 'admin_audit',
  consent: 'consent',
  consentState: 'consent_state',
  loginGrant: 'operator_login_grant',
  operatorSession: 'operator_session',
  demandReference: 'customer_demand_reference',
  authReference: 'customer_auth_reference',
  crmSyncReference: 'customer_crm_sync_reference',
  privacySalt: 'privacy_salt',
  cursorSigningKey: 'cursor_signing_key',
  inboxVersion: 'inbox_version',
  agentActivity: 'agent_activity',
  customerBudget: 'customer_budget',
  pipelineBudget: 'pipeline_budget',
  messageTemplate: 'message_template',
  operatorNote: 'operator_note',
  handoffReport: 'handoff_report',
  turnCheckpoint: 'turn_checkpoint',
  evaluationRun: 'evaluation_run',
} as const;
export type EntityType = (typeof EntityType)[keyof typeof EntityType];

// Type aliases (not interfaces) so a key is assignable where the kit expects a record of strings.
export type TableKey = { readonly [PK]: string; readonly [SK]: string };
export type Gsi1Key = { readonly [GSI1PK]: string; readonly [GSI1SK]: string };

/** Attributes that are keys, not entity data (never carried as unknown attributes). */
export const KEY_ATTRIBUTES: readonly string[] = [PK, SK, GSI1PK, GSI1SK];

function segment(name: string, value: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.includes('#')) throw new InvalidKeySegmentError(name, String(value));
  return value;
}

const tableKey = (pk: string, sk: string): TableKey => ({ [PK]: pk, [SK]: sk });
const gsi1Key = (pk: string, sk: string): Gsi1Key => ({ [GSI1PK]: pk, [GSI1SK]: sk });
const { prefixes: PARTITION_PREFIX, constants: PARTITION } = TABLE_PARTITIONS;
const { prefixes: GSI1_PARTITION_PREFIX, constants: GSI1_PARTITION } = GSI1_PARTITIONS;
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const versionSegment = (version: number) => {
  if (!Number.isSafeInteger(version) || version < 1 || version > 999_999) throw new InvalidKeySegmentError('version', String(version));
  return String(version).padStart(6, '0');
};

// ---- Write shards ------------------------------------------------------------------------------------

/**
 * How many partitions a key that every customer writes is spread over (docs/DESIGN.md#write-shards).
 * A customer always lands on the same shard (a stable hash of the customer id), so one customer's
 * items stay together and every reader fans out over exactly these shards.
 *
 * Sized by the partition-heat model (`npm run bench:heat`): at 1,000 inbound messages/s the hottest
 * shard stays below half of a partition's ~1,000 WCU/s. To raise it, never change this number in
 * place (readers would miss the items of the old shards): add the new count as a second layout,
 * write the new shards, re-run the backfill under that layout, then switch readers — the same phases
 * as the move from the seed layout.
 */
export const WRITE_SHARDS = 8;

/** The shard of a customer: the first 32 bits of SHA-256 of its id, modulo {@link WRITE_SHARDS}. */
export const writeShardOf = (customerId: string): number => createHash('sha256').update(segment('phone', customerId), 'utf8').digest().readUInt32BE(0) % WRITE_SHARDS;
export const allWriteShards = (): readonly number[] => Array.from({ length: WRITE_SHARDS }, (_, shard) => shard);
const shardSegment = (shard: number) => {
  if (!Number.isInteger(shard) || shard < 0 || shard >= WRITE_SHARDS) throw new InvalidKeySegmentError('write shard', String(shard));
  return String(shard);
};

// ---- Sessions, pointer and messages: one partition per customer ----------------------------------

/**
 * The customer an evaluation run plays a scenario as (docs/EVALUATION.md): `eval-<run>-<n>`, which
 * no phone number spells and which names a fresh run id, so each scenario's items live in
 * partitions of their own and a run never reads or writes a customer's conversation.
 */
export const evaluationCustomerId = (runId: string, scenario: number) => `${EVALUATION_CUSTOMER_PREFIX}${segment('run id', runId)}-${scenario}`;

export const sessionPartition = (customerId: string) => `${PARTITION_PREFIX.session}${segment('phone', customerId)}`;

export const sessionKey = (customerId: string, sessionId: string) => tableKey(sessionPartition(customerId), `SESSION#${segment('session id', sessionId)}`);
export const sessionStatePartition = (state: string) => `${GSI1_PARTITION_PREFIX.sessionState}${segment('state', state)}`;
export const sessionStateIndexKey = (state: string, createdAt: string) => gsi1Key(sessionStatePartition(state), isoMicros(createdAt));
/** The sharded layout of the inbox index: `STATE#{state}#{shard of the customer}` (see {@link WRITE_SHARDS}). */
export const shardedSessionStatePartition = (state: string, shard: number) => `${sessionStatePartition(state)}#${shardSegment(shard)}`;
export const shardedSessionStateIndexKey = (state: string, createdAt: string, customerId: string) =>
  gsi1Key(shardedSessionStatePartition(state, writeShardOf(customerId)), isoMicros(createdAt));

/**
 * A session's GSI1 key: its state's partition (sharded or not, see {@link WRITE_SHARDS}) and, as sort
 * key, its creation — except in the agent's states (NEW, QUALIFYING), where it is the session's
 * last activity to within a quarter of an hour ({@link indexedActivityOf}): there the list is what
 * the idle sweep reads, longest idle first, with a Query bounded by {@link idleSessionsUntil}
 * instead of a Scan. The turn rewrites the session with every answer, so the key moves at no extra
 * request. Sessions written before the sort key moved carry their creation until their next write:
 * earlier than their activity, so the sweep sees them too soon, never too late, and checks the
 * activity itself before closing.
 */
export const sessionIndexKey = (session: Pick<Session, 'state' | 'createdAt' | 'updatedAt' | 'activityIndexedAt' | 'customerId'>, sharded: boolean) => {
  const sortTimestamp = isAgentOwned(session.state) ? indexedActivityOf(session) : session.createdAt;
  return sharded ? shardedSessionStateIndexKey(session.state, sortTimestamp, session.customerId) : sessionStateIndexKey(session.state, sortTimestamp);
};
/** Upper bound of the sort keys of agent-owned sessions whose last activity is at or before `idleSince`. */
export const idleSessionsUntil = (idleSince: string) => isoMicros(idleSince);

export const activePointerKey = (customerId: string) => tableKey(sessionPartition(customerId), 'ACTIVE');

export const messageKey = (customerId: string, timestamp: string, messageId: string) =>
  tableKey(sessionPartition(customerId), `MSG#${isoMicros(timestamp)}#${segment('message id', messageId)}`);
/** The key of a stored message from its opaque reference (see MessageRepository.refFor). */
export const messageKeyFromRef = (ref: { readonly customerId: string; readonly sortKey: string }) => {
  // Only a key messageKey would build: `MSG#{timestamp as written}#{message id}`, nothing else of the partition.
  const [prefix, timestamp, ...id] = ref.sortKey.split('#');
  const key = prefix === 'MSG' && id.length === 1 && isWrittenTimestamp(timestamp) ? messageKey(ref.customerId, timestamp, id[0]) : undefined;
  if (key?.[SK] !== ref.sortKey) throw new InvalidKeySegmentError('message reference', ref.sortKey);
  return key;
};

function isWrittenTimestamp(value: string | undefined): value is string {
  try {
    return value !== undefined && isoMicros(value) === value;
  } catch {
    return false;
  }
}
/** Partition and sort-key prefix that select a customer's whole message history. */
export const messageHistoryPrefix = (customerId: string) => ({ partition: sessionPartition(customerId), sortKeyPrefix: 'MSG#' });

/**
 * Operators' notes on the conversation, in the customer's partition beside the history but under
 * their own prefix: the history Queries (and so the agent) never see them, the erasure and the
 * export find them with the partition.
 */
const NOTE_PREFIX = 'NOTE#';
export const operatorNoteKey = (customerId: string, createdAt: string, noteId: string) =>
  tableKey(sessionPartition(customerId), `${NOTE_PREFIX}${isoMicros(createdAt)}#${segment('note id', noteId)}`);
export const operatorNotePrefix = (customerId: string) => ({ partition: sessionPartition(customerId), sortKeyPrefix: NOTE_PREFIX });

/**
 * Agent-written messages are also indexed by UTC day (GSI1PK `LLM#{yyyy-mm-dd}`, GSI1SK
 * `{timestamp}#{message id}`), so "the most recent LLM messages" is a newest-first Query over the
 * last few day buckets instead of a Scan. One bucket per day is a single GSI partition; at WhatsApp
 * conversation rates that stays far below a partition's write limit.
 */
export const llmDayPartition = (day: string | Date) => `${GSI1_PARTITION_PREFIX.llmDay}${utcDay(day)}`;
export const llmMessageIndexKey = (timestamp: string, messageId: string) =>
  gsi1Key(llmDayPartition(timestamp), `${isoMicros(timestamp)}#${segment('message id', messageId)}`);
/** The sharded layout of the day index: `LLM#{yyyy-mm-dd}#{shard of the customer}`, same sort key. */
export const shardedLlmDayPartition = (day: string | Date, shard: number) => `${llmDayPartition(day)}#${shardSegment(shard)}`;
export const shardedLlmMessageIndexKey = (timestamp: string, messageId: string, customerId: string) =>
  gsi1Key(shardedLlmDayPartition(timestamp, writeShardOf(customerId)), llmMessageIndexKey(timestamp, messageId)[GSI1SK]);

/**
 * A sent message that is not an agent reply (an operator's reply, a template, a notice) joins GSI1
 * by the UTC day Meta priced it, `FEE#{yyyy-mm-dd}#{shard of the customer}` / its own sort key, on
 * the status write that records the pricing, so a day's fees are Queries rather than a Scan. Agent
 * replies keep their `LLM#` key and are counted from it. Sharded from the start: there is no seed
 * partition to migrate.
 */
export const feeDayPartition = (day: string | Date, shard: number) => `${GSI1_PARTITION_PREFIX.feeDay}${utcDay(day)}#${shardSegment(shard)}`;
export const feeIndexKey = (pricedAt: string, customerId: string, messageSortKey: string) => gsi1Key(feeDayPartition(pricedAt, writeShardOf(customerId)), messageSortKey);

// ---- Reports --------------------------------------------------------------------------------------

/**
 * One item per handoff in its UTC day's partition, `REPORT#HANDOFF#{yyyy-mm-dd}` / `{handoff
 * time}#{session id}`, written by the writes that hand the conversation over, claim it and send
 * its first human reply: a day's report is one Query. Not sharded: people, not customers, set the
 * rate (a claim a second is far below a partition's write limit). The session id is the only
 * identity it holds, random and naming no one once the customer's partition is erased.
 */
export const handoffReportPartition = (day: string | Date) => `${PARTITION_PREFIX.handoffReport}${utcDay(day)}`;
export const handoffReportKey = (requestedAt: string, sessionId: string) =>
  tableKey(handoffReportPartition(requestedAt), `${isoMicros(requestedAt)}#${segment('session id', sessionId)}`);

// ---- Out-of-portfolio demands --------------------------------------------------------------------

const DEMAND_PARTITION = PARTITION.demands;
export const demandKey = (recordedAt: string, demandId: string) => tableKey(DEMAND_PARTITION, `DEMAND#${isoMicros(recordedAt)}#${segment('demand id', demandId)}`);
/** Marker that makes a demand unique per source message (written in the same transaction). */
export const demandSourceKey = (sourceMessageId: string) => tableKey(DEMAND_PARTITION, `SOURCE#${sha256(sourceMessageId)}`);
export const demandListPrefix = () => ({ partition: DEMAND_PARTITION, sortKeyPrefix: 'DEMAND#' });

// ---- Inbound receipts and the per-customer latest marker ------------------------------------------

export const inboundPartition = (customerId: string) => `${PARTITION_PREFIX.inbound}${segment('phone', customerId)}`;
const RECEIPT_PREFIX = 'INBOUND#';
export const inboundReceiptKey = (customerId: string, messageId: string) => tableKey(inboundPartition(customerId), `${RECEIPT_PREFIX}${sha256(messageId)}`);
/** Partition and sort-key prefix that select a customer's receipts (they live 7 days). */
export const inboundReceiptPrefix = (customerId: string) => ({ partition: inboundPartition(customerId), sortKeyPrefix: RECEIPT_PREFIX });
/** A turn's model rounds and consumer tool calls, by the turn's newest message. */
export const turnCheckpointKey = (customerId: string, turnId: string) => tableKey(inboundPartition(customerId), `TURN#${sha256(turnId)}`);
export const latestInboundKey = (customerId: string) => tableKey(inboundPartition(customerId), 'LATEST_INBOUND');
export const legacyBufferKey = (customerId: string) => tableKey(inboundPartition(customerId), 'BUFFER');
export const legacyPendingReplyKey = (customerId: string) => tableKey(inboundPartition(customerId), 'PENDING_REPLY');

// ---- Per-customer budgets ---------------------------------------------------------------------------

/**
 * One item per customer and UTC day holds the day's token count and the turn counts of its hours
 * and minutes, so admitting a turn is one conditional update. A partition of its own: only the
 * orchestrator counts budgets, and its IAM condition names this prefix.
 */
export const budgetPartition = (customerId: string) => `${PARTITION_PREFIX.budget}${segment('phone', customerId)}`;
export const customerBudgetKey = (customerId: string, at: string | Date) => tableKey(budgetPartition(customerId), `DAY#${utcDay(at)}`);

/**
 * The pipeline-wide day count of model tokens, on {@link WRITE_SHARDS} partitions: every turn adds
 * to its customer's shard (at 1,000 turns/s, 125 writes/s each), and the day's total is the
 * shards' sum, read with one BatchGetItem ({@link pipelineBudgetKeys}). A partition per shard, the
 * day in the sort key; each item expires a day after its day.
 */
const pipelineBudgetShardKey = (shard: number, at: string | Date) => tableKey(`${PARTITION_PREFIX.pipelineBudget}${shardSegment(shard)}`, `DAY#${utcDay(at)}`);
export const pipelineBudgetKey = (customerId: string, at: string | Date) => pipelineBudgetShardKey(writeShardOf(customerId), at);
/** The day's line of the evaluation runs (prompt-gate.ts): counted in the day's total, kept apart from the customers' turns. */
export const pipelineBudgetEvaluationKey = (at: string | Date) => tableKey(`${PARTITION_PREFIX.pipelineBudget}evaluation`, `DAY#${utcDay(at)}`);
/** Every shard's item of the day of `at`, and the evaluation line's. */
export const pipelineBudgetKeys = (at: string | Date): TableKey[] => [...allWriteShards().map((shard) => pipelineBudgetShardKey(shard, at)), pipelineBudgetEvaluationKey(at)];

// ---- CRM projection -------------------------------------------------------------------------------

export const crmSyncKey = (sessionId: string) => tableKey(`${PARTITION_PREFIX.crmSync}${segment('session id', sessionId)}`, 'META');
export const crmSyncStatusPartition = (status: string) => `${GSI1_PARTITION_PREFIX.crmSyncStatus}${segment('status', status)}`;
export const crmSyncStatusIndexKey = (status: string, nextAttemptAt: string, sessionId: string) =>
  gsi1Key(crmSyncStatusPartition(status), `${isoMicros(nextAttemptAt)}#${segment('session id', sessionId)}`);
/** The sharded layout of the CRM projection's index: `CRM_SYNC#{status}#{shard of the customer}`, same sort key. */
export const shardedCrmSyncStatusPartition = (status: string, shard: number) => `${crmSyncStatusPartition(status)}#${shardSegment(shard)}`;
export const shardedCrmSyncStatusIndexKey = (status: string, nextAttemptAt: string, sessionId: string, customerId: string) =>
  gsi1Key(shardedCrmSyncStatusPartition(status, writeShardOf(customerId)), crmSyncStatusIndexKey(status, nextAttemptAt, sessionId)[GSI1SK]);
/** Upper bound of the status index's sort keys of rows due at `now` (U+FFFF sorts after every id character). */
export const crmSyncDueUntil = (now: string) => `${isoMicros(now)}#\uffff`;

// ---- Administration --------------------------------------------------------------------------------

export const adminResourcePartition = (resourceType: string) => `${PARTITION_PREFIX.adminResource}${segment('resource type', resourceType)}`;
export const adminResourceKey = (resourceType: string, resourceId: string) =>
  tableKey(adminResourcePartition(resourceType), `RESOURCE#${segment('resource id', resourceId)}`);
export const adminResourceVersionPartition = (resourceType: string, resourceId: string) =>
  `${adminResourcePartition(resourceType)}#${segment('resource id', resourceId)}`;
export const adminResourceVersionKey = (resourceType: string, resourceId: string, version: number) =>
  tableKey(adminResourceVersionPartition(resourceType, resourceId), `VERSION#${versionSegment(version)}`);
export const adminResourceListPrefix = (resourceType: string) => ({ partition: adminResourcePartition(resourceType), sortKeyPrefix: 'RESOURCE#' });
export const adminResourceVersionListPrefix = (resourceType: string, resourceId: string) => ({
  partition: adminResourceVersionPartition(resourceType, resourceId),
  sortKeyPrefix: 'VERSION#',
});

/** The gate's runs of a prompt's drafts, newest last (run ids start with their start time). */
export const evaluationRunPartition = (promptId: string) => `${PARTITION_PREFIX.evaluationRun}${segment('resource id', promptId)}`;
export const evaluationRunKey = (promptId: string, runId: string) => tableKey(evaluationRunPartition(promptId), `RUN#${segment('run id', runId)}`);
export const evaluationRunListPrefix = (promptId: string) => ({ partition: evaluationRunPartition(promptId), sortKeyPrefix: 'RUN#' });

const CONFIG_PARTITION = PARTITION.adminConfig;
export const operationalConfigKey = (key: string) => tableKey(CONFIG_PARTITION, `CONFIG#${segment('config key', key)}`);

/** One item per template translation: `TEMPLATE#{name}#{language}`, listed in name order. */
const TEMPLATE_PREFIX = 'TEMPLATE#';
export const messageTemplateKey = (name: string, language: string) =>
  tableKey(PARTITION.messageTemplates, `${TEMPLATE_PREFIX}${segment('template name', name)}#${segment('template language', language)}`);
export const messageTemplateListPrefix = () => ({ partition: PARTITION.messageTemplates, sortKeyPrefix: TEMPLATE_PREFIX });

const AUDIT_PARTITION = PARTITION.adminAudit;
export const adminAuditKey = (occurredAt: string, eventId: string) => tableKey(AUDIT_PARTITION, `AUDIT#${isoMicros(occurredAt)}#${segment('event id', eventId)}`);
export const adminAuditListPrefix = () => ({ partition: AUDIT_PARTITION, sortKeyPrefix: 'AUDIT#' });

/**
 * The seed's consent layout: one partition keyed by time, so one customer's events can only be found
 * by reading everyone's. Still read (and erased); new events go to the customer's partition below.
 */
const LEGACY_CONSENT_PARTITION = PARTITION.legacyConsent;
export const legacyConsentKey = (recordedAt: string, customerId: string, consentId: string) =>
  tableKey(LEGACY_CONSENT_PARTITION, `CONSENT#${isoMicros(recordedAt)}#${segment('phone', customerId)}#${segment('consent id', consentId)}`);
export const legacyConsentListPrefix = () => ({ partition: LEGACY_CONSENT_PARTITION, sortKeyPrefix: 'CONSENT#' });

// ---- The customer's own partition: consents and references to items keyed elsewhere ---------------

/**
 * `CUSTOMER#{customerId}` holds what privacy needs per customer: consent events (one Query reads a
 * customer's history) and references to the customer's items whose keys do not name the customer
 * (demands, CRM projection rows, operator login grants and sessions), written with those items, so
 * an erasure or an export finds everything by key.
 */
export const customerPartition = (customerId: string) => `${PARTITION_PREFIX.customer}${segment('phone', customerId)}`;
export const consentKey = (customerId: string, recordedAt: string, consentId: string) =>
  tableKey(customerPartition(customerId), `CONSENT#${isoMicros(recordedAt)}#${segment('consent id', consentId)}`);
/**
 * The customer's current consent for one purpose: a copy of the newest event, written in the event's
 * transaction, so a turn reads it by key in a batch it already makes instead of querying the events.
 * Its sort key does not begin with `CONSENT#`: the event Queries never see it.
 */
export const consentStateKey = (customerId: string, purpose: string) => tableKey(customerPartition(customerId), `CONSENT_STATE#${segment('purpose', purpose)}`);
/** Every consent event on GSI1, newest first: the admin's timeline. Consent events are rare, so one partition is enough. */
export const CONSENT_TIMELINE_PARTITION = GSI1_PARTITION.consentTimeline;
export const consentTimelineIndexKey = (customerId: string, recordedAt: string, consentId: string) =>
  gsi1Key(CONSENT_TIMELINE_PARTITION, `${isoMicros(recordedAt)}#${segment('phone', customerId)}#${segment('consent id', consentId)}`);
export const customerDemandReferenceKey = (customerId: string, demandId: string) => tableKey(customerPartition(customerId), `DEMAND#${segment('demand id', demandId)}`);
/** Names the CRM projection row of one of the customer's sessions, which lives on after retention removed the session. */
export const customerCrmSyncReferenceKey = (customerId: string, sessionId: string) =>
  tableKey(customerPartition(customerId), `CRM_SYNC#${segment('session id', sessionId)}`);
const AUTH_REFERENCE_PREFIX = 'AUTH#';
export const customerAuthReferenceKey = (operatorPhone: string, tokenHash: string) => tableKey(customerPartition(operatorPhone), `${AUTH_REFERENCE_PREFIX}${segment('token hash', tokenHash)}`);
/** Partition and sort-key prefix that select an operator's sign-in references: how their sessions are found to end them. */
export const customerAuthReferencePrefix = (operatorPhone: string) => ({ partition: customerPartition(operatorPhone), sortKeyPrefix: AUTH_REFERENCE_PREFIX });

/** The per-deployment secret that turns a customer id into the pseudonym the erasure audit keeps. */
export const privacySaltKey = () => tableKey(PARTITION.adminPrivacy, 'SALT');

/** The per-deployment key that signs the page cursors the operator API hands out (dynamo-kit.ts). */
export const cursorSigningKey = () => tableKey(PARTITION.cursorKey, 'KEY');

/** The counter the inbox's conditional requests compare (inbox-version.ts). */
export const inboxVersionKey = () => tableKey(PARTITION.inboxVersion, 'VERSION');

/**
 * How often the agent's turns changed a conversation it serves, on {@link WRITE_SHARDS} partitions:
 * a turn adds one on its customer's shard (at 1,000 turns/s, 125 writes/s each), and an admin's list
 * of the agent's conversations compares the shards' sum, read with the inbox's version in one
 * BatchGetItem ({@link agentActivityKeys}).
 */
const agentActivityShardKey = (shard: number) => tableKey(`${PARTITION_PREFIX.agentActivity}${shardSegment(shard)}`, 'VERSION');
export const agentActivityKey = (customerId: string) => agentActivityShardKey(writeShardOf(customerId));
export const agentActivityKeys = (): TableKey[] => allWriteShards().map(agentActivityShardKey);

// ---- Operator authentication ------------------------------------------------------------------------

const OPERATOR_AUTH_PARTITION = PARTITION.operatorAuth;
export const loginGrantKey = (tokenHash: string) => tableKey(OPERATOR_AUTH_PARTITION, `LOGIN#${segment('token hash', tokenHash)}`);
export const operatorSessionKey = (tokenHash: string) => tableKey(OPERATOR_AUTH_PARTITION, `SESSION#${segment('token hash', tokenHash)}`);
/** Whether `key` is an operator's login grant or session. */
export const isOperatorAuthKey = (key: Readonly<Record<string, string>>) => key[PK] === OPERATOR_AUTH_PARTITION;

// ---- Key-layout migration --------------------------------------------------------------------------

/** The marker the shard backfill writes when every item of the seed layout carries its sharded key. */
export const writeShardBackfillKey = () => tableKey(PARTITION.keyLayoutMigration, `WRITE_SHARDS#${WRITE_SHARDS}`);
