import { EVALUATION_CUSTOMER_PREFIX, GSI1_PARTITIONS, type Gsi1Partition, TABLE_PARTITIONS, type TablePartition } from '../contract';

export * from './service-actions';

/**
 * Every IAM action the pipeline grants, from one module (the other services' in service-actions.ts,
 * re-exported here), and the one table of what each role may do in which partition of the table.
 * Derived from what the runtime calls (the repositories in lambda/core/adapters/dynamodb/ and the use
 * cases that call them), so a change in what a function calls is a change here. `pipeline-grants.ts`
 * turns it into statements. Internal: not part of the jsii API.
 */

// ---- The table ---------------------------------------------------------------------------------------

/**
 * The DynamoDB actions a role is granted on items. DynamoDB authorises TransactWriteItems per contained action
 * (Put, Update, Delete, ConditionCheck, each on its own partition key): there is no transaction action.
 * BatchGetItem and BatchWriteItem are their own actions, and `dynamodb:LeadingKeys` then holds every partition key
 * of the batch (hence `ForAllValues`). BatchWriteItem allows puts as well as deletes, and IAM cannot tell them
 * apart: no role is granted it (the erasure deletes item by item, with DeleteItem).
 */
export const TABLE_ACTIONS = {
  get: 'dynamodb:GetItem',
  batchGet: 'dynamodb:BatchGetItem',
  query: 'dynamodb:Query',
  conditionCheck: 'dynamodb:ConditionCheckItem',
  put: 'dynamodb:PutItem',
  update: 'dynamodb:UpdateItem',
  delete: 'dynamodb:DeleteItem',
  batchWrite: 'dynamodb:BatchWriteItem',
} as const;
export type TableAction = (typeof TABLE_ACTIONS)[keyof typeof TABLE_ACTIONS];

/** The actions that create, change or remove items; the rest only read. */
export const TABLE_WRITE_ACTIONS: readonly TableAction[] = [TABLE_ACTIONS.put, TABLE_ACTIONS.update, TABLE_ACTIONS.delete, TABLE_ACTIONS.batchWrite];

/** What the deployment turns on: some partitions are read or written only with it. */
export interface PipelineFeatures {
  /** `adminPhoneNumbers`: the orchestrator issues sign-in grants. */
  readonly operatorPlane: boolean;
  /** `crmSync`: every session write carries the CRM projection row. */
  readonly crmSync: boolean;
  /** `KeyLayout.MIGRATING`: the GSI1 lists look up the write-shard backfill's marker. */
  readonly keyLayoutMigration: boolean;
  /** `pipelineBudget`: the orchestrator counts every turn's tokens in the day's shards and reads their sum. */
  readonly pipelineBudget: boolean;
  /** `messageTemplates.reengagement`: the idle sweeper sends the template to customers who went quiet and records it. */
  readonly reengagement: boolean;
  /** `media` on: the orchestrator keys attachments by the customer's salted pseudonym, creating the salt when it stores the deployment's first one. */
  readonly media: boolean;
}

type Feature = keyof PipelineFeatures;

/**
 * The features the grants of an imported pipeline are built with, which it cannot know. Only the
 * commands' roles (`redrive`, `customerData`) are granted there, and they reach the same
 * partitions whatever is on: test/construct/imported-pipeline.test.ts holds them to it.
 */
export const COMMAND_FEATURES: PipelineFeatures = { operatorPlane: false, crmSync: false, keyLayoutMigration: false, pipelineBudget: false, reengagement: false, media: false };

/** An action (or an index partition) a role has only while `with` is on. */
interface Gated<T> {
  readonly with: Feature;
  readonly grant: T;
}

/** The partitions that hold one customer's items, which a role may be granted for the customers of evaluation runs only. */
type CustomerPartition = 'session' | 'inbound' | 'customer';

/** A customer partition of the evaluation key space (`SESSION#eval-…`: keys.ts `evaluationCustomerId`). */
export type EvaluationPartition = `evaluation ${CustomerPartition}`;

