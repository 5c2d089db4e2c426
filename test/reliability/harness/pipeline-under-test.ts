/**
 * The pipeline as the reliability tests drive it: both use cases composed from their ports exactly
 * as the Lambda composition roots do, on DynamoDB Local, the SQS emulator (and its S3, the media
 * bucket) and a fake Graph API over real HTTP — with every port passed through a
 * {@link FaultInjector}, so a test can strike any remote call. One environment (table, queues, fake) serves a whole test file; runs are isolated by
 * customer id.
 */
import { randomUUID } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, SQSBatchResponse, SQSRecord } from 'aws-lambda';
import { MEDIA_DEFAULTS, PIPELINE_DEFAULTS, physicalNames } from '../../../lib/contract';
import { ScriptedAgent, type ScriptedAgentOptions } from '../../../lambda/core/adapters/agent/scripted-agent';
import { DynamoConsentRepository } from '../../../lambda/core/adapters/dynamodb/consent-repository';
import { DynamoCustomerDataRepository } from '../../../lambda/core/adapters/dynamodb/customer-data-repository';
import { DynamoCustomerBudgetRepository } from '../../../lambda/core/adapters/dynamodb/customer-budget-repository';
import { DynamoDemandRepository } from '../../../lambda/core/adapters/dynamodb/demand-repository';
import { createDynamoRepositories, type DynamoRepositories } from '../../../lambda/core/adapters/dynamodb/dynamo-repositories';
import { DynamoKit } from '../../../lambda/core/adapters/dynamodb/dynamo-kit';
import { DynamoInboundReceiptRepository } from '../../../lambda/core/adapters/dynamodb/inbound-receipt-repository';
import { DynamoLegacyDebounceRepository } from '../../../lambda/core/adapters/dynamodb/legacy-debounce-repository';
import { DynamoMessageRepository } from '../../../lambda/core/adapters/dynamodb/message-repository';
import { DynamoSessionRepository } from '../../../lambda/core/adapters/dynamodb/session-repository';
import { DynamoTurnLedger } from '../../../lambda/core/adapters/dynamodb/turn-ledger';
import { DynamoTurnCheckpointRepository } from '../../../lambda/core/adapters/dynamodb/turn-checkpoint-repository';
import type { OrderToolWorld } from './order-tool';
import { DynamoVersionedResourceRepository } from '../../../lambda/core/adapters/dynamodb/versioned-resource-repository';
import { StaticCredentialsProvider } from '../../../lambda/core/adapters/secrets/static-credentials-provider';
import { SqsTurnDispatcher } from '../../../lambda/core/adapters/sqs/sqs-turn-dispatcher';
import { randomIdGenerator } from '../../../lambda/core/adapters/system/random-id-generator';
import { systemClock } from '../../../lambda/core/adapters/system/system-clock';
import { createMediaClient, S3MediaStore } from '../../../lambda/core/adapters/s3/s3-media-store';
import { GraphApiMediaSource } from '../../../lambda/core/adapters/whatsapp/graph-api-media-source';
import { GraphApiWhatsAppSender } from '../../../lambda/core/adapters/whatsapp/graph-api-sender';
import { createWhatsAppSender, type WhatsAppChannelConfig } from '../../../lambda/core/adapters/whatsapp/whatsapp-channel';
import { createMediaSource } from '../../../lambda/core/adapters/whatsapp/whatsapp-media-source';
import { DownloadInboundMedia } from '../../../lambda/core/application/download-inbound-media';
import { TranscribeVoiceNotes } from '../../../lambda/core/application/transcribe-voice-note';
import { AmazonTranscribe } from '../../../lambda/core/adapters/aws/amazon-transcribe';
import { credentialProvider } from '../../../lambda/core/adapters/aws/aws-identity';
import { FakeTranscribe } from '../../../local/fake-aws/fake-transcribe';
import { CustomerPseudonyms } from '../../../lambda/core/application/privacy/customer-pseudonyms';
import type { MediaSource, MediaTransferSource } from '../../../lambda/core/ports/media-source';
import type { MediaStore } from '../../../lambda/core/ports/media-store';
import type { WhatsAppSender } from '../../../lambda/core/ports/whatsapp-sender';
import { createEndUserMessagingEventsHandler } from '../../../lambda/eum-inbound/sns-events';
import { FakeEndUserMessaging } from '../../../local/fake-whatsapp/fake-end-user-messaging';
import { endUserMessagingEvents, LOCAL_ORIGINATION_PHONE_NUMBER_ID, localEventSource } from '../../../local/runtime/end-user-messaging-event';
import type { LocalChannel } from '../../../local/runtime/local-pipeline';
import { CustomerBudgetGate, type CustomerBudgetSettings } from '../../../lambda/core/application/customer-budget-gate';
import { MessagingConsent } from '../../../lambda/core/application/privacy/messaging-consent';
import { ProcessTurn } from '../../../lambda/core/application/process-turn';
import type { Clock } from '../../../lambda/core/ports/clock';
import type { TurnSettings } from '../../../lambda/core/application/turn-settings';
import { RecordBusinessEchoes } from '../../../lambda/core/application/record-business-echoes';
import { RecordDeliveryStatuses } from '../../../lambda/core/application/record-delivery-status';
import { RecordStandbyMessages } from '../../../lambda/core/application/record-standby-messages';
import { RegisterInboundTurns } from '../../../lambda/core/application/register-inbound';
import { createTurnHandler } from '../../../lambda/orchestrator/turn-handler';
import { createWebhookHttpHandler } from '../../../lambda/webhook/webhook-http';
import { FakeGraphApi } from '../../../local/fake-whatsapp/fake-graph-api';
import { createMediaBucket, createTurnQueues } from '../../../local/servers/local-resources';
import { createTestTable, type TestTable } from '../../support/dynamo-table';
import { AGENT_FAILURES, AWS_SDK_FAILURES, FaultInjector, MEDIA_SOURCE_FAILURES, MEDIA_STORE_FAILURES, WHATSAPP_FAILURES } from '../../support/fault-injection';
import { TEST_CREDENTIALS } from '../../support/webhook-events';
import { permissionCheck, type PrincipalClients, principalClients, principalIdentity } from '../../support/permissions/function-principals';

