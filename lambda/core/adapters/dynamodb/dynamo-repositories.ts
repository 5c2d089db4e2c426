import { DEFAULT_OPERATOR_TIME_ZONE } from '../../domain/local-time';
import { DEFAULT_RETENTION, type RetentionPolicy } from '../../domain/privacy';
import type { Clock, IdGenerator } from '../../ports/clock';
import { randomIdGenerator } from '../system/random-id-generator';
import { systemClock } from '../system/system-clock';
import { DynamoAdminAuditRepository } from './admin-audit-repository';
import { DynamoConsentRepository } from './consent-repository';
import { DynamoCrmSyncRepository } from './crm-sync-repository';
import { DynamoCustomerDataRepository } from './customer-data-repository';
import { DynamoCustomerBudgetRepository } from './customer-budget-repository';
import { DynamoDemandRepository } from './demand-repository';
import { DynamoKit, type DynamoKitOptions } from './dynamo-kit';
import { DynamoInboundReceiptRepository } from './inbound-receipt-repository';
import { KeyLayout, KeyLayoutPolicy } from './key-layout';
import { DynamoLegacyDebounceRepository } from './legacy-debounce-repository';
import { DynamoMessageRepository } from './message-repository';
import { DynamoOperationalConfigRepository } from './operational-config-repository';
import { DynamoOperatorAuthRepository } from './operator-auth-repository';
import { DynamoSessionRepository } from './session-repository';
import { DynamoTurnStateReader } from './turn-state-reader';
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

/** Every repository of the single table, sharing one kit (and so one client and one observer). */
export interface DynamoRepositories {
  readonly kit: DynamoKit;
  readonly receipts: DynamoInboundReceiptRepository;
  readonly turnState: DynamoTurnStateReader;
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
}

export function createDynamoRepositories(options: DynamoRepositoriesOptions): DynamoRepositories {
  const { clock = systemClock, ids = randomIdGenerator, crmSyncEnabled = false, operatorTimeZone = DEFAULT_OPERATOR_TIME_ZONE, keyLayout = KeyLayout.seed, retention = DEFAULT_RETENTION, ...kitOptions } = options;
  const kit = new DynamoKit(kitOptions);
  const keyLayoutPolicy = new KeyLayoutPolicy(keyLayout, kit, clock);
  const crmSync = new DynamoCrmSyncRepository(kit, clock, ids, keyLayoutPolicy);
  return {
    kit,
    receipts: new DynamoInboundReceiptRepository(kit, clock),
    turnState: new DynamoTurnStateReader(kit),
    legacy: new DynamoLegacyDebounceRepository(kit),
    sessions: new DynamoSessionRepository(kit, clock, crmSyncEnabled ? crmSync : undefined, keyLayoutPolicy, retention),
    messages: new DynamoMessageRepository(kit, clock, keyLayoutPolicy),
    demands: new DynamoDemandRepository(kit, clock, retention),
    crmSync,
    resources: new DynamoVersionedResourceRepository(kit, clock),
    config: new DynamoOperationalConfigRepository(kit, clock),
    audit: new DynamoAdminAuditRepository(kit),
    consents: new DynamoConsentRepository(kit),
    operatorAuth: new DynamoOperatorAuthRepository(kit, clock, operatorTimeZone),
    customerData: new DynamoCustomerDataRepository(kit),
    budgets: new DynamoCustomerBudgetRepository(kit),
  };
}
