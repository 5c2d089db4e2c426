import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { CUSTOM_METRICS, localePreset } from '../../lib/contract';
import { createAgent } from '../core/adapters/agent/agent-backend';
import { errorSummary } from '../core/adapters/observability/error-summary';
import { customerBudgets, pipelineBudget } from '../core/adapters/dynamodb/dynamo-repositories';
import { CustomerBudgetGate } from '../core/application/customer-budget-gate';
import { PipelineTokenBudget } from '../core/application/pipeline-token-budget';
import { ProcessTurn } from '../core/application/process-turn';
import type { TurnSettings } from '../core/application/turn-settings';
import type { AgentPort, AgentStages } from '../core/ports/agent';
import { createTurnHandler, type InvocationContext } from '../orchestrator/turn-handler';
import { composeFunction, type FunctionPorts } from './compose-function';
import { composeCustomerMessaging, type SenderPorts } from './customer-messaging';
import type { OrchestratorSettings } from './deployment-settings';
import type { MediaPorts } from './media';
import { mediaDownloadOnDemand, mediaStoreOnDemand, voiceNotesOnDemand } from './media-on-demand';
import { composeOperatorPlane } from './operator-plane';
import { agentClients, type AgentEndpointPorts, turnPathDependencies } from './turn-path';

export type OrchestratorHandler = (event: SQSEvent, context: InvocationContext) => Promise<SQSBatchResponse>;

export interface OrchestratorPorts extends FunctionPorts, SenderPorts, MediaPorts, AgentEndpointPorts {
  /** The agent (or stages) to use instead of the backend the settings select. */
  readonly agent?: AgentPort | AgentStages;
  /** Turn settings to override (e.g. `promptCacheMs: 0`, so an edited prompt applies to the very next turn). */
  readonly turnSettings?: Partial<TurnSettings>;
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
      ...turnPathDependencies(settings, composed, { burstSettleMs: settings.burstSettleMs, ...ports.turnSettings }),
      agent: ports.agent ?? createAgent(settings.agent, agentClients(ports), texts),
      whatsapp: messaging.whatsapp,
      operatorCommands: plane?.loginCommand,
      handoffs: plane?.handoffs,
      consent: messaging.consent,
      media: mediaSettings && mediaStore && mediaDownloadOnDemand((media) => media.composeMediaDownload(settings.whatsApp, mediaSettings, mediaStore, composed, ports)),
      mediaStore,
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
