import { MEDIA_DEFAULTS } from '../../lib/contract';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import {
  adminAudit,
  consentRepository,
  evaluationRuns,
  pipelineBudget,
  conversationRepositories,
  crmSyncRows,
  customerDataRepository,
  demandRepository,
  inboxVersion,
  messageTemplates,
  operationalConfig,
  operatorAuthRepository,
  operatorNotes,
  handoffReport,
  turnCheckpoints,
  versionedResources,
} from '../core/adapters/dynamodb/dynamo-repositories';
import { deploymentCursorKey } from '../core/adapters/dynamodb/cursor-signing-key';
import { SqsDeadLetterQueue } from '../core/adapters/sqs/sqs-dead-letter-queue';
import { AdminConsole, metaRatesInForce, modelPricesInForce } from '../core/application/operator/admin-console';
import { DeadLetterScreen } from '../core/application/operator/dead-letter-snapshot';
import { ConversationOwnership } from '../core/application/operator/conversation-ownership';
import { OperatorAvailability } from '../core/application/operator/operator-availability';
import { OperatorInbox } from '../core/application/operator/operator-inbox';
import { OperatorReplies } from '../core/application/operator/operator-replies';
import { OperatorNotes } from '../core/application/operator/operator-notes';
import { QuickReplies } from '../core/application/operator/quick-replies';
import { CustomerDataRights } from '../core/application/privacy/customer-data-rights';
import { CustomerTranscriptionJobs } from '../core/application/transcription-jobs';
import { RedriveDeadLetters } from '../core/application/redrive-dead-letters';
import { adminRoutes } from '../operator/admin-routes';
import { evaluationRoutes } from '../operator/evaluation-routes';
import { PromptDrafts } from '../core/application/evaluation/prompt-drafts';
import { ScenarioSuite } from '../core/application/evaluation/scenario-suite';
import type { EvaluationLauncher } from '../core/ports/evaluation';
import { lambdaEvaluationLauncher } from '../core/adapters/evaluation/lambda-evaluation-launcher';
import { lambdaInvoke } from '../core/adapters/lambda/lambda-invoke';
import { credentialProvider } from '../core/adapters/aws/aws-identity';
import { noteRoutes } from '../operator/note-routes';
import { traceRoutes } from '../operator/trace-routes';
import { quickReplyRoutes } from '../operator/quick-reply-routes';
import type { HttpResponse } from '../operator/http-kit';
import { createOperatorHttpHandler } from '../operator/operator-http';
import { templateRoutes } from '../operator/template-routes';
import { createTemplateCatalog } from '../core/adapters/whatsapp/whatsapp-channel';
import { MessageTemplates } from '../core/application/message-templates';
import { privacyRoutes } from '../operator/privacy-routes';
import { mediaRoutes } from '../operator/media-routes';
import { attachmentRoutes } from '../operator/attachment-routes';
import { conversationScenarioRoutes } from '../operator/conversation-scenario-routes';
import { ConversationScenarios } from '../core/application/evaluation/conversation-scenario';
import { OperatorMedia } from '../core/application/operator/operator-media';
import type { MediaStore } from '../core/ports/media-store';
import type { ConsoleSite } from '../operator/static-console';
import type { MediaPorts } from './media';
import { mediaLinkOrigin, mediaStoreOnDemand } from './media-on-demand';
import { scenarioParserOnDemand } from './scenario-format-on-demand';
import { composeFunction, type FunctionPorts } from './compose-function';
import { composeCustomerMessaging, type SenderPorts } from './customer-messaging';
import type { OperatorSettings } from './deployment-settings';
import { composeOperatorAccess } from './operator-plane';
import { turnQueueClient, type TurnQueuePorts } from './turn-queue';
import { composeTranscriber } from './transcription-jobs';

export type OperatorHandler = (event: APIGatewayProxyEventV2) => Promise<HttpResponse>;

export interface OperatorPorts extends FunctionPorts, SenderPorts, TurnQueuePorts, MediaPorts {
  /** The web console served at `/`. */
  readonly console: ConsoleSite;
  /**
   * The media bucket, and the origin of its presigned links (`https://host`), instead of the
   * deployment's bucket (`settings.media`): with either, operators
   * open the attachments of the conversations they may read, and the console shows them.
   * @default - no attachment routes
   */
  readonly media?: { readonly store: MediaStore; readonly origin: string };
  /**
   * Where the prompt gate's runs are played instead of the evaluator function (the local runtime's
   * evaluator, in process).
   * @default - the deployment's evaluator function, invoked asynchronously
   */
  readonly evaluations?: EvaluationLauncher;
}