process.env.POWERTOOLS_METRICS_DISABLED = 'true';

/**
 * Nothing becomes visible again on its own: the drivers release a failed record explicitly, which
 * is what the visibility timeout does on AWS, at the moment the test (or its scheduler) chooses.
 */
const HELD_VISIBILITY_SECONDS = 600;

export interface ReliabilityEnvironment {
  /** How messages come in and replies go out (the fake Graph API is Meta on both channels). */
  readonly channel: LocalChannel;
  /** The fake End User Messaging endpoint in front of `fake` (End User Messaging channel only). */
  readonly endUserMessaging?: FakeEndUserMessaging;
  readonly tableName: string;
  /** The media bucket of the table on the local S3 server, which the orchestrator downloads attachments into. */
  readonly mediaBucketName: string;
  /** The fake Amazon Transcribe the orchestrator transcribes voice notes with: every voice note says {@link VOICE_NOTE_WORDS}. */
  readonly transcribe: FakeTranscribe;
  readonly turnQueueUrl: string;
  readonly deadLetterQueueUrl: string;
  readonly sqs: SQSClient;
  readonly fake: FakeGraphApi;
  /** Unwrapped repositories of the table, to set up and inspect state. */
  readonly repositories: DynamoRepositories;
  /**
   * The clients of the functions the harness plays, each signed as its principal (the inbound
   * function, the orchestrator and its event source), so that their requests are checked against
   * their roles as the composed functions' are.
   */
  readonly principals: { readonly inbound: PrincipalClients; readonly orchestrator: PrincipalClients };
  close(): Promise<void>;
}

/**
 * A table (created, or shared with other environments of the same file), a FIFO queue with its DLQ
 * and a fake Graph API of its own: environments can run side by side on one table.
 */
export async function startReliabilityEnvironment(label: string, sharedTableName?: string, channel: LocalChannel = 'cloud-api'): Promise<ReliabilityEnvironment> {
  const table: TestTable | undefined = sharedTableName === undefined ? await createTestTable(label) : undefined;
  const tableName = sharedTableName ?? table!.name;
  const sqs = new SQSClient({});
  const queues = await createTurnQueues(sqs, physicalNames(label, randomUUID().slice(0, 8)), { visibilityTimeoutSeconds: HELD_VISIBILITY_SECONDS });
  const mediaBucketName = `${tableName}-media`.toLowerCase();
  await createMediaBucket(s3Endpoint(), mediaBucketName);
  const fake = await FakeGraphApi.start({ accessToken: TEST_CREDENTIALS.accessToken });
  const transcribe = await FakeTranscribe.start({ transcripts: () => VOICE_NOTE_WORDS, permissions: permissionCheck() });
  const endUserMessaging =
    channel === 'end-user-messaging'
      ? await FakeEndUserMessaging.start({
          meta: fake,
          phoneNumbers: new Map([[LOCAL_ORIGINATION_PHONE_NUMBER_ID, BUSINESS_PHONE_NUMBER_ID]]),
          s3Endpoint: s3Endpoint(),
          permissions: permissionCheck(),
        })
      : undefined;
  const variant = { channel, operatorPlane: false, crmSync: 'off' } as const;
  const repositories = createDynamoRepositories({ tableName });
  // The pseudonym salt is the table's, written by the first download: made here, so that every
  // run crosses the same boundaries (its read), not only the first run after the table was created.
  await repositories.customerData.pseudonymSalt();
  const principals = {
    inbound: principalClients(channel === 'end-user-messaging' ? 'eum-inbound' : 'webhook', variant),
    orchestrator: principalClients('orchestrator', variant),
  };
  return {
    channel,
    endUserMessaging,
    tableName,
    mediaBucketName,
    transcribe,
    turnQueueUrl: queues.turnQueueUrl,
    deadLetterQueueUrl: queues.deadLetterQueueUrl,
    sqs,
    fake,
    repositories,
    principals,
    close: async () => {
      Object.values(principals).forEach((clients) => clients.destroy());
      await endUserMessaging?.close();
      await transcribe.close();
      await fake.close();
      await table?.drop();
      sqs.destroy();
    },
  };
}