/** What a role may be granted: a partition of the table, or a customer partition of the evaluation key space only. */
export type GrantedPartition = TablePartition | EvaluationPartition;

/** What a role may do on the table: per partition of the table, its actions; and the GSI1 partitions it queries. */
export interface RoleTableAccess {
  readonly table: { readonly [partition in GrantedPartition]?: readonly (TableAction | Gated<TableAction>)[] };
  readonly index: readonly (Gsi1Partition | Gated<Gsi1Partition>)[];
}

const only = <T>(feature: Feature, ...grants: T[]): Gated<T>[] => grants.map((grant) => ({ with: feature, grant }));

/** A role of the pipeline: a function's part, or what a command of the package's command-line tool calls. */
export type PipelineRole = 'inbound' | 'turns' | 'operatorPlane' | 'customerData' | 'sweeper' | 'idleSweeper' | 'crmWorker' | 'redrive' | 'evaluator';

const { get, batchGet, query, conditionCheck, put, update, delete: remove } = TABLE_ACTIONS;
/** Readers of the GSI1 lists look the backfill's marker up while the key layout migrates. */
const marker = only('keyLayoutMigration', get);

/**
 * Who reads and writes which partition (docs/DESIGN.md, "What each item holds, and who writes and
 * reads it"). `OPERATOR#AUTH` is written only by the two functions that issue sign-ins: the
 * orchestrator (login grants) and the operator function (it consumes grants, opens and ends
 * sessions); the privacy role may only delete there, one item at a time, when it erases an
 * operator's phone. The CRM worker writes only `CRM_SYNC#` rows.
 */