/** The operator function: the `/api` router (operator-http.ts) on the operator plane's use cases, and the console. */
export function composeOperator(settings: OperatorSettings, ports: OperatorPorts): OperatorHandler {
  // Its cursors go to the console and may come back to another instance: the deployment's key signs them.
  const composed = composeFunction('operator', settings, ports, { cursorKey: deploymentCursorKey });
  const { table, clock, ids } = composed;
  const mediaSettings = settings.media;
  const media = ports.media ?? (mediaSettings && { store: mediaStoreOnDemand((composition) => composition.composeMediaStore(mediaSettings, composed, ports)), origin: mediaLinkOrigin(mediaSettings, ports) });
  const messaging = composeCustomerMessaging(settings.whatsApp, settings.locale, table, media === undefined ? ports : { ...ports, outboundMedia: { store: media.store, bucketName: mediaSettings?.bucketName } });
  const { directory, audit, signIn } = composeOperatorAccess(settings.operatorPlane, composed);
  const { receipts, sessions, messages } = conversationRepositories(table);
  const config = operationalConfig(table);
  const deadLetters = new SqsDeadLetterQueue({ turnQueueUrl: settings.turnQueueUrl, deadLetterQueueUrl: settings.deadLetterQueueUrl, sqs: turnQueueClient(ports) });
  const inbox = new OperatorInbox({ sessions, messages, clock, inboxVersion: inboxVersion(table), operators: directory, metaRates: () => metaRatesInForce(config), modelPrices: () => modelPricesInForce(config) });
  const replies = new OperatorReplies({ sessions, messages, operators: directory, receipts, templates: messageTemplates(table), whatsapp: messaging.whatsapp, audit, clock, ids, consent: messaging.consent, attachments: media?.store });
  // With media.transcription, a customer's voice-note jobs are erased with them.
  const transcriptions = mediaSettings?.transcription && new CustomerTranscriptionJobs(composeTranscriber(ports), (customerId) => audit.pseudonyms.of(customerId));
  const resources = versionedResources(table);
  const suite = new ScenarioSuite({ resources, trail: audit, parseScenarios: scenarioParserOnDemand });
  const launcher = ports.evaluations ?? lambdaEvaluationLauncher(settings.evaluatorFunctionName, lambdaInvoke({ credentials: credentialProvider(ports.awsCredentials) }));
  const drafts = new PromptDrafts({ resources, runs: evaluationRuns(table), suite, launcher, trail: audit, clock, ids });
  const deadLetterScreen = new DeadLetterScreen({ redrive: new RedriveDeadLetters({ deadLetters, receipts, sessions, messages }), config, trail: audit, clock });
  const http = createOperatorHttpHandler({
    signIn,
    inbox,
    ownership: new ConversationOwnership({ sessions, messages, clock, audit, operators: directory }),
    replies,
    availability: new OperatorAvailability({ config, audit, clock, timeZone: table.operatorTimeZone }),
    console: ports.console,
    extraRoutes: [
      ...traceRoutes(turnCheckpoints(table)),
      ...noteRoutes(new OperatorNotes({ conversations: inbox, notes: operatorNotes(table), audit, clock, ids })),
      ...quickReplyRoutes(new QuickReplies({ config, audit, clock })),
      ...adminRoutes(
        new AdminConsole({
          resources,
          config,
          audit: adminAudit(table),
          demands: demandRepository(table),
          consents: consentRepository(table),
          crmSync: crmSyncRows(table),
          messages,
          handoffs: handoffReport(table),
          trail: audit,
          directory,
          auth: operatorAuthRepository(table),
          templates: messageTemplates(table),
          budget: pipelineBudget(table),
          promptGate: drafts,
          clock,
        }),
        deadLetterScreen,
      ),
      ...evaluationRoutes(drafts, suite),
      ...templateRoutes(new MessageTemplates({ templates: messageTemplates(table), catalog: createTemplateCatalog(settings.whatsApp, ports), clock }), audit),
      ...privacyRoutes(new CustomerDataRights({ data: customerDataRepository(table), trail: audit, clock, deadLetters, media: media?.store, transcriptions }), deadLetterScreen),
      ...(media === undefined ? [] : mediaRoutes(new OperatorMedia({ sessions, messages, media: media.store, clock }))),
      ...(media === undefined ? [] : attachmentRoutes(replies, settings.media?.limits ?? { maxBytes: MEDIA_DEFAULTS.maxBytes, allowedMimeTypes: MEDIA_DEFAULTS.allowedMimeTypes })),
      ...conversationScenarioRoutes(new ConversationScenarios({ sessions, messages, trail: audit, locale: settings.locale })),
    ],
    mediaOrigin: media?.origin,
    clock,
    logger: composed.logger,
    metrics: composed.metrics,
  });
  return (event) => composed.instrument(() => http(event));
}
