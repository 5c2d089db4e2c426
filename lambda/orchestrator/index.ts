// Entry point of the orchestrator function: composes the turn use case from its adapters. The SQS
// contract lives in turn-handler.ts, the behaviour in core/application/process-turn.ts.
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { RUNTIME_ENV } from '../../lib/pipeline-contract';
import { agentFromEnvironment } from '../core/adapters/agent/agent-from-environment';
import { DynamoDemandRepository } from '../core/adapters/dynamodb/demand-repository';
import { createDocumentClient, DynamoKit, type DynamoKitObserver } from '../core/adapters/dynamodb/dynamo-kit';
import { DynamoInboundReceiptRepository } from '../core/adapters/dynamodb/inbound-receipt-repository';
import { DynamoMessageRepository } from '../core/adapters/dynamodb/message-repository';
import { DynamoSessionRepository } from '../core/adapters/dynamodb/session-repository';
import { DynamoVersionedResourceRepository } from '../core/adapters/dynamodb/versioned-resource-repository';
import { createPowertools, instrumentInvocation } from '../core/adapters/observability/powertools';
import { SecretsManagerCredentialsProvider } from '../core/adapters/secrets/secrets-manager-credentials';
import { randomIdGenerator } from '../core/adapters/system/random-id-generator';
import { systemClock } from '../core/adapters/system/system-clock';
import { GraphApiWhatsAppSender } from '../core/adapters/whatsapp/graph-api-sender';
import { ProcessTurn, type TurnSettings } from '../core/application/process-turn';
import type { AgentPort } from '../core/ports/agent';
import type { Clock, IdGenerator } from '../core/ports/clock';
import type { WhatsAppSender } from '../core/ports/whatsapp-sender';
import { createTurnHandler, type InvocationContext } from './turn-handler';

export type OrchestratorHandler = (event: SQSEvent, context: InvocationContext) => Promise<SQSBatchResponse>;

/** What the orchestrator needs from its surroundings; the Lambda reads it from the environment. */
export interface OrchestratorRuntime {
  readonly tableName: string;
  readonly whatsapp: WhatsAppSender;
  readonly agent: AgentPort;
  readonly clock?: Clock;
  readonly ids?: IdGenerator;
  readonly logger?: Logger;
  readonly metrics?: Metrics;
  readonly settings?: Partial<TurnSettings>;
  /** Sees every DynamoDB call (benchmarks count calls and consumed capacity with it). */
  readonly kitObserver?: DynamoKitObserver;
}

export function createOrchestratorHandler(runtime: OrchestratorRuntime): OrchestratorHandler {
  const powertools = createPowertools('whatsapp-orchestrator');
  const logger = runtime.logger ?? powertools.logger;
  const metrics = runtime.metrics ?? powertools.metrics;
  const clock = runtime.clock ?? systemClock;
  const kit = new DynamoKit({
    tableName: runtime.tableName,
    client: createDocumentClient({}, (client) => powertools.tracer.captureAWSv3Client(client)),
    observer: runtime.kitObserver,
  });
  const turns = createTurnHandler({
    processTurn: new ProcessTurn({
      receipts: new DynamoInboundReceiptRepository(kit, clock),
      sessions: new DynamoSessionRepository(kit, clock),
      messages: new DynamoMessageRepository(kit, clock),
      demands: new DynamoDemandRepository(kit),
      resources: new DynamoVersionedResourceRepository(kit, clock),
      agent: runtime.agent,
      whatsapp: runtime.whatsapp,
      clock,
      ids: runtime.ids ?? randomIdGenerator,
      settings: runtime.settings,
    }),
    logger,
    metrics,
  });
  return (event, context) => instrumentInvocation({ tracer: powertools.tracer, metrics }, 'orchestrator', () => turns(event, context));
}

let fromEnvironment: OrchestratorHandler | undefined;

/** The Lambda handler, composed on first use so importing this module has no side effects. */
export const handler: OrchestratorHandler = (event, context) => {
  if (fromEnvironment === undefined) {
    const tableName = process.env[RUNTIME_ENV.tableName];
    if (!tableName) throw new Error(`Environment variable ${RUNTIME_ENV.tableName} is not set; the AgentPipeline construct sets it.`);
    fromEnvironment = createOrchestratorHandler({
      tableName,
      whatsapp: GraphApiWhatsAppSender.fromEnvironment(SecretsManagerCredentialsProvider.fromEnvironment()),
      agent: agentFromEnvironment(),
    });
  }
  return fromEnvironment(event, context);
};