export const ROLE_TABLE_ACCESS: { readonly [role in PipelineRole]: RoleTableAccess } = {
  /**
   * Webhook and End User Messaging inbound: the receipt and marker transaction, the routing reads
   * (pointer, session), messages appended while a person owns the conversation (raising the inbox's
   * version), Meta's delivery statuses recorded on the messages they name, and a customer's reactions
   * and edits recorded on the recent message they name (found by a Query of the customer's history).
   */
  inbound: {
    table: {
      inbound: [get, put, update],
      session: [get, query, conditionCheck, put, update],
      inboxVersion: [update],
      // Meta's template status notifications, applied to the stored template (templates are an operator plane feature).
      messageTemplates: only('operatorPlane', update),
    },
    index: [],
  },
  /**
   * Orchestrator: the turn (its reads are batches), budgets, consents and demands, the deployed
   * prompt's adoption, the drain of the legacy debounce items, login grants and handoffs.
   */
  turns: {
    table: {
      session: [get, batchGet, query, put, update],
      // A turn to or from people (a handoff, a close) raises the inbox's version, any other the agent's activity.
      inboxVersion: [update],
      agentActivity: [update],
      // A handoff's report item, in the turn's transaction.
      handoffReport: [update],
      inbound: [get, batchGet, conditionCheck, put, update, remove],
      customer: [get, batchGet, put],
      budget: [get, update],
      demands: [put],
      adminResource: [get, put],
      adminConfig: [get, update],
      // The pseudonym salt attachments are keyed by in the media bucket.
      adminPrivacy: only('media', get, put),
      // The operator notice's template, for an operator whose window closed.
      messageTemplates: only('operatorPlane', get),
      operatorAuth: only('operatorPlane', put),
      crmSync: only('crmSync', get, put),
      pipelineBudget: only('pipelineBudget', batchGet, update),
    },
    index: [],
  },
  /**
   * Operator function: sign-in and sessions, the inbox and conversations, the admin's prompts,
   * settings, audit and lists, the dead-letter redrive, the usage and handoff reports, and the cursors it hands
   * out. A removed operator's sessions are found through their sign-in references in the
   * `CUSTOMER#` partition and deleted with them; audit events name customers by the salted pseudonym.
   */
  operatorPlane: {
    table: {
      session: [get, query, put, update],
      inbound: [get, query, update],
      customer: [get, query, put, remove],
      adminPrivacy: [get, put],
      adminConfig: [get, update],
      adminAudit: [query, put],
      adminResource: [get, query, put],
      demands: [query],
      legacyConsent: [query],
      operatorAuth: [get, put, remove],
      // The admin's CRM screens read rows whether or not crmSync is on; only a projection writes them.
      crmSync: [get, ...only('crmSync', put)],
      cursorKey: [get, put],
      // Read by every inbox poll (an admin's agent lists: in one batch with the agent's activity); raised by claims, releases, closes.
      inboxVersion: [get, batchGet, update],
      agentActivity: [batchGet],
      // Take-overs, claims and first replies recorded; the admins' handoff report.
      handoffReport: [query, update],
      // The template list, the template an operator sends, and the admin's sync (each translation written, the ones Meta dropped removed).
      messageTemplates: [get, query, put, remove],
      // The prompt gate's runs: started (the evaluator function plays them), polled, and read when a draft is published.
      evaluationRun: [get, query, put],
      // The usage report's evaluation line.
      pipelineBudget: [batchGet],
      keyLayoutMigration: marker,
    },
    index: ['sessionState', 'crmSyncStatus', 'consentTimeline', 'llmDay', 'feeDay'],
  },
  /**
   * A customer's erasure and export (the operator API's privacy calls, `erase-customer`,
   * `export-customer`): the customer's partitions by Query, what their references name by
   * BatchGetItem, all of it deleted with DeleteItem, one item at a time — BatchWriteItem would let
   * whoever erases write items as well, sign-ins included — the erasure's salt, audit and raise of the inbox's version.
   */
  customerData: {
    table: {
      customer: [query, remove],
      session: [query, remove],
      inbound: [query, remove],
      budget: [query, remove],
      legacyConsent: [query, remove],
      crmSync: [batchGet, remove],
      demands: [batchGet, remove],
      operatorAuth: [batchGet, remove],
      adminPrivacy: [get, put],
      adminAudit: [put],
      inboxVersion: [update],
    },
    index: [],
  },
  /**
   * Handoff sweeper: the waiting conversations, their reminder markers, notices appended to the
   * history; and a scenario's customer an evaluation run left waiting when it did not finish,
   * erased as the evaluator would have (its partitions and its handoff item).
   */
  sweeper: {
    table: {
      'evaluation session': [query, remove],
      'evaluation inbound': [query, remove],
      'evaluation customer': [query, remove],
      handoffReport: [remove],
      inboxVersion: [update],
      session: [query, put, update],
      inbound: [update],
      customer: [get],
      adminConfig: [get],
      // The operator notice's template, and the scheduled template sync.
      messageTemplates: [get, query, put, remove],
      keyLayoutMigration: marker,
    },
    index: ['sessionState'],
  },
  /**
   * Idle sweeper: the agent's conversations by last activity, each close (the session, its pointer,
   * its messages' TTL, the CRM projection's close), checked against the customer's inbound marker
   * and audited under the customer's pseudonym; with the re-engagement, the customer's consent, the
   * template, and the template appended to the history past its watermark. A scenario's customer
   * it finds idle was left by an evaluation run that did not finish: it erases it, as the
   * evaluator would have (its partitions and its handoff item).
   */
  idleSweeper: {
    table: {
      'evaluation session': [query, remove],
      'evaluation inbound': [query, remove],
      'evaluation customer': [query, remove],
      handoffReport: [remove],
      session: [query, update, ...only('reengagement', put)],
      // A close raises the inbox's version.
      inboxVersion: [update],
      inbound: [conditionCheck, ...only('reengagement', update)],
      customer: [...only('crmSync', put), ...only('reengagement', get)],
      messageTemplates: only('reengagement', get),
      adminPrivacy: [get, put],
      adminAudit: [put],
      crmSync: only('crmSync', get, put),
      keyLayoutMigration: marker,
    },
    index: ['sessionState'],
  },
  /** CRM sync worker: the due rows and the problem counts, each row's compare-and-set. */
  crmWorker: {
    table: {
      crmSync: [get, put],
      keyLayoutMigration: marker,
    },
    index: ['crmSyncStatus'],
  },
  /**
   * Evaluator: the turn path on the customers of its runs only (their receipts and markers, sessions
   * and history, consents), each erased once its scenario was played, with its sessions' handoff
   * items; the prompts and the suite it reads (and the construct's prompt it adopts, as the
   * orchestrator would); the runs it plays; and the pipeline budget's evaluation line. No customer's
   * conversation, no demand, no CRM row, no sign-in.
   */
  evaluator: {
    table: {
      'evaluation session': [get, batchGet, query, conditionCheck, put, update, remove],
      'evaluation inbound': [get, batchGet, query, conditionCheck, put, update, remove],
      'evaluation customer': [get, batchGet, query, put, remove],
      // A turn raises the inbox's version or the agent's activity; a handoff writes its report item, which the cleanup deletes.
      inboxVersion: [update],
      agentActivity: [update],
      handoffReport: [update, remove],
      adminResource: [get, query, put],
      adminConfig: [get, update],
      evaluationRun: [get, put],
      // The evaluation line, whatever the budget; the day's total only to refuse a run once a budget is spent.
      pipelineBudget: [update, ...only('pipelineBudget', batchGet)],
    },
    index: [],
  },
  /** The redrive command: the customers' receipts, markers, sessions and history, and their restore. */
  redrive: {
    table: {
      inbound: [get, query, update],
      session: [get, query, update],
    },
    index: [],
  },
};

