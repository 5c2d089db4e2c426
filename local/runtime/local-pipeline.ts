import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { PIPELINE_DEFAULTS, WHATSAPP_CHANNEL_KINDS, physicalNames } from '../../lib/contract';
import type { KeyLayout } from '../../lib/contract/key-layout';
import { composeFunction } from '../../lambda/composition/compose-function';
import { composeCrmSync } from '../../lambda/composition/crm-sync';
import { composeEndUserMessagingInbound } from '../../lambda/composition/eum-inbound';
import { SignedSqs } from '../../lambda/core/adapters/sqs/sqs-api';
import { composeHandoffSweeperRuns } from '../../lambda/composition/handoff-sweeper';
import type { TemplateSyncReport } from '../../lambda/core/application/message-templates';
import { composeIdleSweeper, type IdleSweeperReport } from '../../lambda/composition/idle-sweeper';
import { composeOperator, type OperatorHandler } from '../../lambda/composition/operator';
import { composeOperatorAccess } from '../../lambda/composition/operator-plane';
import { composeOrchestrator } from '../../lambda/composition/orchestrator';
import { SETTINGS_READERS } from '../../lambda/composition/read-settings';
import { composeWebhook } from '../../lambda/composition/webhook';
import { StaticCredentialsProvider } from '../../lambda/core/adapters/secrets/static-credentials-provider';
import type { SweepReport } from '../../lambda/core/application/operator/handoff-lifecycle';
import type { CrmSyncRunReport } from '../../lambda/core/application/sync-crm-projections';
import { StaticConsole } from '../../lambda/operator/static-console';
import { FakeSecretsManager } from '../fake-aws/fake-secrets-manager';
import { FakeTranscribe } from '../fake-aws/fake-transcribe';
import { FakeKnowledgeBase } from '../fake-bedrock/fake-knowledge-base';
import { FakeCrm } from '../fake-crm/fake-crm';
import { FakeEndUserMessaging } from '../fake-whatsapp/fake-end-user-messaging';
import { FakeGraphApi } from '../fake-whatsapp/fake-graph-api';
import { createAgentTable, createMediaBucket, createTurnQueues } from '../servers/local-resources';
import { assertPortFree, startDynamoDbLocal, startSqsEmulator } from '../servers/local-servers';
import { Cleanup } from './cleanup';
import { ConversationInspector, type ConversationSnapshot } from './conversation-inspector';
import { deliverToEventTopic, LOCAL_ORIGINATION_PHONE_NUMBER_ID, publishNotification } from './end-user-messaging-event';
import { startFunctionUrlServer, type FunctionUrlServer } from './function-url-server';
import type { LocalChannel, LocalPipelineOptions, LogLevel, SendCustomerMessageOptions } from './local-pipeline-options';
import { type PipelinePrincipal, principalCredentials } from './function-principals';
import { isScriptedOnly, LOCAL_SECRET_ARNS, localAgent, startAgentStandIns, localDeploymentVariant, localLogLevel, localPlan } from './local-plan';
import { deliverToWebhook, LOCAL_BUSINESS, postSignedNotification, type CustomerTextMessage, type MetaMessageContent, type WebhookDelivery } from './meta-notification';
import { SqsEventSource } from './sqs-event-source';
import { localEvaluationLauncher } from './local-evaluator';

/**
 * The webhook's bounds on each table and queue call when it runs on this machine (here and in the
 * suites): DynamoDB Local on a busy laptop, behind the suites' permission check, answers far slower
 * than DynamoDB, and the deployed bounds would turn that into 5xx.
 */
export const LOCAL_WEBHOOK_REQUEST_TIMEOUTS = { connectionTimeoutMs: 5_000, requestTimeoutMs: 30_000, maxAttempts: 3 } as const;

export type { LocalChannel, LocalCrmSyncOptions, LocalPipelineOptions, LocalPipelinePorts, SendCustomerMessageOptions } from './local-pipeline-options';

