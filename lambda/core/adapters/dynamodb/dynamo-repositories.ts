import { OPERATOR_DEFAULTS } from '../../../../lib/contract';
import { DEFAULT_RETENTION, type RetentionPolicy } from '../../domain/privacy';
import type { Clock, IdGenerator } from '../../ports/clock';
import { randomIdGenerator } from '../system/random-id-generator';
import { systemClock } from '../system/system-clock';
import { DynamoAdminAuditRepository } from './admin-audit-repository';
import { DynamoConsentRepository } from './consent-repository';
import { DynamoCrmSyncRepository } from './crm-sync-repository';
import { DynamoCustomerDataRepository } from './customer-data-repository';
import { DynamoCustomerBudgetRepository } from './customer-budget-repository';
import { DynamoEvaluationRunRepository } from './evaluation-run-repository';
import { DynamoPipelineBudgetRepository } from './pipeline-budget-repository';
import { DynamoDemandRepository } from './demand-repository';
import { DynamoKit, type DynamoKitOptions } from './dynamo-kit';
import { DynamoInboundReceiptRepository } from './inbound-receipt-repository';
import { KeyLayout } from '../../../../lib/contract/key-layout';
import { KeyLayoutPolicy } from './key-layout';
import { DynamoLegacyDebounceRepository } from './legacy-debounce-repository';
import { DynamoMessageRepository } from './message-repository';
import { DynamoInboxVersion } from './inbox-version';
import { DynamoMessageTemplateRepository } from './message-template-repository';
import { DynamoOperationalConfigRepository } from './operational-config-repository';
import { DynamoOperatorAuthRepository } from './operator-auth-repository';
import { DynamoOperatorNoteRepository } from './operator-note-repository';
import { DynamoSessionRepository } from './session-repository';
import { DynamoHandoffReport } from './handoff-report-repository';
import { DynamoTurnLedger } from './turn-ledger';
import { DynamoTurnCheckpointRepository } from './turn-checkpoint-repository';
import { DynamoVersionedResourceRepository } from './versioned-resource-repository';

export interface DynamoRepositoriesOptions extends DynamoKitOptions {
  readonly clock?: Clock;
  readonly ids?: IdGenerator;
  /** Write the CRM projection intent with every session write (default false). */
  readonly crmSyncEnabled?: boolean;
  /** IANA zone whose midnight ends operator grants and sessions (default America/Sao_Paulo). */
  readonly operatorTimeZone?: string;
  /** Which layout of the keys every customer writes to write and read (default `seed`; see key-layout.ts). */
  readonly keyLayout?: KeyLayout;
  /** How long closed conversations and demands are kept (default DEFAULT_RETENTION). */
  readonly retention?: RetentionPolicy;
}

/**
 * What every repository of the single table shares: one kit (and so one client and one observer),
 * the clock, ids, the key layout (one policy, which caches the migration marker) and retention.
 */
export interface DynamoTable {
  readonly kit: DynamoKit;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly keyLayout: KeyLayoutPolicy;
  readonly retention: RetentionPolicy;
  readonly crmSyncEnabled: boolean;
  readonly operatorTimeZone: string;
}

export function openDynamoTable(options: DynamoRepositoriesOptions): DynamoTable {
  const { clock = systemClock, ids = randomIdGenerator, crmSyncEnabled = false, operatorTimeZone = OPERATOR_DEFAULTS.timeZone, keyLayout = KeyLayout.SEED, retention = DEFAULT_RETENTION, ...kitOptions } = options;
  const kit = new DynamoKit(kitOptions);
  return { kit, clock, ids, keyLayout: new KeyLayoutPolicy(keyLayout, kit, clock), retention, crmSyncEnabled, operatorTimeZone };
}

