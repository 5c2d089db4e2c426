// Entry point of the orchestrator function: composes the turn use case from its adapters. The SQS
// contract lives in turn-handler.ts, the behaviour in core/application/process-turn.ts.
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { OPERATOR_ENV, parseAdminPhoneNumbers } from '../../lib/private/operator-contract';
import { PIPELINE_DEFAULTS, RUNTIME_ENV } from '../../lib/private/pipeline-contract';
import { agentFromEnvironment } from '../core/adapters/agent/agent-from-environment';
import { tableNameFromEnvironment } from '../core/adapters/dynamodb/dynamo-repositories';
import { composeFunction, type ComposedFunction, type FunctionRuntime } from '../core/adapters/function-runtime';
import { SecretsManagerCredentialsProvider } from '../core/adapters/secrets/secrets-manager-credentials';
import { randomIdGenerator } from '../core/adapters/system/random-id-generator';
import { GraphApiWhatsAppSender } from '../core/adapters/whatsapp/graph-api-sender';
import { OperatorAuditTrail } from '../core/application/operator/operator-audit';
import { OperatorDirectory } from '../core/application/operator/operator-directory';
import { OperatorLoginCommand } from '../core/application/operator/operator-login-command';
import { OperatorSignIn } from '../core/application/operator/operator-sign-in';
import { ProcessTurn, type TurnSettings } from '../core/application/process-turn';
import type { AgentPort } from '../core/ports/agent';
import type { WhatsAppSender } from '../core/ports/whatsapp-sender';
import { createTurnHandler, type InvocationContext } from './turn-handler';

export type OrchestratorHandler = (event: SQSEvent, context: InvocationContext) => Promise<SQSBatchResponse>;

/** What the orchestrator needs from its surroundings; the Lambda reads it from the environment. */
export interface OrchestratorRuntime extends FunctionRuntime {
  readonly whatsapp: WhatsAppSender;
  readonly agent: AgentPort;
  readonly settings?: Partial<TurnSettings>;
  /** The queue's redrive `maxReceiveCount`. @default PIPELINE_DEFAULTS.maxReceiveCount */
  readonly maxReceiveCount?: number;
  /** Turns the operator plane's WhatsApp login on. */
  readonly operatorPlane?: OrchestratorOperatorPlane;
}

export interface OrchestratorOperatorPlane {
  readonly adminPhoneNumbers: readonly string[];
  /** The operator function's URL, put into login links. */
  readonly consoleUrl: string;
}

export function createOrchestratorHandler(runtime: OrchestratorRuntime): OrchestratorHandler {
  const composed = composeFunction('orchestrator', runtime);
  const { receipts, sessions, messages, demands, resources } = composed.repositories;
  const turns = createTurnHandler({
    processTurn: new ProcessTurn({
      receipts,
      sessions,
      messages,
      demands,
      resources,
      agent: runtime.agent,
      whatsapp: runtime.whatsapp,
      clock: composed.clock,
      ids: runtime.ids ?? randomIdGenerator,
      settings: runtime.settings,
      operatorCommands: runtime.operatorPlane && operatorLoginCommand(runtime.operatorPlane, composed, runtime),
    }),
    logger: composed.logger,
    metrics: composed.metrics,
    maxReceiveCount: runtime.maxReceiveCount,
  });
  return (event, context) => composed.instrument(() => turns(event, context));
}

function operatorLoginCommand(plane: OrchestratorOperatorPlane, composed: ComposedFunction, runtime: OrchestratorRuntime): OperatorLoginCommand {
  const { config, operatorAuth, audit } = composed.repositories;
  const directory = new OperatorDirectory({ config, adminPhoneNumbers: plane.adminPhoneNumbers });
  const signIn = new OperatorSignIn({ auth: operatorAuth, directory, audit: new OperatorAuditTrail(audit, composed.clock, runtime.ids ?? randomIdGenerator), clock: composed.clock });
  return new OperatorLoginCommand({ signIn, whatsapp: runtime.whatsapp, consoleUrl: plane.consoleUrl });
}

/** The operator plane as the construct configures it, when it is on. */
function operatorPlaneFromEnvironment(environment: NodeJS.ProcessEnv = process.env): OrchestratorOperatorPlane | undefined {
  const adminPhoneNumbers = parseAdminPhoneNumbers(environment[OPERATOR_ENV.adminPhoneNumbers]);
  const consoleUrl = environment[OPERATOR_ENV.consoleUrl];
  return adminPhoneNumbers.length > 0 && consoleUrl ? { adminPhoneNumbers, consoleUrl } : undefined;
}

let fromEnvironment: OrchestratorHandler | undefined;

/** The Lambda handler, composed on first use so importing this module has no side effects. */
export const handler: OrchestratorHandler = (event, context) => {
  fromEnvironment ??= createOrchestratorHandler({
    tableName: tableNameFromEnvironment(),
    whatsapp: GraphApiWhatsAppSender.fromEnvironment(SecretsManagerCredentialsProvider.fromEnvironment()),
    agent: agentFromEnvironment(),
    maxReceiveCount: Number(process.env[RUNTIME_ENV.maxReceiveCount] ?? PIPELINE_DEFAULTS.maxReceiveCount),
    operatorPlane: operatorPlaneFromEnvironment(),
    operatorTimeZone: process.env[OPERATOR_ENV.timeZone] || undefined,
  });
  return fromEnvironment(event, context);
};
