import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger, type LogFormatter } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { AGENT_BACKEND_KINDS, DEFAULT_HANDOFF_TEXTS, OPERATOR_DEFAULTS, PIPELINE_DEFAULTS, RUNTIME_ENV, WHATSAPP_CHANNEL_KINDS, physicalNames } from '../../lib/contract';
import { agentFromEnvironment } from '../../lambda/core/adapters/agent/agent-from-environment';
import { ScriptedAgent } from '../../lambda/core/adapters/agent/scripted-agent';
import { StaticCredentialsProvider } from '../../lambda/core/adapters/secrets/static-credentials-provider';
import { GraphApiWhatsAppSender } from '../../lambda/core/adapters/whatsapp/graph-api-sender';
import { createWhatsAppSender } from '../../lambda/core/adapters/whatsapp/whatsapp-channel';
import type { WhatsAppSender } from '../../lambda/core/ports/whatsapp-sender';
import { createEndUserMessagingInboundHandler } from '../../lambda/eum-inbound/index';
import type { TurnSettings } from '../../lambda/core/application/turn-settings';
import type { CustomerBudgetSettings } from '../../lambda/core/application/customer-budget-gate';
import type { AgentPort } from '../../lambda/core/ports/agent';
import { createHandoffSweeperHandler } from '../../lambda/handoff-sweeper/index';
import { createCrmSyncHandler } from '../../lambda/crm-sync/index';
import { SignedWebhookCrmClient } from '../../lambda/core/adapters/crm/signed-webhook-crm-client';
import type { CrmSyncRunReport } from '../../lambda/core/application/sync-crm-projections';
import type { OperatorPlaneEnvironment } from '../../lambda/core/adapters/operator/handoff-settings-from-environment';
import type { SweepReport } from '../../lambda/core/application/operator/handoff-lifecycle';
import { createOperatorHandler } from '../../lambda/operator/index';
import { SqsDeadLetterQueue } from '../../lambda/core/adapters/sqs/sqs-dead-letter-queue';
import type { DeadLetterQueue } from '../../lambda/core/ports/dead-letter-queue';
import { StaticConsole } from '../../lambda/operator/static-console';
import { composeOperatorPlane } from '../../lambda/operator/compose-plane';
import { createDocumentClient } from '../../lambda/core/adapters/dynamodb/dynamo-kit';
import { openDynamoTable } from '../../lambda/core/adapters/dynamodb/dynamo-repositories';
import type { KeyLayout } from '../../lib/key-layout';
import { keyLayoutFromEnvironment } from '../../lambda/core/adapters/runtime-environment';
import { randomIdGenerator } from '../../lambda/core/adapters/system/random-id-generator';
import { systemClock } from '../../lambda/core/adapters/system/system-clock';
import { createOrchestratorHandler } from '../../lambda/orchestrator/index';
import { createWebhookHandler } from '../../lambda/webhook/index';
import { FakeEndUserMessaging } from '../fake-whatsapp/fake-end-user-messaging';
import { FakeGraphApi } from '../fake-whatsapp/fake-graph-api';
import { FakeCrm, type ReceivedCrmRequest } from '../fake-crm/fake-crm';
import { deliverToEventTopic, LOCAL_ORIGINATION_PHONE_NUMBER_ID } from './end-user-messaging-event';
import { createAgentTable, createTurnQueues, type LocalQueueOptions } from '../servers/local-resources';
import { assertPortFree, LocalServerError, startDynamoDbLocal, startSqsEmulator, type LocalServer } from '../servers/local-servers';
import { ConversationInspector, type ConversationSnapshot } from './conversation-inspector';
import { startFunctionUrlServer, type FunctionUrlServer } from './function-url-server';
import { deliverToWebhook, LOCAL_BUSINESS, type CustomerTextMessage, type WebhookDelivery } from './meta-notification';
import { SqsEventSource, type InvocationReport } from './sqs-event-source';

type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'CRITICAL' | 'SILENT';

/** How customers' messages come in and replies go out. */
export type LocalChannel = (typeof WHATSAPP_CHANNEL_KINDS)[keyof typeof WHATSAPP_CHANNEL_KINDS];

