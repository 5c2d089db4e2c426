import { AGENT_BACKEND_KINDS } from '../../lib/contract';
import type { AgentClients, AgentSettings } from '../core/adapters/agent/agent-backend';
import { bedrockConverse } from '../core/adapters/agent/bedrock-converse-agent';
import { credentialProvider } from '../core/adapters/aws/aws-identity';
import { conversationRepositories, demandRepository, type DynamoTable, legacyDebounce, operationalConfig, turnCheckpoints, turnLedger, versionedResources } from '../core/adapters/dynamodb/dynamo-repositories';
import { lambdaInvoke } from '../core/adapters/lambda/lambda-invoke';
import type { ProcessTurnDependencies } from '../core/application/process-turn';
import type { ComposedFunction, FunctionPorts } from './compose-function';
import type { EvaluatorSettings } from './deployment-settings';

/** The endpoints the agent's AWS calls may go to instead of AWS's (local fakes). */
export interface AgentEndpointPorts extends FunctionPorts {
  /** Bedrock Runtime endpoint to call the model on instead of the SDK's (a local fake). */
  readonly bedrockEndpoint?: string;
  /** Lambda endpoint to invoke the agent's and the tools' functions on instead of the SDK's (a local fake). */
  readonly lambdaEndpoint?: string;
  /** Where the agent's knowledge base is searched (a local stand-in of Retrieve). Default: the Region's Bedrock Agent Runtime. */
  readonly knowledgeBaseEndpoint?: string;
}

/**
 * What the turn use case is built on in every composition that runs it — the orchestrator's, and
 * the evaluation's (evaluation.ts): the table's repositories, the prompts the deployment set, the
 * turn settings. The edges (the agent, the sender, people and budgets) are each composition's own,
 * and so is the burst settle wait (the queue's: a scenario never bursts).
 */
export function turnPathDependencies(
  settings: EvaluatorSettings,
  { table, clock, ids }: ComposedFunction,
  turnSettings: ProcessTurnDependencies['settings'] = {},
): Omit<ProcessTurnDependencies, 'agent' | 'whatsapp'> {
  return {
    ...conversationRepositories(table),
    ledger: turnLedger(table),
    legacy: legacyDebounce(table),
    demands: demandRepository(table),
    resources: versionedResources(table),
    clock,
    ids,
    settings: { historyMaxCharacters: settings.agentHistoryMaxCharacters, fallbackText: settings.fallbackText, unsupportedMessageText: settings.unsupportedMessageText, ...turnSettings },
    deployedSystemPrompt: settings.deployedSystemPrompt === undefined ? undefined : { text: settings.deployedSystemPrompt, config: operationalConfig(table) },
    deployedStagePrompts: deployedStagePrompts(settings.agent, table),
    checkpoints: turnCheckpoints(table),
    locale: settings.locale,
  };
}

/** The prompts the construct set on stages, when it set any. */
function deployedStagePrompts(agent: AgentSettings, table: DynamoTable): ProcessTurnDependencies['deployedStagePrompts'] {
  if (agent.backend !== AGENT_BACKEND_KINDS.stages) return undefined;
  const texts = Object.fromEntries(Object.entries(agent.stages).flatMap(([name, stage]) => (stage.deployedSystemPrompt === undefined ? [] : [[name, stage.deployedSystemPrompt]])));
  return Object.keys(texts).length === 0 ? undefined : { texts, config: operationalConfig(table) };
}

/** The agent backends' AWS calls signed as the identity the ports name, else the adapters' defaults (the role's). */
export function agentClients(ports: AgentEndpointPorts): AgentClients {
  const credentials = credentialProvider(ports.awsCredentials);
  const retrieve = { ...(credentials && { credentials }), ...(ports.knowledgeBaseEndpoint !== undefined && { endpoint: ports.knowledgeBaseEndpoint }) };
  if (credentials === undefined && ports.bedrockEndpoint === undefined && ports.lambdaEndpoint === undefined) return { retrieve };
  return { converse: bedrockConverse({ credentials, endpoint: ports.bedrockEndpoint }), invoke: lambdaInvoke({ credentials, endpoint: ports.lambdaEndpoint }), retrieve };
}
