import { AGENT_BACKEND_KINDS, localePreset, PIPELINE_DEFAULTS } from '../../lib/contract';
import { type AgentSettings, createAgent, singleAgentSettingsOf } from '../core/adapters/agent/agent-backend';
import type { ConverseCall } from '../core/adapters/agent/bedrock-converse-agent';
import { evaluationCustomerId } from '../core/adapters/dynamodb/keys';
import { conversationRepositories, customerDataRepository, handoffReport, inboundRepositories } from '../core/adapters/dynamodb/dynamo-repositories';
import { DynamoEvaluationCleanup } from '../core/adapters/dynamodb/evaluation-cleanup';
import { withDraftPrompt } from '../core/application/evaluation/draft-prompt';
import type { PromptDraftText } from '../core/application/evaluation/play-evaluations';
import { RecordingEvaluationStage } from '../core/adapters/evaluation/evaluation-stage';
import { lambdaInvoke, type LambdaInvoke } from '../core/adapters/lambda/lambda-invoke';
import { RunScenarios } from '../core/application/evaluation/run-scenarios';
import { ProcessTurn } from '../core/application/process-turn';
import { RegisterInboundTurns } from '../core/application/register-inbound';
import type { TurnSettings } from '../core/application/turn-settings';
import type { EvaluationJudge } from '../core/ports/evaluation';
import { type ComposedFunction, composeFunction } from './compose-function';
import { composeCustomerMessaging } from './customer-messaging';
import type { EvaluatorSettings } from './deployment-settings';
import { agentClients, type AgentEndpointPorts, turnPathDependencies } from './turn-path';

/** The business number evaluation conversations are with: a Meta-shaped id no deployment sends from (nothing is sent). */
export const EVALUATION_BUSINESS_NUMBER = '100000000000000';

export interface EvaluationPorts extends AgentEndpointPorts {
  /** A prompt to play as this text instead of its current version (a draft of the console's gate). */
  readonly promptDraft?: PromptDraftText;
  /** Erase each scenario's customer once played: on a deployment's table. Default: kept (a table of the run's own). */
  readonly eraseScenarios?: boolean;
  /** The model call to use instead of Bedrock's (the local runtime's fake). */
  readonly converse?: ConverseCall;
  /** Grades the scenarios' rubric checks. Default: none, and a rubric fails for want of a judge. */
  readonly judge?: EvaluationJudge;
  /** Turn settings to override (e.g. `promptCacheMs: 0`, so a run reads the prompt as it is now). */
  readonly turnSettings?: Partial<TurnSettings>;
}

/**
 * The scenario runner of a deployment (docs/EVALUATION.md#how-a-scenario-runs): the orchestrator's
 * turn use case on the same table, prompts, stages, gates and agent adapter, with the edges that
 * would reach people swapped for the evaluation stage — a sender that records, consumer tools that
 * answer from the scenario's recordings, no operator notice, no budget of a customer's — and each
 * scenario played as a customer of the evaluation key space (keys.ts).
 */
export function composeEvaluation(settings: EvaluatorSettings, ports: EvaluationPorts = {}): RunScenarios {
  return evaluationRunners(settings, composeEvaluationFunction('evaluation', settings, ports), ports)(ports.promptDraft);
}

/** The function an evaluation runs in: its sessions never project to the CRM, whatever the deployment's `crmSync`. */
export function composeEvaluationFunction(name: string, settings: EvaluatorSettings, ports: EvaluationPorts): ComposedFunction {
  return composeFunction(name, { ...settings, crmSyncEnabled: false }, ports);
}

/**
 * The runners of one composition: each call a runner on the current prompts, or with a draft
 * answering as one prompt, which then also never adopts the construct's prompts (the draft run
 * writes no prompt version).
 */
export function evaluationRunners(settings: EvaluatorSettings, composed: ComposedFunction, ports: EvaluationPorts): (draft?: PromptDraftText) => RunScenarios {
  const { table, clock, ids } = composed;
  const { texts, consentWords } = localePreset(settings.locale);
  const inbound = inboundRepositories(table);
  // The runner plays each turn itself, right after its registration: nothing is queued.
  const register = new RegisterInboundTurns({ ...inbound, dispatcher: { dispatch: async () => undefined }, consentWords });
  const stage = new RecordingEvaluationStage(register, EVALUATION_BUSINESS_NUMBER, clock, ids);
  const clients = agentClients(ports);
  const agent = createAgent(settings.agent, { ...clients, ...(ports.converse && { converse: ports.converse }), invoke: toolsAnsweredBy(stage.invoke, settings.agent, clients.invoke ?? lambdaInvoke()) }, texts);
  const messaging = composeCustomerMessaging(settings.whatsApp, settings.locale, table, { whatsapp: stage.sender });
  // A scenario plays one message at a time and waits for its answer: there is never a burst to settle.
  const turnSettings = { burstSettleMs: 0, ...ports.turnSettings };
  const turnPath = turnPathDependencies(settings, composed, turnSettings);
  const cleanup = ports.eraseScenarios ? new DynamoEvaluationCleanup(customerDataRepository(table), handoffReport(table)) : undefined;
  return (draft) => new RunScenarios({
    turns: new ProcessTurn({
      ...turnPath,
      ...(draft && { resources: withDraftPrompt(turnPath.resources, draft), deployedSystemPrompt: undefined, deployedStagePrompts: undefined }),
      // A scenario's out-of-portfolio demand is seen in its tool calls, never listed among the customers' demands.
      demands: { record: async () => true, listRecent: async () => ({ items: [] }) },
      agent: stage.observe(agent),
      whatsapp: stage.sender,
      consent: messaging.consent,
    }),
    stage,
    sessions: conversationRepositories(table).sessions,
    judge: ports.judge,
    clock,
    ids,
    locale: settings.locale,
    customerIdOf: evaluationCustomerId,
    businessPhoneNumberId: EVALUATION_BUSINESS_NUMBER,
    turnTimeoutMs: PIPELINE_DEFAULTS.orchestratorTimeoutSeconds * 1000,
    cleanup,
  });
}

/** Invokes of the consumer tools' functions go to the recordings; any other (a consumer's agent function) to Lambda. */
function toolsAnsweredBy(recorded: LambdaInvoke, agent: AgentSettings, other: LambdaInvoke): LambdaInvoke {
  const toolFunctions = new Set(singleAgentSettingsOf(agent).flatMap((single) => (single.backend === AGENT_BACKEND_KINDS.bedrock ? (single.tools ?? []).map((tool) => tool.functionName) : [])));
  return (input, options) => (toolFunctions.has(input.FunctionName) ? recorded(input, options) : other(input, options));
}
