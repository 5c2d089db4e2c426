// Entry point of the operator function: composes the operator plane's use cases. The HTTP contract
// lives in operator-http.ts, the behaviour in core/application/operator/.
import { SQSClient } from '@aws-sdk/client-sqs';
import path from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import {
  adminAudit,
  consentRepository,
  conversationRepositories,
  crmSyncRows,
  customerDataRepository,
  demandRepository,
  operationalConfig,
  operatorAuthRepository,
  versionedResources,
} from '../core/adapters/dynamodb/dynamo-repositories';
import { composeFunction, type FunctionRuntime } from '../core/adapters/function-runtime';
import { randomIdGenerator } from '../core/adapters/system/random-id-generator';
import { createWhatsAppSender } from '../core/adapters/whatsapp/whatsapp-channel';
import { SqsDeadLetterQueue } from '../core/adapters/sqs/sqs-dead-letter-queue';
import { AdminConsole } from '../core/application/operator/admin-console';
import { RedriveDeadLetters } from '../core/application/redrive-dead-letters';
import type { DeadLetterQueue } from '../core/ports/dead-letter-queue';
import { OperatorAuditTrail } from '../core/application/operator/operator-audit';
import { OperatorConversations } from '../core/application/operator/operator-conversations';
import { OperatorDirectory } from '../core/application/operator/operator-directory';
import { OperatorSignIn } from '../core/application/operator/operator-sign-in';
import type { WhatsAppSender } from '../core/ports/whatsapp-sender';
import { adminRoutes } from './admin-routes';
import { privacyRoutes } from './privacy-routes';
import { MessagingConsent } from '../core/application/privacy/messaging-consent';
import { CustomerDataRights } from '../core/application/privacy/customer-data-rights';
import type { HttpResponse } from './http-kit';
import { createOperatorHttpHandler } from './operator-http';
import { readOperatorConfig } from './runtime-config';
import { CONSOLE_DIRECTORY_NAME, StaticConsole, type ConsoleSite } from './static-console';

export type OperatorHandler = (event: APIGatewayProxyEventV2) => Promise<HttpResponse>;

/** What the operator function needs from its surroundings; the Lambda reads it from the environment. */
export interface OperatorRuntime extends FunctionRuntime {
  readonly whatsapp: WhatsAppSender;
  readonly adminPhoneNumbers: readonly string[];
  /** The turn queue's dead-letter queue, for the admin's dead-letter calls. */
  readonly deadLetters?: DeadLetterQueue;
  /** The web console served at `/`. */
  readonly console: ConsoleSite;
}

export function createOperatorHandler(runtime: OperatorRuntime): OperatorHandler {
  const composed = composeFunction('operator', runtime);
  const { table } = composed;
  const { receipts, sessions, messages } = conversationRepositories(table);
  const config = operationalConfig(table);
  const auditRepository = adminAudit(table);
  const consents = consentRepository(table);
  const ids = runtime.ids ?? randomIdGenerator;
  const audit = new OperatorAuditTrail(auditRepository, composed.clock, ids);
  const directory = new OperatorDirectory({ config, adminPhoneNumbers: runtime.adminPhoneNumbers });
  const http = createOperatorHttpHandler({
    signIn: new OperatorSignIn({ auth: operatorAuthRepository(table), directory, audit, clock: composed.clock }),
    conversations: new OperatorConversations({ sessions, messages, receipts, config, whatsapp: runtime.whatsapp, audit, clock: composed.clock, ids, timeZone: table.operatorTimeZone, consent: new MessagingConsent({ consents, whatsapp: runtime.whatsapp }) }),
    console: runtime.console,
    extraRoutes: [
      ...adminRoutes(
        new AdminConsole({ resources: versionedResources(table), config, audit: auditRepository, demands: demandRepository(table), consents, crmSync: crmSyncRows(table), trail: audit, directory, clock: composed.clock }),
        runtime.deadLetters && { redrive: new RedriveDeadLetters({ deadLetters: runtime.deadLetters, receipts, sessions, messages }), trail: audit },
      ),
      ...privacyRoutes(new CustomerDataRights({ data: customerDataRepository(table), trail: audit, clock: composed.clock })),
    ],
    clock: composed.clock,
    logger: composed.logger,
    metrics: composed.metrics,
  });
  return (event) => composed.instrument(() => http(event));
}

let fromEnvironment: OperatorHandler | undefined;

/** The Lambda handler, composed on first use so importing this module has no side effects. */
export const handler: OperatorHandler = (event) => {
  if (fromEnvironment === undefined) {
    const config = readOperatorConfig();
    fromEnvironment = createOperatorHandler({
      tableName: config.tableName,
      adminPhoneNumbers: config.adminPhoneNumbers,
      operatorTimeZone: config.timeZone,
      whatsapp: createWhatsAppSender(config.whatsApp),
      deadLetters: new SqsDeadLetterQueue({ turnQueueUrl: config.turnQueueUrl, deadLetterQueueUrl: config.deadLetterQueueUrl, sqs: new SQSClient({}) }),
      observability: config.observability,
      // The build copies the console next to this bundle.
      console: StaticConsole.load(path.join(__dirname, CONSOLE_DIRECTORY_NAME)),
    });
  }
  return fromEnvironment(event);
};
