import { Annotations, Names, Token } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { AgentBackend } from '../agent-backend';
import { AGENT_BACKEND_KINDS, PIPELINE_DEFAULTS, RUNTIME_ENV } from '../contract';
import { acceptFinding } from './accepted-findings';
import type { PipelineFunctionFactory } from './function-factory';
import type { PipelineSettings } from './pipeline-settings';
import type { WhatsAppChannelBinding } from './whatsapp-channel-binding';

/** What the orchestrator is built from. */
export interface OrchestratorSources {
  readonly scope: Construct;
  readonly settings: PipelineSettings;
  readonly functions: PipelineFunctionFactory;
  readonly table: dynamodb.ITable;
  readonly queue: sqs.IQueue;
  readonly agentBackend: AgentBackend;
  /** The channel the orchestrator replies on. */
  readonly channel: Pick<WhatsAppChannelBinding, 'senderEnvironment'>;
}

/** The orchestrator, its alias with `functionAlias`, and what its agent backend told about itself. */
export interface Orchestrator {
  readonly orchestratorFunction: lambda.Function;
  readonly orchestratorAlias?: lambda.Alias;
  /** The Bedrock model the agent calls, for the model throttling alarm; undefined for other backends. */
  readonly bedrockModelId?: string;
}

/** The orchestrator (and its alias, if any), consuming the turn queue and wired to the agent backend; its role is PipelineGrants.grantTurns'. */
export function buildOrchestrator({ scope, settings, functions, table, queue, agentBackend, channel }: OrchestratorSources): Orchestrator {
  const orchestratorFunction = functions.createFunction('Orchestrator', {
    description: `Turn orchestrator of ${settings.names.table}: runs the agent for the latest message of each customer and replies`,
    memorySize: settings.orchestratorMemorySize,
    timeout: settings.orchestratorTimeout,
    environment: {
      [RUNTIME_ENV.tableName]: table.tableName,
      ...channel.senderEnvironment,
      // The last receive before the redrive parks its messages so they cannot block later turns.
      [RUNTIME_ENV.maxReceiveCount]: String(settings.maxReceiveCount),
      ...(settings.customerBudget ? { [RUNTIME_ENV.customerBudget]: JSON.stringify(settings.customerBudget) } : {}),
      // The alarm's share is the construct's; the runtime needs the budget and its reply.
      ...(settings.pipelineBudget ? { [RUNTIME_ENV.pipelineBudget]: JSON.stringify({ agentTokensPerDay: settings.pipelineBudget.agentTokensPerDay, reply: settings.pipelineBudget.reply }) } : {}),
      ...(settings.agentHistoryMaxCharacters ? { [RUNTIME_ENV.agentHistoryMaxCharacters]: String(settings.agentHistoryMaxCharacters) } : {}),
      ...(settings.fallbackText === undefined ? {} : { [RUNTIME_ENV.fallbackText]: settings.fallbackText }),
      ...(settings.deadlineFallbackText === undefined ? {} : { [RUNTIME_ENV.deadlineFallbackText]: settings.deadlineFallbackText }),
      ...(settings.unsupportedMessageText === undefined ? {} : { [RUNTIME_ENV.unsupportedMessageText]: settings.unsupportedMessageText }),
      ...functions.commonEnvironment,
    },
  });
  const orchestratorAlias = functions.createAlias(orchestratorFunction, 'Orchestrator');
  // The mapping aws-cdk-lib's SqsEventSource would create, under the same id, without its grant:
  // that grant's kms:Decrypt would work outside SQS too. The role's queue and key grants are
  // PipelineGrants.grantTurns'.
  const eventSource = (orchestratorAlias ?? orchestratorFunction).addEventSourceMapping(`SqsEventSource:${Names.nodeUniqueId(queue.node)}`, {
    eventSourceArn: queue.queueArn,
    batchSize: PIPELINE_DEFAULTS.orchestratorBatchSize,
    reportBatchItemFailures: true,
    maxConcurrency: settings.orchestratorMaxConcurrency,
  });
  acceptFinding(eventSource, 'LambdaEventSourceMappingDestination', "Lambda takes no on-failure destination for an SQS event source: a turn that fails every receive goes to the turn queue's dead-letter queue (maxReceiveCount), with an alarm and the redrive.");
  const agent = agentBackend.bind(scope, orchestratorFunction);
  if (agent.environment[RUNTIME_ENV.agentBackend] === AGENT_BACKEND_KINDS.scripted && looksLikeProduction(settings.environment)) {
    Annotations.of(scope).addWarningV2(
      'cdk-whatsapp-agent-pipeline:scriptedAgentInProduction',
      `environment '${settings.environment}' looks like production but the agent is AgentBackend.scripted(), a development stand-in ` +
        'that echoes customers instead of answering them. Use AgentBackend.bedrock() or AgentBackend.fromFunction().',
    );
  }
  for (const [name, value] of Object.entries(agent.environment)) {
    orchestratorFunction.addEnvironment(name, value);
  }
  return { orchestratorFunction, orchestratorAlias, bedrockModelId: agent.bedrockModelId };
}

/** Stage names that usually mean real customers (`prod`, `production`, `prd`, `live`, also as `prod-eu` or `eu-prod`). */
function looksLikeProduction(environment: string): boolean {
  return !Token.isUnresolved(environment) && /(^|-)(prod|production|prd|live)(-|$)/.test(environment);
}
