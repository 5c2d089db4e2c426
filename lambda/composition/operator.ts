import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import {
  adminAudit,
  consentRepository,
  conversationRepositories,
  crmSyncRows,
  customerDataRepository,
  demandRepository,
  messageTemplates,
  operationalConfig,
  operatorAuthRepository,
  versionedResources,
} from '../core/adapters/dynamodb/dynamo-repositories';
import { deploymentCursorKey } from '../core/adapters/dynamodb/cursor-signing-key';
import { SqsDeadLetterQueue } from '../core/adapters/sqs/sqs-dead-letter-queue';
import { AdminConsole } from '../core/application/operator/admin-console';
import { DeadLetterScreen } from '../core/application/operator/dead-letter-snapshot';
import { OperatorConversations } from '../core/application/operator/operator-conversations';
import { CustomerDataRights } from '../core/application/privacy/customer-data-rights';
import { RedriveDeadLetters } from '../core/application/redrive-dead-letters';
import { adminRoutes } from '../operator/admin-routes';
import type { HttpResponse } from '../operator/http-kit';
import { createOperatorHttpHandler } from '../operator/operator-http';
import { templateRoutes } from '../operator/template-routes';
import { createTemplateCatalog } from '../core/adapters/whatsapp/whatsapp-channel';
import { MessageTemplates } from '../core/application/message-templates';
import { privacyRoutes } from '../operator/privacy-routes';
import type { ConsoleSite } from '../operator/static-console';
import { composeFunction, type FunctionPorts } from './compose-function';
import { composeCustomerMessaging, type SenderPorts } from './customer-messaging';
import type { OperatorSettings } from './deployment-settings';
import { composeOperatorAccess } from './operator-plane';
import { turnQueueClient, type TurnQueuePorts } from './turn-queue';

export type OperatorHandler = (event: APIGatewayProxyEventV2) => Promise<HttpResponse>;

export interface OperatorPorts extends FunctionPorts, SenderPorts, TurnQueuePorts {
  /** The web console served at `/`. */
  readonly console: ConsoleSite;
}

/** The operator function: the `/api` router (operator-http.ts) on the operator plane's use cases, and the console. */
export function composeOperator(settings: OperatorSettings, ports: OperatorPorts): OperatorHandler {
  // Its cursors go to the console and may come back to another instance: the deployment's key signs them.
  const composed = composeFunction('operator', settings, ports, { cursorKey: deploymentCursorKey });
  const { table, clock, ids } = composed;
  const messaging = composeCustomerMessaging(settings.whatsApp, settings.locale, table, ports);
  const { directory, audit, signIn } = composeOperatorAccess(settings.operatorPlane, composed);
  const { receipts, sessions, messages } = conversationRepositories(table);
  const config = operationalConfig(table);
  const deadLetters = new SqsDeadLetterQueue({ turnQueueUrl: settings.turnQueueUrl, deadLetterQueueUrl: settings.deadLetterQueueUrl, sqs: turnQueueClient(composed, ports) });
  const deadLetterScreen = new DeadLetterScreen({ redrive: new RedriveDeadLetters({ deadLetters, receipts, sessions, messages }), config, trail: audit, clock });
  const http = createOperatorHttpHandler({
    signIn,
    conversations: new OperatorConversations({ sessions, messages, receipts, config, templates: messageTemplates(table), whatsapp: messaging.whatsapp, audit, clock, ids, timeZone: table.operatorTimeZone, consent: messaging.consent }),
    console: ports.console,
    extraRoutes: [
      ...adminRoutes(
        new AdminConsole({
          resources: versionedResources(table),
          config,
          audit: adminAudit(table),
          demands: demandRepository(table),
          consents: consentRepository(table),
          crmSync: crmSyncRows(table),
          messages,
          trail: audit,
          directory,
          auth: operatorAuthRepository(table),
          templates: messageTemplates(table),
          clock,
        }),
        deadLetterScreen,
      ),
      ...templateRoutes(new MessageTemplates({ templates: messageTemplates(table), catalog: createTemplateCatalog(settings.whatsApp, ports), clock }), audit),
      ...privacyRoutes(new CustomerDataRights({ data: customerDataRepository(table), trail: audit, clock, deadLetters }), deadLetterScreen),
    ],
    clock,
    logger: composed.logger,
    metrics: composed.metrics,
  });
  return (event) => composed.instrument(() => http(event));
}