/** The local S3 server as the SDK is pointed at it (the global setup's permission proxy in front of the SQS emulator). */
function s3Endpoint(): string {
  const endpoint = process.env.AWS_ENDPOINT_URL_S3;
  if (endpoint === undefined) throw new Error('AWS_ENDPOINT_URL_S3 is not set: the jest global setup starts the local S3 server');
  return endpoint;
}

/** A metric the handlers emitted, with the invocation it was emitted in. */
export interface RecordedMetric {
  readonly name: string;
  readonly value: number;
  readonly invocation?: string;
}

/** Keeps the handlers' metrics in memory, per invocation, instead of publishing them. */
export class MetricsRecorder extends Metrics {
  readonly recorded: RecordedMetric[] = [];

  constructor(private readonly injector: FaultInjector) {
    super({ namespace: 'reliability', serviceName: 'reliability' });
  }

  override addMetric(name: string, _unit: Parameters<Metrics['addMetric']>[1], value: number): this {
    this.recorded.push({ name, value, invocation: this.injector.currentInvocation });
    return this;
  }

  override publishStoredMetrics(): this {
    return this;
  }
}

const silentLogger = () => new Logger({ serviceName: 'reliability', logLevel: 'SILENT' });
const credentials = new StaticCredentialsProvider(TEST_CREDENTIALS);

/** The table's repositories over a kit, signed as `principal`, whose every call is a boundary of `injector`. */
function instrumentedRepositories(tableName: string, injector: FaultInjector, principal: PrincipalClients) {
  const kit = injector.remote('dynamodb', new DynamoKit({ tableName, client: principal.documentClient }), AWS_SDK_FAILURES);
  return {
    receipts: injector.port('receipts', new DynamoInboundReceiptRepository(kit, systemClock)),
    ledger: injector.port('ledger', new DynamoTurnLedger(kit, systemClock)),
    legacy: injector.port('legacy', new DynamoLegacyDebounceRepository(kit)),
    sessions: injector.port('sessions', new DynamoSessionRepository(kit, systemClock)),
    messages: injector.port('messages', new DynamoMessageRepository(kit, systemClock)),
    demands: injector.port('demands', new DynamoDemandRepository(kit)),
    resources: injector.port('resources', new DynamoVersionedResourceRepository(kit, systemClock)),
    budgets: injector.port('budgets', new DynamoCustomerBudgetRepository(kit)),
    consents: injector.port('consents', new DynamoConsentRepository(kit)),
    customerData: injector.port('customerData', new DynamoCustomerDataRepository(kit, systemClock)),
    checkpoints: injector.port('checkpoints', new DynamoTurnCheckpointRepository(kit, systemClock)),
  };
}

export type WebhookFunction = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

export interface WebhookUnderTest {
  readonly handle: WebhookFunction;
  readonly injector: FaultInjector;
  readonly metrics: MetricsRecorder;
}

/** The business number of the test notifications (test/support/webhook-events.ts). */
const BUSINESS_PHONE_NUMBER_ID = '106540352242922';

/**
 * The inbound function of the environment's channel (HTTP contract or SNS contract + inbound use
 * case) with every remote call through `injector`. Both take Meta's signed POST: on End User
 * Messaging its body becomes the service's SNS events, and a failed invocation throws, which the
 * drivers retry as Lambda retries an asynchronous event.
 */