export interface LocalPipeline {
  readonly channel: LocalChannel;
  /** The webhook's Function URL (Cloud API channel only). */
  readonly webhookUrl?: string;
  /** The fake End User Messaging endpoint (End User Messaging channel only). */
  readonly endUserMessagingEndpoint?: string;
  /** The operator function's URL (console and `/api/`), when `adminPhoneNumbers` turned the plane on. */
  readonly consoleUrl?: string;
  /**
   * One run of the handoff sweeper (deployed, a schedule runs it every minute); each call is a
   * fresh sweeper instance, so concurrent calls behave like concurrent Lambda invocations.
   */
  sweepHandoffs(): Promise<SweepReport>;
  /** Runs the handoff sweeper as the template sync schedule does: the fake Graph API's templates into the table (operator plane only). */
  syncTemplates(): Promise<TemplateSyncReport>;
  /**
   * One run of the idle sweeper (deployed, a schedule runs it every 15 minutes): closes the
   * conversations the agent serves that went quiet for `idleSweep.idleTimeoutMs`.
   */
  sweepIdleConversations(): Promise<IdleSweeperReport>;
  /** A ready one-time console link for an operator, as the `login` WhatsApp message would get (operator plane only). */
  loginLink(operatorPhone: string): Promise<string>;
  /** The name the operators list (or `adminDisplayNames`) gives an operator, if any (operator plane only). */
  operatorName(operatorPhone: string): Promise<string | undefined>;
  /** Signs the webhook's POSTs (what Meta calls the app secret). */
  readonly appSecret: string;
  /** Answers the webhook's verification handshake. */
  readonly verifyToken: string;
  /** Records every reply the pipeline sends; can be told to fail. */
  readonly fakeWhatsApp: FakeGraphApi;
  /** Records what the CRM sync worker sent; can be told to fail, time out or refuse (with `crmSync` only). */
  readonly fakeCrm?: FakeCrm;
  /** One run of the CRM sync worker against the fake CRM (with `crmSync` only). */
  syncCrm(): Promise<CrmSyncRunReport>;
  readonly tableName: string;
  /** The key layout every function writes and reads: the construct's default unless the options name another. */
  readonly keyLayout: KeyLayout;
  readonly turnQueueUrl: string;
  readonly deadLetterQueueUrl: string;
  /** The media bucket on the local S3 server (`endpoints.s3`), unless `media` is false. */
  readonly mediaBucketName?: string;
  /** The fake Amazon Transcribe the orchestrator transcribes voice notes with (with `transcription` only). */
  readonly fakeTranscribe?: FakeTranscribe;
  /** The fake knowledge base the agent searches (with `knowledgeDocuments` only). */
  readonly fakeKnowledgeBase?: FakeKnowledgeBase;
  readonly endpoints: { readonly dynamoDb: string; readonly sqs: string; readonly s3: string };
  /** Children this pipeline started (DynamoDB Local, SQS emulator), by PID. */
  readonly childPids: readonly number[];
  /** A client bound to the pipeline's SQS endpoint (inspect the queues, the DLQ). */
  readonly sqsClient: SQSClient;
  /** The customer's active session and its history, read through the pipeline's repositories. */
  conversation(customerId: string): Promise<ConversationSnapshot>;
  /** Signs and POSTs a customer's text message to the webhook, as Meta would. */
  sendCustomerMessage(customerId: string, text: string, options?: SendCustomerMessageOptions): Promise<{ status: number; messageId: string }>;
  /** Signs and POSTs a customer's message of any type (an image, a document, a reaction…), as Meta would. */
  sendCustomerContent(customerId: string, content: MetaMessageContent, options?: SendCustomerMessageOptions): Promise<{ status: number; messageId: string }>;
  /** Several messages in ONE notification (Meta batches bursts). */
  sendCustomerMessages(customerId: string, texts: readonly string[]): Promise<WebhookDelivery>;
  /** Resolves once the queue is empty and no orchestrator invocation is running. */
  waitForIdle(timeoutMs?: number): Promise<void>;
  /** Stops the poller, the HTTP servers and every child process it started; restores the process env. */
  stop(): Promise<void>;
}

/**
 * The whole pipeline on this machine: DynamoDB Local and the SQS emulator (started, or reused),
 * the table and both queues created from the construct's own definitions, the webhook behind a
 * local Function URL, the orchestrator behind a local SQS event source mapping, the fake WhatsApp
 * Graph API, and the scripted agent unless another is configured. The functions are composed as
 * in Lambda: each reads what the plan the construct's writer makes of the options tells it.
 */