/** The actions `role` has in each partition of the table with `features` on, leaving out the partitions it has none in. */
export function tableActionsOf(role: PipelineRole, features: PipelineFeatures): Map<GrantedPartition, TableAction[]> {
  const entries = Object.entries(ROLE_TABLE_ACCESS[role].table) as [GrantedPartition, readonly (TableAction | Gated<TableAction>)[]][];
  return new Map(entries.map(([partition, access]) => [partition, enabled(access, features)] as const).filter(([, actions]) => actions.length > 0));
}

/** The GSI1 partitions `role` queries with `features` on. */
export function indexPartitionsOf(role: PipelineRole, features: PipelineFeatures): Gsi1Partition[] {
  return enabled(ROLE_TABLE_ACCESS[role].index, features);
}

function enabled<T extends string>(entries: readonly (T | Gated<T>)[], features: PipelineFeatures): T[] {
  return entries.flatMap((entry) => (typeof entry === 'string' ? [entry] : features[entry.with] ? [entry.grant] : []));
}

/**
 * The `dynamodb:LeadingKeys` patterns of table partitions: a prefix and any id after it, or the
 * constant itself; in the evaluation key space, the prefix and the evaluation customers' own.
 */
export function tablePartitionPatterns(partitions: readonly GrantedPartition[]): string[] {
  return partitions.map((partition) => {
    const [evaluation, customerPartition] = partition.split(' ') as [string, CustomerPartition | undefined];
    if (customerPartition === undefined) return partitionPattern(TABLE_PARTITIONS, evaluation);
    return `${TABLE_PARTITIONS.prefixes[customerPartition]}${EVALUATION_CUSTOMER_PREFIX}*`;
  });
}

/** The same for GSI1: on an index Query, `dynamodb:LeadingKeys` is the index's partition key. */
export function indexPartitionPatterns(partitions: readonly Gsi1Partition[]): string[] {
  return partitions.map((partition) => partitionPattern(GSI1_PARTITIONS, partition));
}

function partitionPattern(partitions: { readonly prefixes: Record<string, string>; readonly constants: Record<string, string> }, name: string): string {
  const prefix = partitions.prefixes[name];
  return prefix === undefined ? partitions.constants[name] : `${prefix}*`;
}

/**
 * An IAM condition that allows the statement only on items whose partition key matches one of
 * `patterns`. `ForAllValues` holds for a request without any key, so these statements only ever
 * carry item actions and Query, which always name one.
 */
export function leadingKeysCondition(patterns: readonly string[]): Record<string, Record<string, string[]>> {
  return { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...patterns] } };
}