export function composeWebhook(env: ReliabilityEnvironment, injector: FaultInjector): WebhookUnderTest {
  const { receipts, sessions, messages } = instrumentedRepositories(env.tableName, injector, env.principals.inbound);
  const metrics = new MetricsRecorder(injector);
  const registerInbound = new RegisterInboundTurns({
    receipts,
    sessions,
    messages,
    dispatcher: injector.remote('dispatcher', new SqsTurnDispatcher(env.turnQueueUrl, env.principals.inbound.queues), AWS_SDK_FAILURES),
  });
  const recordStatuses = new RecordDeliveryStatuses({ messages });
  // The number is shared with the WhatsApp Business app: its echoes are recorded, as the composers do.
  const recorders = { sessions, messages, clock: systemClock, ids: randomIdGenerator };
  const coexistence = { echoes: new RecordBusinessEchoes(recorders), standby: new RecordStandbyMessages(recorders) };
  if (env.channel === 'end-user-messaging') {
    const events = createEndUserMessagingEventsHandler({
      registerInbound,
      recordStatuses,
      coexistence,
      clock: systemClock,
      logger: silentLogger(),
      metrics,
      businessPhoneNumberIds: new Set([BUSINESS_PHONE_NUMBER_ID]),
      source: localEventSource([BUSINESS_PHONE_NUMBER_ID]),
    });
    const handle: WebhookFunction = async (event) => {
      for (const snsEvent of endUserMessagingEvents(JSON.parse(event.body ?? '{}') as { entry: object[] })) await events(snsEvent);
      return { statusCode: 200 };
    };
    return { handle, injector, metrics };
  }
  const handle = createWebhookHttpHandler({ credentials, registerInbound, recordStatuses, coexistence, clock: systemClock, logger: silentLogger(), metrics });
  return { handle, injector, metrics };
}

const END_USER_MESSAGING: WhatsAppChannelConfig = {
  kind: 'end-user-messaging',
  phoneNumbers: new Map([[BUSINESS_PHONE_NUMBER_ID, LOCAL_ORIGINATION_PHONE_NUMBER_ID]]),
  metaApiVersion: PIPELINE_DEFAULTS.endUserMessagingMetaApiVersion,
};

/** What the orchestrator's AWS calls sign with on `channel`: its role, checked as deployed. */
function orchestratorIdentity(channel: LocalChannel) {
  return principalIdentity('orchestrator', { channel, operatorPlane: false, crmSync: 'off' });
}

/** How the orchestrator reaches End User Messaging: its fake, signed as the orchestrator's role. */
function endUserMessagingPorts(endUserMessaging: FakeEndUserMessaging) {
  return { endUserMessagingEndpoint: endUserMessaging.endpoint, awsCredentials: orchestratorIdentity('end-user-messaging') };
}

/** The sender of the environment's channel, with a short timeout. */
function channelSender(env: ReliabilityEnvironment): WhatsAppSender {
  if (env.endUserMessaging === undefined) return new GraphApiWhatsAppSender({ baseUrl: env.fake.baseUrl, credentials, requestTimeoutMs: 5_000 });
  return createWhatsAppSender(END_USER_MESSAGING, endUserMessagingPorts(env.endUserMessaging));
}

/** The media source of the environment's channel: the fake Graph API's media endpoints, or End User Messaging writing into the bucket. */
function channelMediaSource(env: ReliabilityEnvironment): MediaSource | MediaTransferSource {
  if (env.endUserMessaging === undefined) return new GraphApiMediaSource({ baseUrl: env.fake.baseUrl, credentials, requestTimeoutMs: 5_000 });
  return createMediaSource(END_USER_MESSAGING, endUserMessagingPorts(env.endUserMessaging));
}

/**
 * The turn's download step as the media composition builds it, over the media bucket keyed by the
 * customer's pseudonym: the source's calls and the bucket's writes are boundaries, and so is the
 * salt read under the pseudonym.
 */
function instrumentedMediaDownload(env: ReliabilityEnvironment, injector: FaultInjector, customerData: DynamoCustomerDataRepository) {
  const pseudonyms = new CustomerPseudonyms(customerData);
  const bucket = new S3MediaStore({
    bucketName: env.mediaBucketName,
    customerKey: (customerId) => pseudonyms.of(customerId),
    client: createMediaClient({ endpoint: s3Endpoint(), credentials: orchestratorIdentity(env.channel) }),
  });
  // Of the download step's calls, only the write goes to S3 (where a provider writes an object is
  // the store's own arithmetic): the bucket's other methods stay as they are.
  const writes = injector.remote('mediaStore', { put: bucket.put.bind(bucket) }, MEDIA_STORE_FAILURES);
  const store: MediaStore = Object.assign(Object.create(bucket) as MediaStore, { put: writes.put });
  const download = new DownloadInboundMedia({
    source: injector.remote('mediaSource', channelMediaSource(env), MEDIA_SOURCE_FAILURES),
    store,
    limits: { maxBytes: MEDIA_DEFAULTS.maxBytes, allowedMimeTypes: [...MEDIA_DEFAULTS.allowedMimeTypes] },
  });
  return { download, store };
}

