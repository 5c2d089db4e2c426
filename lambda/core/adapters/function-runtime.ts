import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { Clock, IdGenerator } from '../ports/clock';
import { createDocumentClient, type DynamoKitObserver } from './dynamodb/dynamo-kit';
import { openDynamoTable, type DynamoTable } from './dynamodb/dynamo-repositories';
import type { KeyLayout } from '../../../lib/key-layout';
import { createPowertools, instrumentInvocation, type Powertools } from './observability/powertools';
import type { RetentionPolicy } from '../domain/privacy';
import { crmSyncEnabled, keyLayoutFromEnvironment, type ObservabilityConfig, retentionFromEnvironment } from './runtime-environment';
import { systemClock } from './system/system-clock';

/** What every function needs from its surroundings; each handler adds its own ports. */
export interface FunctionRuntime {
  readonly tableName: string;
  readonly clock?: Clock;
  readonly ids?: IdGenerator;
  readonly logger?: Logger;
  readonly metrics?: Metrics;
  /** Service name and metrics namespace; defaults for local runs. */
  readonly observability?: ObservabilityConfig;
  /** DynamoDB endpoint to call instead of the SDK's (a local server, or a closed port to simulate an outage). */
  readonly dynamoDbEndpoint?: string;
  /** Sees every DynamoDB call (benchmarks count calls and consumed capacity with it). */
  readonly kitObserver?: DynamoKitObserver;
  /** IANA zone whose midnight ends operator login links and sessions. */
  readonly operatorTimeZone?: string;
  /** Which layout of the keys every customer writes (the write-shard migration phase). Default: `KEY_LAYOUT` of the environment, else seed. */
  readonly keyLayout?: KeyLayout;
  /** Session writes carry the CRM projection. Default: `CRM_SYNC_ENABLED` of the environment. */
  readonly crmSyncEnabled?: boolean;
  /** How long closed conversations and demands live. Default: what the construct set in the environment. */
  readonly retention?: RetentionPolicy;
}

export interface ComposedFunction {
  readonly powertools: Powertools;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly clock: Clock;
  /** The single table; each function builds the repositories it calls from it (dynamo-repositories.ts). */
  readonly table: DynamoTable;
  /** Wraps one invocation: X-Ray subsegment, cold start annotation, metrics flush. */
  instrument<T>(invocation: () => Promise<T>): Promise<T>;
}

/** The shared half of a composition root: observability, clock and the table. */
export function composeFunction(name: string, runtime: FunctionRuntime): ComposedFunction {
  const powertools = createPowertools(`whatsapp-${name}`, runtime.observability);
  const metrics = runtime.metrics ?? powertools.metrics;
  const clock = runtime.clock ?? systemClock;
  return {
    powertools,
    logger: runtime.logger ?? powertools.logger,
    metrics,
    clock,
    table: openDynamoTable({
      tableName: runtime.tableName,
      clock,
      ids: runtime.ids,
      client: createDocumentClient(runtime.dynamoDbEndpoint === undefined ? {} : { endpoint: runtime.dynamoDbEndpoint }, (client) => powertools.tracer.captureAWSv3Client(client)),
      observer: runtime.kitObserver,
      operatorTimeZone: runtime.operatorTimeZone,
      keyLayout: runtime.keyLayout ?? keyLayoutFromEnvironment(process.env),
      crmSyncEnabled: runtime.crmSyncEnabled ?? crmSyncEnabled(process.env),
      retention: runtime.retention ?? retentionFromEnvironment(process.env),
    }),
    instrument: (invocation) => instrumentInvocation({ tracer: powertools.tracer, metrics }, name, invocation),
  };
}
