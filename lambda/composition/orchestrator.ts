import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { AGENT_BACKEND_KINDS, CUSTOM_METRICS, localePreset } from '../../lib/contract';
import { type AgentClients, type AgentSettings, createAgent } from '../core/adapters/agent/agent-backend';
import { bedrockConverse } from '../core/adapters/agent/bedrock-converse-agent';
import { credentialProvider } from '../core/adapters/aws/aws-identity';
import { lambdaInvoke } from '../core/adapters/lambda/lambda-invoke';
import { errorSummary } from '../core/adapters/observability/error-summary';
import {
  conversationRepositories,
  customerBudgets,
  demandRepository,
  legacyDebounce,
  operationalConfig,
  pipelineBudget,
  turnCheckpoints,
  turnLedger,
  versionedResources,
} from '../core/adapters/dynamodb/dynamo-repositories';
import { CustomerBudgetGate } from '../core/application/customer-budget-gate';
import { PipelineTokenBudget } from '../core/application/pipeline-token-budget';
import { ProcessTurn, type ProcessTurnDependencies } from '../core/application/process-turn';
import type { TurnSettings } from '../core/application/turn-settings';
import type { AgentPort, AgentStages } from '../core/ports/agent';
import { createTurnHandler, type InvocationContext } from '../orchestrator/turn-handler';
import { composeFunction, type FunctionPorts } from './compose-function';
import { composeCustomerMessaging, type SenderPorts } from './customer-messaging';
import type { OrchestratorSettings } from './deployment-settings';
import type { MediaPorts } from './media';
import { mediaDownloadOnDemand, mediaStoreOnDemand, voiceNotesOnDemand } from './media-on-demand';
import { composeOperatorPlane } from './operator-plane';

export type OrchestratorHandler = (event: SQSEvent, context: InvocationContext) => Promise<SQSBatchResponse>;

export interface OrchestratorPorts extends FunctionPorts, SenderPorts, MediaPorts {
  /** The agent (or stages) to use instead of the backend the settings select. */
  readonly agent?: AgentPort | AgentStages;
  /** Turn settings to override (e.g. `promptCacheMs: 0`, so an edited prompt applies to the very next turn). */
  readonly turnSettings?: Partial<TurnSettings>;
  /** Bedrock Runtime endpoint to call the model on instead of the SDK's (a local fake). */
  readonly bedrockEndpoint?: string;
  /** Lambda endpoint to invoke the agent's and the tools' functions on instead of the SDK's (a local fake). */
  readonly lambdaEndpoint?: string;
  /** Where the agent's knowledge base is searched (a local stand-in of Retrieve). Default: the Region's Bedrock Agent Runtime. */
  readonly knowledgeBaseEndpoint?: string;
}

/** The orchestrator: the SQS contract (turn-handler.ts) on the turn use case, with the operator plane when it is on. */
export function composeOrchestrator(settings: OrchestratorSettings, ports: OrchestratorPorts = {}): OrchestratorHandler {
  const composed = composeFunction('orchestrator', settings, ports);
  const { table, clock } = composed;
  const { texts } = localePreset(settings.locale);
  const messaging = composeCustomerMessaging(settings.whatsApp, settings.locale, table, ports);
  const plane = settings.operatorPlane && composeOperatorPlane(settings.operatorPlane, settings.locale, { ...composed, ...messaging });
  const mediaSettings = settings.media;
  const mediaStore = mediaSettings && mediaStoreOnDemand((media) => media.composeMediaStore(mediaSettings, composed, ports));
  const turns = createTurnHandler({
    processTurn: new ProcessTurn({
      ...conversationRepositories(table),
      ledger: turnLedger(table),
      legacy: legacyDebounce(table),
      demands: demandRepository(table),
      resources: versionedResources(table),
      agent: ports.agent ?? createAgent(settings.agent, agentClients(ports), texts),
      whatsapp: messaging.whatsapp,
      clock,
      ids: composed.ids,
      settings: {
        historyMaxCharacters: settings.agentHistoryMaxCharacters,
        burstSettleMs: settings.burstSettleMs,
        fallbackText: settings.fallbackText,
        unsupportedMessageText: settings.unsupportedMessageText,
        ...ports.turnSettings,
      },
      deployedSystemPrompt: settings.deployedSystemPrompt === undefined ? undefined : { text: settings.deployedSystemPrompt, config: operationalConfig(table) },
      deployedStagePrompts: deployedStagePrompts(settings.agent, table),
      operatorCommands: plane?.loginCommand,
      handoffs: plane?.handoffs,
      consent: messaging.consent,
      media: mediaSettings && mediaStore && mediaDownloadOnDemand((media) => media.composeMediaDownload(settings.whatsApp, mediaSettings, mediaStore, composed, ports)),
      mediaStore,
      checkpoints: turnCheckpoints(table),
      locale: settings.locale,
      voiceNotes: mediaSettings?.transcription && voiceNotesOnDemand((media) => media.composeVoiceNoteTranscription(mediaSettings, composed, ports)),
      budget: new CustomerBudgetGate(customerBudgets(table), clock, settings.customerBudget, settings.pipelineBudget && new PipelineTokenBudget(pipelineBudget(table), clock, settings.pipelineBudget)),
      onFailureNotice: (outcome, error) => {
        if (outcome === 'sent') composed.metrics.addMetric(CUSTOM_METRICS.failureNoticeSent, MetricUnit.Count, 1);
        if (outcome !== 'failed') return;
        composed.metrics.addMetric(CUSTOM_METRICS.failureNoticeFailed, MetricUnit.Count, 1);
        composed.logger.warn('failure_notice_failed', errorSummary(error));
      },
    }),
    clock,
    logger: composed.logger,
    metrics: composed.metrics,
    maxReceiveCount: settings.maxReceiveCount,
  });
  return (event, context) => composed.instrument(() => turns(event, context));
}

/** The prompts the construct set on stages, when it set any. */
function deployedStagePrompts(agent: AgentSettings, table: Parameters<typeof operationalConfig>[0]): ProcessTurnDependencies['deployedStagePrompts'] {
  if (agent.backend !== AGENT_BACKEND_KINDS.stages) return undefined;
  const texts = Object.fromEntries(Object.entries(agent.stages).flatMap(([name, stage]) => (stage.deployedSystemPrompt === undefined ? [] : [[name, stage.deployedSystemPrompt]])));
  return Object.keys(texts).length === 0 ? undefined : { texts, config: operationalConfig(table) };
}

/** The agent backends' AWS calls signed as the identity the ports name, else the adapters' defaults (the role's). */
function agentClients(ports: OrchestratorPorts): AgentClients {
  const credentials = credentialProvider(ports.awsCredentials);
  const retrieve = { ...(credentials && { credentials }), ...(ports.knowledgeBaseEndpoint !== undefined && { endpoint: ports.knowledgeBaseEndpoint }) };
  if (credentials === undefined && ports.bedrockEndpoint === undefined && ports.lambdaEndpoint === undefined) return { retrieve };
  return { converse: bedrockConverse({ credentials, endpoint: ports.bedrockEndpoint }), invoke: lambdaInvoke({ credentials, endpoint: ports.lambdaEndpoint }), retrieve };
}