/** What every voice note of the reliability runs says. */
export const VOICE_NOTE_WORDS = 'Quero marcar um exame de sangue';

/**
 * The turn's transcription step as the media composition builds it (jobs named by the customer's
 * pseudonym), on the environment's fake Transcribe signed as the orchestrator: each call of the
 * service is a boundary. A short poll interval, so the job's read repeats within a run.
 */
function instrumentedVoiceNotes(env: ReliabilityEnvironment, injector: FaultInjector, customerData: DynamoCustomerDataRepository): TranscribeVoiceNotes {
  const pseudonyms = new CustomerPseudonyms(customerData);
  const service = new AmazonTranscribe({ endpoint: env.transcribe.endpoint, credentials: credentialProvider(orchestratorIdentity(env.channel)), maxAttempts: 1 });
  return new TranscribeVoiceNotes({
    transcriber: injector.remote('transcriber', service, AWS_SDK_FAILURES),
    customerKey: (customerId) => pseudonyms.of(customerId),
    mediaUriOf: (objectKey) => `s3://${env.mediaBucketName}/${objectKey}`,
    languageCode: 'pt-BR',
    maxWaitMs: 5_000,
    pollIntervalMs: 20,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    now: () => Date.now(),
  });
}

export type TurnFunction = (record: SQSRecord) => Promise<SQSBatchResponse>;

export interface OrchestratorUnderTest {
  readonly handle: TurnFunction;
  readonly injector: FaultInjector;
  readonly metrics: MetricsRecorder;
  readonly agent: ScriptedAgent;
}

export interface OrchestratorOptions {
  readonly agent?: ScriptedAgentOptions;
  readonly settings?: Partial<TurnSettings>;
  /**
   * The customer budget gate's limits and the clock it counts at.
   * @default - limits no scenario reaches, the system clock: the gate is on as in a deployment, so its calls are boundaries
   */
  readonly budget?: { readonly settings?: Partial<CustomerBudgetSettings>; readonly clock?: Clock };
  /** The Bedrock agent with the business's `create_order` tool instead of the scripted agent alone (whose words it still replies with). */
  readonly orderTool?: { readonly world: OrderToolWorld; readonly newerMessage?: () => Promise<void> };
}

/** Limits the reliability scenarios never reach: they test what the gate's calls do under faults, not the limits. */
const UNREACHED_BUDGET: Partial<CustomerBudgetSettings> = { turnsPerMinute: 10_000, turnsPerHour: 100_000, agentTokensPerDay: 100_000_000 };

/** The orchestrator function (SQS contract + turn use case) with every remote call through `injector`. */
export function composeOrchestrator(env: ReliabilityEnvironment, injector: FaultInjector, options: OrchestratorOptions = {}): OrchestratorUnderTest {
  const agent = new ScriptedAgent(options.agent);
  const metrics = new MetricsRecorder(injector);
  const { budgets, consents, customerData, ...repositories } = instrumentedRepositories(env.tableName, injector, env.principals.orchestrator);
  const media = instrumentedMediaDownload(env, injector, customerData);
  const whatsapp = injector.remote('whatsapp', channelSender(env), WHATSAPP_FAILURES);
  const turns = createTurnHandler({
    processTurn: new ProcessTurn({
      ...repositories,
      // Both gates are on, as the orchestrator composes them in a deployment.
      budget: new CustomerBudgetGate(budgets, options.budget?.clock ?? systemClock, options.budget?.settings ?? UNREACHED_BUDGET),
      consent: new MessagingConsent({ consents, whatsapp }),
      agent: injector.remote('agent', options.orderTool ? options.orderTool.world.agent(injector, agent, options.orderTool.newerMessage) : agent, AGENT_FAILURES),
      whatsapp,
      media: media.download,
      mediaStore: media.store,
      voiceNotes: instrumentedVoiceNotes(env, injector, customerData),
      clock: systemClock,
      ids: randomIdGenerator,
      // Every invocation reads the prompt, as a cold one does, so its read is a boundary of every turn.
      settings: { promptCacheMs: 0, ...options.settings },
    }),
    clock: systemClock,
    logger: silentLogger(),
    metrics,
  });
  return { handle: (record) => turns({ Records: [record] }, { getRemainingTimeInMillis: () => 90_000 }), injector, metrics, agent };
}
