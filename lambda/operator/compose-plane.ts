import type { OperatorPlaneEnvironment } from '../core/adapters/operator/handoff-settings-from-environment';
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
export function composeOperatorPlane(plane: OperatorPlaneEnvironment, composed: Pick<ComposedFunction, 'repositories' | 'clock'>, whatsapp: WhatsAppSender, ids: IdGenerator): ComposedOperatorPlane {
  const { config, operatorAuth, audit: auditRepository, sessions, messages, receipts, consents } = composed.repositories;
  const directory = new OperatorDirectory({ config, adminPhoneNumbers: plane.adminPhoneNumbers });
  const audit = new OperatorAuditTrail(auditRepository, composed.clock, ids);
  const signIn = new OperatorSignIn({ auth: operatorAuth, directory, audit, clock: composed.clock });
  return {
    directory,
    audit,
    signIn,
    loginCommand: new OperatorLoginCommand({ signIn, whatsapp, consoleUrl: plane.consoleUrl }),
    handoffs: new HandoffLifecycle({ sessions, messages, receipts, config, directory, whatsapp, clock: composed.clock, ids, settings: plane, consent: new MessagingConsent({ consents, whatsapp }) }),
  };
}