// One factory per repository: a function builds only the repositories its use cases call, so the
// bundler leaves the others (and their codecs) out of its bundle.
export const inboundReceipts = (table: DynamoTable) => new DynamoInboundReceiptRepository(table.kit, table.clock);
export const legacyDebounce = (table: DynamoTable) => new DynamoLegacyDebounceRepository(table.kit);
export const crmSyncRows = (table: DynamoTable) => new DynamoCrmSyncRepository(table.kit, table.clock, table.ids, table.keyLayout, table.retention);
const sessionsWithProjection = (table: DynamoTable, crmSync: DynamoCrmSyncRepository | undefined) => new DynamoSessionRepository(table.kit, table.clock, crmSync, table.keyLayout, table.retention);
export const sessionRepository = (table: DynamoTable) => sessionsWithProjection(table, table.crmSyncEnabled ? crmSyncRows(table) : undefined);
export const messageRepository = (table: DynamoTable) => new DynamoMessageRepository(table.kit, table.clock, table.keyLayout);
export const demandRepository = (table: DynamoTable) => new DynamoDemandRepository(table.kit, table.clock, table.retention);
export const versionedResources = (table: DynamoTable) => new DynamoVersionedResourceRepository(table.kit, table.clock);
export const operationalConfig = (table: DynamoTable) => new DynamoOperationalConfigRepository(table.kit, table.clock);
export const adminAudit = (table: DynamoTable) => new DynamoAdminAuditRepository(table.kit);
export const consentRepository = (table: DynamoTable) => new DynamoConsentRepository(table.kit);
export const operatorAuthRepository = (table: DynamoTable) => new DynamoOperatorAuthRepository(table.kit, table.clock, table.operatorTimeZone);
export const customerDataRepository = (table: DynamoTable) => new DynamoCustomerDataRepository(table.kit, table.clock);
export const customerBudgets = (table: DynamoTable) => new DynamoCustomerBudgetRepository(table.kit);
export const pipelineBudget = (table: DynamoTable) => new DynamoPipelineBudgetRepository(table.kit);
export const evaluationRuns = (table: DynamoTable) => new DynamoEvaluationRunRepository(table.kit);
export const messageTemplates = (table: DynamoTable) => new DynamoMessageTemplateRepository(table.kit);
export const inboxVersion = (table: DynamoTable) => new DynamoInboxVersion(table.kit, table.clock);
export const turnCheckpoints = (table: DynamoTable) => new DynamoTurnCheckpointRepository(table.kit, table.clock);
export const operatorNotes = (table: DynamoTable) => new DynamoOperatorNoteRepository(table.kit, table.clock);
export const handoffReport = (table: DynamoTable) => new DynamoHandoffReport(table.kit, table.clock, table.retention);
/** The turn's reads and transactions across its entities, writing sessions as `sessionRepository` does. */
export const turnLedger = (table: DynamoTable) => new DynamoTurnLedger(table.kit, table.clock, { sessions: sessionRepository(table), messages: messageRepository(table) });

/** The three repositories of a conversation: what turns, handoffs and redrives work on. */
export const conversationRepositories = (table: DynamoTable) => ({ receipts: inboundReceipts(table), sessions: sessionRepository(table), messages: messageRepository(table) });

/**
 * What registering inbound messages works on. The session is only read, to route a message, and
 * never written, so it comes without the CRM projection: no CRM read per message, no CRM partition in
 * the inbound functions' reach, and no CRM code in their bundles.
 */
export const inboundRepositories = (table: DynamoTable) => ({
  receipts: inboundReceipts(table),
  sessions: sessionsWithProjection(table, undefined),
  messages: messageRepository(table),
});

/** Every repository of the single table, sharing one kit (and so one client and one observer): for tools and tests. */
export interface DynamoRepositories {
  readonly kit: DynamoKit;
  readonly receipts: DynamoInboundReceiptRepository;
  readonly ledger: DynamoTurnLedger;
  readonly legacy: DynamoLegacyDebounceRepository;
  readonly sessions: DynamoSessionRepository;
  readonly messages: DynamoMessageRepository;
  readonly demands: DynamoDemandRepository;
  readonly crmSync: DynamoCrmSyncRepository;
  readonly resources: DynamoVersionedResourceRepository;
  readonly config: DynamoOperationalConfigRepository;
  readonly audit: DynamoAdminAuditRepository;
  readonly consents: DynamoConsentRepository;
  readonly operatorAuth: DynamoOperatorAuthRepository;
  readonly customerData: DynamoCustomerDataRepository;
  readonly budgets: DynamoCustomerBudgetRepository;
  readonly pipelineBudget: DynamoPipelineBudgetRepository;
  readonly evaluationRuns: DynamoEvaluationRunRepository;
  readonly templates: DynamoMessageTemplateRepository;
  readonly notes: DynamoOperatorNoteRepository;
  readonly handoffReport: DynamoHandoffReport;
}

export function createDynamoRepositories(options: DynamoRepositoriesOptions): DynamoRepositories {
  const table = openDynamoTable(options);
  return {
    kit: table.kit,
    ...conversationRepositories(table),
    ledger: turnLedger(table),
    legacy: legacyDebounce(table),
    demands: demandRepository(table),
    crmSync: crmSyncRows(table),
    resources: versionedResources(table),
    config: operationalConfig(table),
    audit: adminAudit(table),
    consents: consentRepository(table),
    operatorAuth: operatorAuthRepository(table),
    customerData: customerDataRepository(table),
    budgets: customerBudgets(table),
    pipelineBudget: pipelineBudget(table),
    evaluationRuns: evaluationRuns(table),
    templates: messageTemplates(table),
    notes: operatorNotes(table),
    handoffReport: handoffReport(table),
  };
}
