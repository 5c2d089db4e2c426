import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { createDocumentClient, type CursorKeySource, type DynamoKitObserver } from '../core/adapters/dynamodb/dynamo-kit';
import { openDynamoTable, type DynamoTable } from '../core/adapters/dynamodb/dynamo-repositories';
import type { RequestTimeouts } from '../core/adapters/aws/request-timeouts';
import { createPowertools, instrumentInvocation, type Powertools } from '../core/adapters/observability/powertools';
import type { AwsCallPorts } from '../core/adapters/whatsapp/whatsapp-channel';
import { randomIdGenerator } from '../core/adapters/system/random-id-generator';
import { systemClock } from '../core/adapters/system/system-clock';
import type { Clock, IdGenerator } from '../core/ports/clock';
import type { OperatorAccessSettings, SharedSettings } from './deployment-settings';

/** What tests, benchmarks and the local runtime may hand every function instead of what it builds itself. */
export interface FunctionPorts extends AwsCallPorts {
  readonly clock?: Clock;
  readonly ids?: IdGenerator;
  readonly logger?: Logger;
  readonly metrics?: Metrics;
  /** DynamoDB endpoint to call instead of the SDK's (a local server, or a closed port to simulate an outage). */
  readonly dynamoDbEndpoint?: string;
  /** Sees every DynamoDB call (benchmarks count calls and consumed capacity with it). */
  readonly kitObserver?: DynamoKitObserver;
}

export interface ComposedFunction {
  readonly powertools: Powertools;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /** The single table; each function builds the repositories it calls from it (dynamo-repositories.ts). */
  readonly table: DynamoTable;
  /** Wraps one invocation: X-Ray subsegment, cold start annotation, metrics flush. */
  instrument<T>(invocation: () => Promise<T>): Promise<T>;
}

/** What differs between functions in how they open the table. */
export interface TableOptions {
  /** Where the page cursors' key comes from; by default a key of the process (its cursors never leave it). */
  readonly cursorKey?: CursorKeySource;
  /** Bounds on each table call; by default the SDK's (no request timeout). */
  readonly requestTimeouts?: RequestTimeouts;
}

/**
 * The shared half of every function's composition: Powertools, clock, ids and the table, written
 * as the deployment's settings say (key layout, CRM projection, retention, and the operator time
 * zone where the function has the operator plane).
 */
export function composeFunction(
  name: string,
  settings: SharedSettings & { readonly operatorPlane?: Pick<OperatorAccessSettings, 'timeZone'> },
  ports: FunctionPorts,
  tableOptions: TableOptions = {},
): ComposedFunction {
  const powertools = createPowertools(`whatsapp-${name}`, settings.observability);
  const metrics = ports.metrics ?? powertools.metrics;
  const clock = ports.clock ?? systemClock;
  const ids = ports.ids ?? randomIdGenerator;
  return {
    powertools,
    logger: ports.logger ?? powertools.logger,
    metrics,
    clock,
    ids,
    table: openDynamoTable({
      tableName: settings.tableName,
      clock,
      ids,
      client: createDocumentClient({ timeouts: tableOptions.requestTimeouts, endpoint: ports.dynamoDbEndpoint, credentials: ports.awsCredentials }),
      observer: ports.kitObserver,
      operatorTimeZone: settings.operatorPlane?.timeZone,
      keyLayout: settings.keyLayout,
      crmSyncEnabled: settings.crmSyncEnabled,
      retention: settings.retention,
      cursorSecret: tableOptions.cursorKey,
    }),
    instrument: (invocation) => instrumentInvocation({ tracer: powertools.tracer, metrics }, name, invocation),
  };
}

/**
 * A Lambda handler that composes its function on the first invocation (reading the settings then,
 * once), so importing an entry point has no side effects.
 */
export function composedOnFirstInvocation<Args extends unknown[], Result>(compose: () => (...args: Args) => Result): (...args: Args) => Result {
  let composed: ((...args: Args) => Result) | undefined;
  return (...args) => (composed ??= compose())(...args);
}
