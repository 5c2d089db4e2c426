// Entry point of the orchestrator function: composes the turn use case from its adapters. The SQS
// contract lives in turn-handler.ts, the behaviour in core/application/process-turn.ts.
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createAgent } from '../core/adapters/agent/agent-from-environment';
import {
  consentRepository,
  conversationRepositories,
  customerBudgets,
  demandRepository,
  legacyDebounce,
  operationalConfig,
  turnLedger,
  versionedResources,
} from '../core/adapters/dynamodb/dynamo-repositories';
import { composeFunction, type FunctionRuntime } from '../core/adapters/function-runtime';
import type { OperatorPlaneEnvironment } from '../core/adapters/operator/handoff-settings-from-environment';
import { randomIdGenerator } from '../core/adapters/system/random-id-generator';
import { createWhatsAppSender } from '../core/adapters/whatsapp/whatsapp-channel';
import { MessagingConsent } from '../core/application/privacy/messaging-consent';
import { CustomerBudgetGate, type CustomerBudgetSettings } from '../core/application/customer-budget-gate';
import { ProcessTurn } from '../core/application/process-turn';
import type { TurnSettings } from '../core/application/turn-settings';
import type { AgentPort } from '../core/ports/agent';
import type { WhatsAppSender } from '../core/ports/whatsapp-sender';
import { composeOperatorPlane } from '../operator/compose-plane';
import { readOrchestratorConfig } from './runtime-config';
import { createTurnHandler, type InvocationContext } from './turn-handler';

export type OrchestratorHandler = (event: SQSEvent, context: InvocationContext) => Promise<SQSBatchResponse>;

/** What the orchestrator needs from its surroundings; the Lambda reads it from the environment. */
export interface OrchestratorRuntime extends FunctionRuntime {
  readonly whatsapp: WhatsAppSender;
  readonly agent: AgentPort;
  readonly settings?: Partial<TurnSettings>;
  /** The queue's redrive `maxReceiveCount`. @default PIPELINE_DEFAULTS.maxReceiveCount */
  readonly maxReceiveCount?: number;
  /** The system prompt set in the construct. @default - none */
  readonly deployedSystemPrompt?: string;
  /** Turns the operator plane on: WhatsApp login, handoff notifications, fallback handoff. */
  readonly operatorPlane?: OperatorPlaneEnvironment;
  /** Per-customer turn and token limits and the over-budget reply. @default DEFAULT_CUSTOMER_BUDGET */
  readonly customerBudget?: Partial<CustomerBudgetSettings>;
}

export function createOrchestratorHandler(runtime: OrchestratorRuntime): OrchestratorHandler {
  const composed = composeFunction('orchestrator', runtime);
  const { table } = composed;
  const plane = runtime.operatorPlane && composeOperatorPlane(runtime.operatorPlane, composed, runtime.whatsapp, runtime.ids ?? randomIdGenerator);
  const turns = createTurnHandler({
    processTurn: new ProcessTurn({
      ...conversationRepositories(table),
      ledger: turnLedger(table),
      legacy: legacyDebounce(table),
      demands: demandRepository(table),
      resources: versionedResources(table),
      agent: runtime.agent,
      whatsapp: runtime.whatsapp,
      clock: composed.clock,
      ids: runtime.ids ?? randomIdGenerator,
      settings: runtime.settings,
      deployedSystemPrompt: runtime.deployedSystemPrompt === undefined ? undefined : { text: runtime.deployedSystemPrompt, config: operationalConfig(table) },
      operatorCommands: plane?.loginCommand,
      handoffs: plane?.handoffs,
      consent: new MessagingConsent({ consents: consentRepository(table), whatsapp: runtime.whatsapp }),
      budget: new CustomerBudgetGate(customerBudgets(table), composed.clock, runtime.customerBudget),
    }),
    clock: composed.clock,
    logger: composed.logger,
    metrics: composed.metrics,
    maxReceiveCount: runtime.maxReceiveCount,
  });
  return (event, context) => composed.instrument(() => turns(event, context));
}

let fromEnvironment: OrchestratorHandler | undefined;

/** The Lambda handler, composed on first use so importing this module has no side effects. */
export const handler: OrchestratorHandler = (event, context) => {
  if (fromEnvironment === undefined) {
    const config = readOrchestratorConfig();
    fromEnvironment = createOrchestratorHandler({
      tableName: config.tableName,
      whatsapp: createWhatsAppSender(config.whatsApp),
      agent: createAgent(config.agent),
      maxReceiveCount: config.maxReceiveCount,
      deployedSystemPrompt: config.deployedSystemPrompt,
      observability: config.observability,
      operatorPlane: config.operatorPlane,
      operatorTimeZone: config.operatorPlane?.timeZone,
      customerBudget: config.customerBudget,
      settings: { historyMaxCharacters: config.historyMaxCharacters },
    });
  }
  return fromEnvironment(event, context);
};