export async function startLocalPipeline(options: LocalPipelineOptions = {}): Promise<LocalPipeline> {
  const env = options.env ?? process.env;
  const names = physicalNames(options.serviceName ?? PIPELINE_DEFAULTS.serviceName, options.environment ?? 'local');
  // Read before anything starts, so an agent `AGENT_BACKEND` misconfigures fails first.
  const agent = localAgent(options, env);
  const ports = options.ports ?? {};
  // Checked up front, so a taken port is reported clearly before anything starts.
  for (const port of [ports.webhook, ports.whatsApp, ports.console]) if (port !== undefined) await assertPortFree(port);
  const cleanup = new Cleanup();
  try {
    const [dynamoDb, sqs] = await Promise.all([
      options.dynamoDbEndpoint ?? cleanup.server(startDynamoDbLocal({ port: ports.dynamoDb })),
      options.sqsEndpoint ?? cleanup.server(startSqsEmulator({ port: ports.sqs })),
    ]);
    cleanup.env.bindSdkEndpoints({ AWS_ENDPOINT_URL_DYNAMODB: dynamoDb, AWS_ENDPOINT_URL_SQS: sqs });
    const s3 = options.s3Endpoint ?? process.env.AWS_ENDPOINT_URL_S3 ?? sqs;
    cleanup.env.bindSdkEndpoints({ AWS_ENDPOINT_URL_S3: s3 });
    // The local servers accept any credentials; a real agent backend needs the user's own.
    if (isScriptedOnly(agent) || options.bedrockAgent) cleanup.env.setIfAbsent({ AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' });
    // There is no CloudWatch locally: metrics stay in memory instead of printing EMF lines.
    cleanup.env.setIfAbsent({ POWERTOOLS_METRICS_DISABLED: 'true' });

    const region = process.env.AWS_REGION ?? 'us-east-1';
    const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };
    const dynamoDbClient = new DynamoDBClient({ endpoint: dynamoDb, region, credentials: localCredentials });
    const sqsClient = new SQSClient({ endpoint: sqs, region, credentials: localCredentials });
    const inspector = new ConversationInspector(names.table, { endpoint: dynamoDb, region, credentials: localCredentials });
    cleanup.add(async () => {
      dynamoDbClient.destroy();
      sqsClient.destroy();
    });
    await createAgentTableUnlessPresent(dynamoDbClient, names.table);
    const queues = await createTurnQueues(sqsClient, names, options.queue);
    const mediaBucketName = options.media === false ? undefined : `${names.table}-media`.toLowerCase();
    if (mediaBucketName !== undefined) await createMediaBucket(s3, mediaBucketName);

    const credentials = {
      appSecret: randomBytes(32).toString('hex'),
      verifyToken: randomBytes(16).toString('hex'),
      accessToken: randomBytes(32).toString('base64url'),
    };
    const fakeWhatsApp = await FakeGraphApi.start({ accessToken: credentials.accessToken, port: ports.whatsApp });
    cleanup.add(() => fakeWhatsApp.close());
    const channel = options.channel ?? WHATSAPP_CHANNEL_KINDS.cloudApi;
    const fakeEndUserMessaging =
      channel === WHATSAPP_CHANNEL_KINDS.endUserMessaging
        ? await FakeEndUserMessaging.start({
            meta: fakeWhatsApp,
            phoneNumbers: new Map([[LOCAL_ORIGINATION_PHONE_NUMBER_ID, LOCAL_BUSINESS.businessPhoneNumberId]]),
            s3Endpoint: s3,
            permissions: options.permissions,
          })
        : undefined;
    if (fakeEndUserMessaging) cleanup.add(() => fakeEndUserMessaging.close());
    const fakeCrm = options.crmSync ? await FakeCrm.start({ onRequest: options.crmSync.onRequest }) : undefined;
    if (fakeCrm) cleanup.add(() => fakeCrm.close());
    // The functions read the WhatsApp secret and the CRM webhook's signing key as deployed: from Secrets Manager, with their own identity.
    const fakeSecrets = await FakeSecretsManager.start({
      secrets: new Map([[LOCAL_SECRET_ARNS.whatsApp, JSON.stringify(credentials)], ...(fakeCrm ? [[LOCAL_SECRET_ARNS.crmWebhook, fakeCrm.secret] as const] : [])]),
      permissions: options.permissions,
    });
    cleanup.add(() => fakeSecrets.close());
    const fakeTranscribe =
      options.transcription && mediaBucketName !== undefined
        ? await FakeTranscribe.start({ transcripts: options.transcription.transcripts, pollsUntilDone: options.transcription.pollsUntilDone, permissions: options.permissions })
        : undefined;
    if (fakeTranscribe) cleanup.add(() => fakeTranscribe.close());
    const fakeKnowledgeBase = options.knowledgeDocuments && (await FakeKnowledgeBase.start({ documents: options.knowledgeDocuments, permissions: options.permissions }));
    if (fakeKnowledgeBase) cleanup.add(() => fakeKnowledgeBase.close());

    // The operator function's URL is part of what the others are told: it is served first, and composed from the same plan.
    let operator: OperatorHandler | undefined;
    const plane = options.adminPhoneNumbers !== undefined && options.adminPhoneNumbers.length > 0;
    const consoleServer = plane ? await startFunctionUrlServer((event) => operator!(event), { port: ports.console }) : undefined;
    if (consoleServer) cleanup.add(() => consoleServer.close());
    const plan = localPlan(options, env, {
      tableName: names.table,
      ...queues,
      whatsAppApiBaseUrl: fakeWhatsApp.baseUrl,
      whatsAppBusinessAccountId: fakeWhatsApp.wabaId,
      crmWebhookUrl: fakeCrm?.url,
      mediaBucketName,
      // Without the trailing slash, as the construct tells the functions the operator function's URL.
      consoleUrl: consoleServer?.url.replace(/\/$/, ''),
    });
    const logLevel = localLogLevel(options, env);
    const variant = localDeploymentVariant(options, plan.orchestrator!.document);
    // Each function signs as itself, as its role does in a deployment; the event source polls as the orchestrator, as Lambda's does.
    const sqsClients = new Map<PipelinePrincipal, SQSClient>();
    const awsCredentialsOf = (principal: PipelinePrincipal) => principalCredentials({ principal, variant }, options.functionSessionToken);
    const sqsClientOf = (principal: PipelinePrincipal) => {
      const client = sqsClients.get(principal) ?? new SQSClient({ endpoint: sqs, region, credentials: awsCredentialsOf(principal) });
      sqsClients.set(principal, client);
      return client;
    };
    cleanup.add(async () => sqsClients.forEach((client) => client.destroy()));
    // What every function is handed instead of AWS's: its log and metrics, its identity, the local endpoints.
    const portsOf = (name: PipelinePrincipal) => ({
      ...observability(`whatsapp-${name}`, logLevel, options),
      awsCredentials: awsCredentialsOf(name),
      secretsManagerEndpoint: fakeSecrets.endpoint,
      endUserMessagingEndpoint: fakeEndUserMessaging?.endpoint,
      // In place of `AWS_ENDPOINT_URL_TRANSCRIBE`, which would bind every pipeline of the process to one fake.
      transcribeEndpoint: fakeTranscribe?.endpoint,
      // The functions' own SQS calls; with the endpoint given, not `AWS_ENDPOINT_URL_SQS`, which would bind every pipeline of the process to one emulator.
      sqsClient: new SignedSqs({ endpoint: sqs, region, credentials: awsCredentialsOf(name) }),
    });

    const settings = SETTINGS_READERS.orchestrator(plan.orchestrator!);
    const { bedrockEndpoint, lambdaEndpoint } = await startAgentStandIns(options.bedrockAgent, options.permissions, cleanup);
    const agentEndpoints = { bedrockEndpoint, lambdaEndpoint, turnSettings: options.turnSettings, knowledgeBaseEndpoint: fakeKnowledgeBase?.endpoint };
    if (plan.operator) {
      const operatorSettings = SETTINGS_READERS.operator(plan.operator);
      const evaluations = await localEvaluationLauncher(SETTINGS_READERS.evaluator(plan.evaluator!), { ...portsOf('evaluator'), ...agentEndpoints }, cleanup);
      operator = composeOperator(operatorSettings, { ...portsOf('operator'), console: StaticConsole.loadIfBuilt(BUILT_CONSOLE_DIRECTORY, operatorSettings.locale), evaluations });
    }
    const orchestrator = composeOrchestrator(settings, { ...portsOf('orchestrator'), agent: options.agent, ...agentEndpoints });

    // The sign-in of the operator plane, to hand out the links the `login` WhatsApp message would get, and who its operators are.
    const access = settings.operatorPlane && composeOperatorAccess(settings.operatorPlane, composeFunction('operator', settings, portsOf('operator')));
    const signIn = access?.signIn;
    const requirePlane = () => {
      if (settings.operatorPlane === undefined || signIn === undefined) throw new Error('The operator plane is off: start the pipeline with adminPhoneNumbers');
      return { ...settings.operatorPlane, signIn };
    };
    // Each sweep is a fresh sweeper, so concurrent calls behave like concurrent Lambda invocations.
    const sweeperRuns = () => {
      requirePlane();
      return composeHandoffSweeperRuns(SETTINGS_READERS['handoff-sweeper'](plan['handoff-sweeper']!), portsOf('handoff-sweeper'));
    };
    const sweepHandoffs = () => sweeperRuns().sweep();
    if (settings.operatorPlane !== undefined && options.sweepEveryMs !== undefined) repeat(cleanup, sweepHandoffs, options.sweepEveryMs);
    const sweepIdleConversations = async () => {
      const report = await composeIdleSweeper(SETTINGS_READERS['idle-sweeper'](plan['idle-sweeper']!), portsOf('idle-sweeper'))();
      options.idleSweep?.onReport?.(report);
      return report;
    };
    if (options.idleSweep?.everyMs !== undefined) repeat(cleanup, sweepIdleConversations, options.idleSweep.everyMs);
    const syncCrm = () => {
      if (plan['crm-sync'] === undefined || fakeCrm === undefined) throw new Error('CRM sync is off: start the pipeline with crmSync');
      return composeCrmSync(SETTINGS_READERS['crm-sync'](plan['crm-sync']), portsOf('crm-sync'))();
    };
    if (options.crmSync?.everyMs !== undefined) repeat(cleanup, syncCrm, options.crmSync.everyMs);

    let deliver: (messages: readonly CustomerTextMessage[]) => Promise<WebhookDelivery>;
    let webhookServer: FunctionUrlServer | undefined;
    if (plan['eum-inbound'] !== undefined) {
      const inbound = composeEndUserMessagingInbound(SETTINGS_READERS['eum-inbound'](plan['eum-inbound']), portsOf('eum-inbound'));
      deliver = (messages) => deliverToEventTopic(inbound, messages);
      fakeWhatsApp.reportStatusesTo(async (notification) => {
        if (!(await publishNotification(inbound, notification))) throw new Error('the End User Messaging inbound function failed on the statuses');
      });
    } else {
      // An app secret the Secrets Manager reader would refuse (a placeholder) is handed to the webhook as it stands.
      const webhookCredentials = options.webhookAppSecret === undefined ? undefined : new StaticCredentialsProvider({ ...credentials, appSecret: options.webhookAppSecret });
      const server = await startFunctionUrlServer(
        composeWebhook(SETTINGS_READERS.webhook(plan.webhook!), { ...portsOf('webhook'), credentials: webhookCredentials, requestTimeouts: LOCAL_WEBHOOK_REQUEST_TIMEOUTS }),
        { port: ports.webhook },
      );
      cleanup.add(() => server.close());
      webhookServer = server;
      deliver = (messages) => deliverToWebhook(server.url, credentials.appSecret, messages);
      fakeWhatsApp.reportStatusesTo(async (notification) => {
        const { status } = await postSignedNotification(server.url, credentials.appSecret, notification);
        if (status !== 200) throw new Error(`the webhook answered ${status} to the statuses`);
      });
    }
    const deliverOne = async (message: CustomerTextMessage) => {
      const delivery = await deliver([message]);
      return { status: delivery.status, messageId: delivery.messageIds[0] };
    };
    const eventSource = await SqsEventSource.start({
      client: sqsClientOf('orchestrator'),
      queueUrl: queues.turnQueueUrl,
      handler: orchestrator,
      functionName: 'orchestrator',
      maxConcurrency: options.maxConcurrency,
      onInvocation: options.onInvocation,
    });
    // Registered last, so it runs first: no invocation may outlive the servers it talks to.
    cleanup.add(() => eventSource.stop());

    return {
      channel,
      webhookUrl: webhookServer?.url,
      endUserMessagingEndpoint: fakeEndUserMessaging?.endpoint,
      consoleUrl: settings.operatorPlane?.consoleUrl,
      sweepHandoffs,
      syncTemplates: () => sweeperRuns().syncTemplates(),
      sweepIdleConversations,
      async loginLink(operatorPhone) {
        const plane = requirePlane();
        const link = await plane.signIn.issueLoginLink(operatorPhone, plane.consoleUrl);
        if (link === undefined) throw new Error(`${operatorPhone} is neither an admin nor in the operators setting`);
        return link.link;
      },
      operatorName: async (operatorPhone) => (await access?.directory.find(operatorPhone))?.name,
      appSecret: credentials.appSecret,
      verifyToken: credentials.verifyToken,
      fakeWhatsApp,
      fakeCrm,
      syncCrm,
      tableName: names.table,
      keyLayout: settings.keyLayout,
      turnQueueUrl: queues.turnQueueUrl,
      deadLetterQueueUrl: queues.deadLetterQueueUrl,
      mediaBucketName,
      fakeTranscribe,
      fakeKnowledgeBase,
      endpoints: { dynamoDb, sqs, s3 },
      childPids: cleanup.pids,
      sqsClient,
      conversation: (customerId) => inspector.snapshot(customerId),
      sendCustomerMessage: (customerId, text, sendOptions = {}) => deliverOne({ from: customerId, text, ...sendOptions }),
      sendCustomerContent: (customerId, content, sendOptions = {}) => deliverOne({ from: customerId, text: '', content, ...sendOptions }),
      sendCustomerMessages(customerId, texts) {
        return deliver(texts.map((text) => ({ from: customerId, text })));
      },
      waitForIdle: (timeoutMs = 30_000) => waitForIdle(sqsClient, queues.turnQueueUrl, eventSource, timeoutMs),
      stop: () => cleanup.run(),
    };
  } catch (error) {
    await cleanup.run();
    throw error;
  }
}

/** Where `npm run bundle` writes the console (scripts/bundle-console.mjs). */
const BUILT_CONSOLE_DIRECTORY = path.resolve(__dirname, '..', '..', 'assets', 'console');

/** Runs `work` on a period, as a deployed schedule does; failures are the work's own to report. */
function repeat(cleanup: Cleanup, work: () => Promise<unknown>, everyMs: number): void {
  const timer = setInterval(() => void work().catch(() => undefined), everyMs);
  timer.unref();
  cleanup.add(async () => clearInterval(timer));
}

function observability(serviceName: string, logLevel: LogLevel, { logFormatter, metrics }: LocalPipelineOptions): { logger: Logger; metrics: Metrics } {
  const logger = new Logger({ serviceName, logLevel, ...(logFormatter ? { logFormatter } : {}) });
  return { logger, metrics: metrics ?? new Metrics({ serviceName, namespace: 'AgentPipelineLocal', logger }) };
}

async function createAgentTableUnlessPresent(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await createAgentTable(client, tableName);
  } catch (error) {
    // A reused DynamoDB Local may hold the table from an earlier run: keep its conversations.
    if ((error as { name?: string }).name !== 'ResourceInUseException') throw error;
  }
}

async function waitForIdle(client: SQSClient, queueUrl: string, eventSource: SqsEventSource, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const counters = ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'] as const;
  while (Date.now() < deadline) {
    const { Attributes: attributes = {} } = await client.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: [...counters] }));
    if (eventSource.idle && counters.every((counter) => Number(attributes[counter] ?? 0) === 0)) return;
    await sleep(50);
  }
  throw new Error(`The pipeline was still busy after ${timeoutMs} ms`);
}