export interface LocalPipelineOptions {
  /**
   * `cloud-api`: signed POSTs to the webhook's Function URL, replies to the fake Graph API.
   * `end-user-messaging`: SNS-shaped events to the inbound function, replies through the fake End
   * User Messaging endpoint (which passes them on to the same fake Graph API). Default `cloud-api`.
   */
  readonly channel?: LocalChannel;
  /** Default `PIPELINE_DEFAULTS.serviceName`. */
  readonly serviceName?: string;
  /** Names the table and queues, as a deployed stage would. Default `local`. */
  readonly environment?: string;
  /** Use this DynamoDB Local instead of starting one. */
  readonly dynamoDbEndpoint?: string;
  /** Use this SQS emulator instead of starting one. */
  readonly sqsEndpoint?: string;
  /** Queue settings to override (e.g. a short visibility timeout so retries come quickly). */
  readonly queue?: LocalQueueOptions;
  /**
   * The agent. Default: the scripted agent, or the adapter `AGENT_BACKEND` selects when it is set
   * (e.g. `AGENT_BACKEND=bedrock BEDROCK_MODEL_ID=…` with the user's own AWS credentials).
   */
  readonly agent?: AgentPort;
  /** Fixed loopback ports; each defaults to a free port. A taken port fails with a LocalServerError. */
  readonly ports?: LocalPipelinePorts;
  /** Orchestrator invocations in flight at once. Default 10. */
  readonly maxConcurrency?: number;
  /** Log level of both functions. Default `POWERTOOLS_LOG_LEVEL`, else WARN. */
  readonly logLevel?: LogLevel;
  /**
   * Where both functions record their metrics. Default: one instance per function, disabled (there
   * is no CloudWatch locally). Pass an enabled instance to read the EMF lines it writes to stdout.
   */
  readonly metrics?: Metrics;
  /**
   * The app secret the webhook's WhatsApp secret holds. Default: the one the simulated Meta signs
   * with; `'REPLACE_ME'` reproduces a secret nobody filled in (every delivery is refused).
   */
  readonly webhookAppSecret?: string;
  /** How both functions' log entries are written. Default: Powertools' Lambda JSON format. */
  readonly logFormatter?: LogFormatter;
  /** Sees every orchestrator invocation and what became of its record. */
  readonly onInvocation?: (report: InvocationReport) => void;
  /** Turn settings to override (e.g. `promptCacheMs: 0`, so an edited prompt applies to the very next turn). */
  readonly turnSettings?: Partial<TurnSettings>;
  /** Per-customer turn and token limits and the over-budget reply, as with the construct's `customerBudget`. Default: the construct's defaults. */
  readonly customerBudget?: Partial<CustomerBudgetSettings>;
  /** Where the environment-driven settings are read (agent backend). Default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * Turns the operator plane on with these admins (digits only): the operator function is served at
   * `consoleUrl`, and these phones get a login link when they send `login`.
   */
  readonly adminPhoneNumbers?: readonly string[];
  /** When the handoff sweep re-notifies operators and reminds the customer (operator plane only). */
  readonly handoffTimings?: { readonly renotifyOperatorsAfterMs?: number; readonly remindCustomerAfterMs?: number };
  /** Runs the handoff sweeper on this period, as the deployed schedule does every minute. Default: only on `sweepHandoffs()`. */
  readonly sweepEveryMs?: number;
  /**
   * CRM sync on, as with the construct's `crmSync`: session writes carry the projection, a fake CRM
   * webhook listens on 127.0.0.1, and the worker runs every `everyMs` (default: only on `syncCrm()`).
   * Default: off.
   */
  readonly crmSync?: LocalCrmSyncOptions;
  /**
   * The write-shard migration phase every function runs, as with the construct's `keyLayout`
   * (docs/DESIGN.md#write-shards). Default: `KEY_LAYOUT` of `env`, else `seed`.
   */
  readonly keyLayout?: KeyLayout;
}

export interface LocalPipelinePorts {
  /** The webhook's Function URL. */
  readonly webhook?: number;
  /** The operator function's URL (the console), when the operator plane is on. */
  readonly console?: number;
  /** The fake WhatsApp Graph API. */
  readonly whatsApp?: number;
  /** DynamoDB Local, when this pipeline starts it. */
  readonly dynamoDb?: number;
  /** The SQS emulator, when this pipeline starts it. */
  readonly sqs?: number;
}

export interface LocalCrmSyncOptions {
  readonly everyMs?: number;
  /** Sees every request the fake CRM received (`npm start` logs them). */
  readonly onRequest?: (received: ReceivedCrmRequest) => void;
}

