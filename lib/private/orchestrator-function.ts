import { Annotations, Names, Token } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { AgentBackend, AgentBackendConfig } from '../agent-backend';
import { AGENT_BACKEND_KINDS, type FunctionSettings, PIPELINE_DEFAULTS } from '../contract';
import { acceptFinding } from './accepted-findings';
import type { PipelineFunctionFactory } from './function-factory';
import type { PipelineSettings } from './pipeline-settings';

/** What the orchestrator is built from. */
export interface OrchestratorSources {
  readonly settings: PipelineSettings;
  readonly functions: PipelineFunctionFactory;
  readonly queue: sqs.IQueue;
  /** What the plan tells the orchestrator. */
  readonly told: FunctionSettings;
}

/** The orchestrator, and its alias with `functionAlias`. */
export interface Orchestrator {
  readonly orchestratorFunction: lambda.Function;
  readonly orchestratorAlias?: lambda.Alias;
}

/**
 * The agent backend bound to the orchestrator's role, before the function exists: what it grants
 * is the role's, what it tells the orchestrator goes into the plan.
 */
export function bindAgentBackend(scope: Construct, settings: PipelineSettings, functions: PipelineFunctionFactory, agentBackend: AgentBackend): AgentBackendConfig {
  const agent = agentBackend.bind(scope, functions.createRole('Orchestrator'));
  if (agent._agent.backend === AGENT_BACKEND_KINDS.scripted && looksLikeProduction(settings.environment)) {
    Annotations.of(scope).addWarningV2(
      'cdk-whatsapp-agent-pipeline:scriptedAgentInProduction',
      `environment '${settings.environment}' looks like production but the agent is AgentBackend.scripted(), a development stand-in ` +
        'that echoes customers instead of answering them. Use AgentBackend.bedrock() or AgentBackend.fromFunction().',
    );
  }
  return agent;
}

/** The orchestrator (and its alias, if any), consuming the turn queue; its role is PipelineGrants.grantTurns' and the agent backend's. */
export function buildOrchestrator({ settings, functions, queue, told }: OrchestratorSources): Orchestrator {
  const orchestratorFunction = functions.createFunction('Orchestrator', {
    description: `Turn orchestrator of ${settings.names.table}: runs the agent for the latest message of each customer and replies`,
    memorySize: settings.orchestratorMemorySize,
    timeout: settings.orchestratorTimeout,
    settings: told,
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
  return { orchestratorFunction, orchestratorAlias };
}

/** Stage names that usually mean real customers (`prod`, `production`, `prd`, `live`, also as `prod-eu` or `eu-prod`). */
function looksLikeProduction(environment: string): boolean {
  return !Token.isUnresolved(environment) && /(^|-)(prod|production|prd|live)(-|$)/.test(environment);
}
