import { type Locale, localePreset } from '../../lib/contract';
import { adminAudit, conversationRepositories, customerDataRepository, handoffReport, messageTemplates, operationalConfig, operatorAuthRepository } from '../core/adapters/dynamodb/dynamo-repositories';
import { DynamoEvaluationCleanup } from '../core/adapters/dynamodb/evaluation-cleanup';
import { HandoffLifecycle } from '../core/application/operator/handoff-lifecycle';
import { OperatorAuditTrail } from '../core/application/operator/operator-audit';
import { OperatorDirectory } from '../core/application/operator/operator-directory';
import { OperatorLoginCommand } from '../core/application/operator/operator-login-command';
import { OperatorSignIn } from '../core/application/operator/operator-sign-in';
import { CustomerPseudonyms } from '../core/application/privacy/customer-pseudonyms';
import type { ComposedFunction } from './compose-function';
import type { CustomerMessaging } from './customer-messaging';
import type { OperatorAccessSettings, OperatorPlaneSettings } from './deployment-settings';

/** Who may sign in, and the trail of what they do: what every function of the operator plane shares. */
export interface OperatorAccess {
  readonly directory: OperatorDirectory;
  readonly audit: OperatorAuditTrail;
  readonly signIn: OperatorSignIn;
}

/** The access, with the `login` command that sends console links and the handoff lifecycle that tells people. */
export interface OperatorPlane extends OperatorAccess {
  readonly loginCommand: OperatorLoginCommand;
  readonly handoffs: HandoffLifecycle;
}

type FunctionSurroundings = Pick<ComposedFunction, 'table' | 'clock' | 'ids'>;

/**
 * The operator plane's access, for the operator function (it serves the console, so it neither
 * links to it nor notifies handoffs) and for the local runtime's login links.
 */
export function composeOperatorAccess(settings: OperatorAccessSettings, on: FunctionSurroundings): OperatorAccess {
  const directory = new OperatorDirectory({ config: operationalConfig(on.table), adminPhoneNumbers: settings.adminPhoneNumbers, adminDisplayNames: settings.adminDisplayNames });
  const audit = new OperatorAuditTrail(adminAudit(on.table), on.clock, on.ids, new CustomerPseudonyms(customerDataRepository(on.table)));
  return { directory, audit, signIn: new OperatorSignIn({ auth: operatorAuthRepository(on.table), directory, audit, clock: on.clock }) };
}

/** The whole operator plane, for the orchestrator and the handoff sweeper; login links in the locale's words. */
export function composeOperatorPlane(settings: OperatorPlaneSettings, locale: Locale, on: FunctionSurroundings & CustomerMessaging): OperatorPlane {
  const access = composeOperatorAccess(settings, on);
  return {
    ...access,
    loginCommand: new OperatorLoginCommand({ signIn: access.signIn, whatsapp: on.whatsapp, consoleUrl: settings.consoleUrl, linkText: localePreset(locale).texts.loginLink }),
    handoffs: new HandoffLifecycle({
      ...conversationRepositories(on.table),
      config: operationalConfig(on.table),
      templates: messageTemplates(on.table),
      directory: access.directory,
      whatsapp: on.whatsapp,
      clock: on.clock,
      ids: on.ids,
      settings,
      consent: on.consent,
      leftovers: new DynamoEvaluationCleanup(customerDataRepository(on.table), handoffReport(on.table)),
    }),
  };
}