export interface SendCustomerMessageOptions {
  /** Default: a fresh `wamid.` id. Reuse one to play a Meta redelivery. */
  readonly messageId?: string;
  /** Default: now. */
  readonly sentAt?: Date;
}

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
  /** A ready one-time console link for an operator, as the `login` WhatsApp message would get (operator plane only). */
  loginLink(operatorPhone: string): Promise<string>;
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
  readonly turnQueueUrl: string;
  readonly deadLetterQueueUrl: string;
  readonly endpoints: { readonly dynamoDb: string; readonly sqs: string };
  /** Children this pipeline started (DynamoDB Local, SQS emulator), by PID. */
  readonly childPids: readonly number[];
  /** A client bound to the pipeline's SQS endpoint (inspect the queues, the DLQ). */
  readonly sqsClient: SQSClient;
  /** The customer's active session and its history, read through the pipeline's repositories. */
  conversation(customerId: string): Promise<ConversationSnapshot>;
  /** Signs and POSTs a customer's text message to the webhook, as Meta would. */
  sendCustomerMessage(customerId: string, text: string, options?: SendCustomerMessageOptions): Promise<{ status: number; messageId: string }>;
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
 * Graph API, and the scripted agent unless another is configured.
 */
export async function startLocalPipeline(options: LocalPipelineOptions = {}): Promise<LocalPipeline> {
  const env = options.env ?? process.env;
  const names = physicalNames(options.serviceName ?? PIPELINE_DEFAULTS.serviceName, options.environment ?? 'local');
  // Built first: a misconfigured agent backend fails before any server starts.
  const agent = options.agent ?? localAgent(env);
  const usesRealAws = options.agent === undefined && isRealAgentBackend(env[RUNTIME_ENV.agentBackend]);
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
    // The local servers accept any credentials; a real agent backend needs the user's own.
    if (!usesRealAws) cleanup.env.setIfAbsent({ AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' });
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
      inspector.close();
    });
    await createAgentTableUnlessPresent(dynamoDbClient, names.table);
    const queues = await createTurnQueues(sqsClient, names, options.queue);

    const credentials = {
      appSecret: randomBytes(32).toString('hex'),
      verifyToken: randomBytes(16).toString('hex'),
      accessToken: randomBytes(32).toString('base64url'),
    };
    const fakeWhatsApp = await FakeGraphApi.start({ accessToken: credentials.accessToken, port: ports.whatsApp });
    cleanup.add(() => fakeWhatsApp.close());

    const logLevel = options.logLevel ?? ((env.POWERTOOLS_LOG_LEVEL?.toUpperCase() as LogLevel | undefined) || 'WARN');
    const crmSyncEnabled = options.crmSync !== undefined;
    const keyLayout = options.keyLayout ?? keyLayoutFromEnvironment(env);
    const fakeCrm = crmSyncEnabled ? await FakeCrm.start({ onRequest: options.crmSync?.onRequest }) : undefined;
    if (fakeCrm) cleanup.add(() => fakeCrm.close());
    const credentialsProvider = new StaticCredentialsProvider(credentials);
    const webhook = createWebhookHandler({
      tableName: names.table,
      turnQueueUrl: queues.turnQueueUrl,
      credentials: options.webhookAppSecret === undefined ? credentialsProvider : new StaticCredentialsProvider({ ...credentials, appSecret: options.webhookAppSecret }),
      sqsClient,
      crmSyncEnabled,
      keyLayout,
      ...observability('whatsapp-webhook', logLevel, options),
    });
    const channel = options.channel ?? WHATSAPP_CHANNEL_KINDS.cloudApi;
    let whatsapp: WhatsAppSender;
    let fakeEndUserMessaging: FakeEndUserMessaging | undefined;
    if (channel === WHATSAPP_CHANNEL_KINDS.endUserMessaging) {
      fakeEndUserMessaging = await FakeEndUserMessaging.start({ meta: fakeWhatsApp, phoneNumbers: new Map([[LOCAL_ORIGINATION_PHONE_NUMBER_ID, LOCAL_BUSINESS.businessPhoneNumberId]]) });
      cleanup.add(() => fakeEndUserMessaging!.close());
      whatsapp = createWhatsAppSender(
        { kind: channel, phoneNumbers: new Map([[LOCAL_BUSINESS.businessPhoneNumberId, LOCAL_ORIGINATION_PHONE_NUMBER_ID]]), metaApiVersion: PIPELINE_DEFAULTS.endUserMessagingMetaApiVersion },
        { endUserMessagingEndpoint: fakeEndUserMessaging.endpoint },
      );
    } else {
      whatsapp = new GraphApiWhatsAppSender({ baseUrl: fakeWhatsApp.baseUrl, credentials: credentialsProvider });
    }
    const deadLetters = new SqsDeadLetterQueue({ turnQueueUrl: queues.turnQueueUrl, deadLetterQueueUrl: queues.deadLetterQueueUrl, sqs: sqsClient });
    const consoleUrl = await startOperatorPlane(options, { tableName: names.table, whatsapp, deadLetters, logLevel, cleanup, crmSyncEnabled, keyLayout });
    const operatorPlane = consoleUrl === undefined ? undefined : localOperatorPlane(options, consoleUrl);
    const orchestrator = createOrchestratorHandler({
      tableName: names.table,
      whatsapp,
      agent,
      maxReceiveCount: options.queue?.maxReceiveCount,
      settings: options.turnSettings,
      customerBudget: options.customerBudget,
      operatorPlane,
      crmSyncEnabled,
      keyLayout,
      ...observability('whatsapp-orchestrator', logLevel, options),
    });

    const documentClient = createDocumentClient({ endpoint: dynamoDb, region, credentials: localCredentials });
    cleanup.add(async () => documentClient.destroy());
    const plane =
      operatorPlane &&
      composeOperatorPlane(operatorPlane, { table: openDynamoTable({ tableName: names.table, client: documentClient, keyLayout }), clock: systemClock }, whatsapp, randomIdGenerator);
    const requirePlane = () => {
      if (operatorPlane === undefined || plane === undefined) throw new Error('The operator plane is off: start the pipeline with adminPhoneNumbers');
      return { ...plane, consoleUrl: operatorPlane.consoleUrl };
    };
    const sweepHandoffs = () => {
      requirePlane();
      return createHandoffSweeperHandler({ tableName: names.table, whatsapp, operatorPlane: operatorPlane!, crmSyncEnabled, keyLayout, ...observability('whatsapp-handoff-sweeper', logLevel, options) })();
    };
    if (operatorPlane !== undefined && options.sweepEveryMs !== undefined) {
      const sweeper = setInterval(() => void sweepHandoffs().catch(() => undefined), options.sweepEveryMs);
      sweeper.unref();
      cleanup.add(async () => clearInterval(sweeper));
    }

    const syncCrm = () => {
      if (fakeCrm === undefined) throw new Error('CRM sync is off: start the pipeline with crmSync');
      const crm = new SignedWebhookCrmClient({ url: fakeCrm.url, secret: async () => fakeCrm.secret });
      return createCrmSyncHandler({ tableName: names.table, crm, keyLayout, ...observability('whatsapp-crm-sync', logLevel, options) })();
    };
    if (options.crmSync?.everyMs !== undefined) {
      const worker = setInterval(() => void syncCrm().catch(() => undefined), options.crmSync.everyMs);
      worker.unref();
      cleanup.add(async () => clearInterval(worker));
    }

    let deliver: (messages: readonly CustomerTextMessage[]) => Promise<WebhookDelivery>;
    let webhookServer: FunctionUrlServer | undefined;
    if (channel === WHATSAPP_CHANNEL_KINDS.endUserMessaging) {
      const inbound = createEndUserMessagingInboundHandler({
        tableName: names.table,
        turnQueueUrl: queues.turnQueueUrl,
        businessPhoneNumberIds: [LOCAL_BUSINESS.businessPhoneNumberId],
        sqsClient,
        keyLayout,
        ...observability('whatsapp-eum-inbound', logLevel, options),
      });
      deliver = (messages) => deliverToEventTopic(inbound, messages);
    } else {
      const server = await startFunctionUrlServer(webhook, { port: ports.webhook });
      cleanup.add(() => server.close());
      webhookServer = server;
      deliver = (messages) => deliverToWebhook(server.url, credentials.appSecret, messages);
    }
    const eventSource = await SqsEventSource.start({
      client: sqsClient,
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
      consoleUrl,
      sweepHandoffs,
      async loginLink(operatorPhone) {
        const link = await requirePlane().signIn.issueLoginLink(operatorPhone, requirePlane().consoleUrl);
        if (link === undefined) throw new Error(`${operatorPhone} is neither an admin nor in the operators setting`);
        return link.link;
      },
      appSecret: credentials.appSecret,
      verifyToken: credentials.verifyToken,
      fakeWhatsApp,
      fakeCrm,
      syncCrm,
      tableName: names.table,
      turnQueueUrl: queues.turnQueueUrl,
      deadLetterQueueUrl: queues.deadLetterQueueUrl,
      endpoints: { dynamoDb, sqs },
      childPids: cleanup.pids,
      sqsClient,
      conversation: (customerId) => inspector.snapshot(customerId),
      async sendCustomerMessage(customerId, text, sendOptions = {}) {
        const delivery = await deliver([{ from: customerId, text, ...sendOptions }]);
        return { status: delivery.status, messageId: delivery.messageIds[0] };
      },
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

/** The operator function behind its local Function URL, when admins are given; its URL without the trailing slash. */
async function startOperatorPlane(
  options: LocalPipelineOptions,
  context: {
    readonly tableName: string;
    readonly whatsapp: WhatsAppSender;
    readonly deadLetters: DeadLetterQueue;
    readonly logLevel: LogLevel;
    readonly cleanup: Cleanup;
    readonly crmSyncEnabled: boolean;
    readonly keyLayout: KeyLayout;
  },
): Promise<string | undefined> {
  if (options.adminPhoneNumbers === undefined || options.adminPhoneNumbers.length === 0) return undefined;
  const operator = createOperatorHandler({
    tableName: context.tableName,
    whatsapp: context.whatsapp,
    adminPhoneNumbers: options.adminPhoneNumbers,
    deadLetters: context.deadLetters,
    console: StaticConsole.loadIfBuilt(BUILT_CONSOLE_DIRECTORY),
    crmSyncEnabled: context.crmSyncEnabled,
    keyLayout: context.keyLayout,
    ...observability('whatsapp-operator', context.logLevel, options),
  });
  const server = await startFunctionUrlServer(operator, { port: options.ports?.console });
  context.cleanup.add(() => server.close());
  return server.url.replace(/\/$/, '');
}

function localOperatorPlane(options: LocalPipelineOptions, consoleUrl: string): OperatorPlaneEnvironment {
  return {
    adminPhoneNumbers: options.adminPhoneNumbers ?? [],
    consoleUrl,
    timeZone: OPERATOR_DEFAULTS.timeZone,
    texts: DEFAULT_HANDOFF_TEXTS,
    renotifyOperatorsAfterMs: options.handoffTimings?.renotifyOperatorsAfterMs ?? OPERATOR_DEFAULTS.handoffRenotifyAfterSeconds * 1000,
    remindCustomerAfterMs: options.handoffTimings?.remindCustomerAfterMs ?? OPERATOR_DEFAULTS.customerRenotifyAfterSeconds * 1000,
  };
}

function localAgent(env: NodeJS.ProcessEnv): AgentPort {
  return env[RUNTIME_ENV.agentBackend] ? agentFromEnvironment(env) : new ScriptedAgent();
}

function isRealAgentBackend(backend: string | undefined): boolean {
  return backend !== undefined && backend !== '' && backend !== AGENT_BACKEND_KINDS.scripted;
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

/** Undo actions run in reverse order of registration, each once, failures collected. */
class Cleanup {
  readonly env = new ProcessEnvOverrides();
  readonly pids: number[] = [];
  private readonly actions: Array<() => Promise<void>> = [];
  private readonly starting: Promise<unknown>[] = [];

  add(action: () => Promise<void>): void {
    this.actions.push(action);
  }

  async server(starting: Promise<LocalServer>): Promise<string> {
    this.starting.push(starting);
    const server = await starting;
    this.pids.push(server.pid);
    this.add(() => server.stop());
    return server.endpoint;
  }

  async run(): Promise<void> {
    // A server still starting when another failed must be registered before anything is undone.
    await Promise.allSettled(this.starting.splice(0));
    const failures: unknown[] = [];
    for (const action of this.actions.splice(0).reverse()) {
      try {
        await action();
      } catch (error) {
        failures.push(error);
      }
    }
    this.env.restore();
    if (failures.length > 0) throw new AggregateError(failures, 'The local pipeline did not stop cleanly');
  }
}

/**
 * The handlers build their AWS SDK clients from the environment (as in Lambda), so the local
 * endpoints must be in `process.env` before they run. Values this pipeline set are restored on stop.
 */
class ProcessEnvOverrides {
  private readonly previous = new Map<string, string | undefined>();

  /** A process can serve only one set of local servers: the SDK clients are process-wide. */
  bindSdkEndpoints(endpoints: Record<string, string>): void {
    for (const [name, endpoint] of Object.entries(endpoints)) {
      const current = process.env[name];
      if (current !== undefined && current !== endpoint) {
        throw new LocalServerError(
          `${name} already points the AWS SDK at ${current}, but this pipeline uses ${endpoint}. ` +
            `Pass that endpoint in the options to reuse the server, or unset ${name}.`,
        );
      }
    }
    this.setIfAbsent(endpoints);
  }

  setIfAbsent(values: Record<string, string>): void {
    for (const [name, value] of Object.entries(values)) {
      if (process.env[name] !== undefined) continue;
      this.previous.set(name, undefined);
      process.env[name] = value;
    }
  }

  restore(): void {
    for (const [name, value] of this.previous) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    this.previous.clear();
  }
}
