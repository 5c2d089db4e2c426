import type { OperatorPlaneEnvironment } from '../core/adapters/operator/handoff-settings-from-environment';
import { adminAudit, consentRepository, conversationRepositories, operationalConfig, operatorAuthRepository } from '../core/adapters/dynamodb/dynamo-repositories';
import type { ComposedFunction } from '../core/adapters/function-runtime';
import { HandoffLifecycle } from '../core/application/operator/handoff-lifecycle';
import { OperatorAuditTrail } from '../core/application/operator/operator-audit';
import { OperatorDirectory } from '../core/application/operator/operator-directory';
import { OperatorLoginCommand } from '../core/application/operator/operator-login-command';
import { MessagingConsent } from '../core/application/privacy/messaging-consent';
import { OperatorSignIn } from '../core/application/operator/operator-sign-in';
import type { IdGenerator } from '../core/ports/clock';
import type { WhatsAppSender } from '../core/ports/whatsapp-sender';

export interface ComposedOperatorPlane {
  readonly directory: OperatorDirectory;
  readonly audit: OperatorAuditTrail;
  readonly signIn: OperatorSignIn;
  readonly loginCommand: OperatorLoginCommand;
  readonly handoffs: HandoffLifecycle;
}

/** The operator plane's use cases on a function's repositories (orchestrator, sweeper). */
export function composeOperatorPlane(plane: OperatorPlaneEnvironment, composed: Pick<ComposedFunction, 'table' | 'clock'>, whatsapp: WhatsAppSender, ids: IdGenerator): ComposedOperatorPlane {
  const config = operationalConfig(composed.table);
  const directory = new OperatorDirectory({ config, adminPhoneNumbers: plane.adminPhoneNumbers });
  const audit = new OperatorAuditTrail(adminAudit(composed.table), composed.clock, ids);
  const signIn = new OperatorSignIn({ auth: operatorAuthRepository(composed.table), directory, audit, clock: composed.clock });
  return {
    directory,
    audit,
    signIn,
    loginCommand: new OperatorLoginCommand({ signIn, whatsapp, consoleUrl: plane.consoleUrl }),
    handoffs: new HandoffLifecycle({ ...conversationRepositories(composed.table), config, directory, whatsapp, clock: composed.clock, ids, settings: plane, consent: new MessagingConsent({ consents: consentRepository(composed.table), whatsapp }) }),
  };
}
