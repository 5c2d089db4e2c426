import { randomUUID } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import { physicalNames } from '../../lib/contract';
import { ScriptedAgent, type ScriptedAgentOptions } from '../../lambda/core/adapters/agent/scripted-agent';
import { DynamoCustomerBudgetRepository } from '../../lambda/core/adapters/dynamodb/customer-budget-repository';
import { DynamoDemandRepository } from '../../lambda/core/adapters/dynamodb/demand-repository';
import { DynamoKit } from '../../lambda/core/adapters/dynamodb/dynamo-kit';
import { DynamoInboundReceiptRepository } from '../../lambda/core/adapters/dynamodb/inbound-receipt-repository';
import { DynamoLegacyDebounceRepository } from '../../lambda/core/adapters/dynamodb/legacy-debounce-repository';
import { DynamoMessageRepository } from '../../lambda/core/adapters/dynamodb/message-repository';
import { DynamoSessionRepository } from '../../lambda/core/adapters/dynamodb/session-repository';
import { DynamoTurnLedger } from '../../lambda/core/adapters/dynamodb/turn-ledger';
import { DynamoVersionedResourceRepository } from '../../lambda/core/adapters/dynamodb/versioned-resource-repository';
import { encodeDispatchMessage } from '../../lambda/core/adapters/sqs/dispatch-message';
import { StaticCredentialsProvider } from '../../lambda/core/adapters/secrets/static-credentials-provider';
import { randomIdGenerator } from '../../lambda/core/adapters/system/random-id-generator';
import { systemClock } from '../../lambda/core/adapters/system/system-clock';
import { GraphApiWhatsAppSender } from '../../lambda/core/adapters/whatsapp/graph-api-sender';
import { CustomerBudgetGate, type CustomerBudgetSettings } from '../../lambda/core/application/customer-budget-gate';
import { PipelineTokenBudget, type PipelineBudgetSettings } from '../../lambda/core/application/pipeline-token-budget';
import { DynamoPipelineBudgetRepository } from '../../lambda/core/adapters/dynamodb/pipeline-budget-repository';
import { ProcessTurn, type ProcessTurnDependencies } from '../../lambda/core/application/process-turn';
import type { Clock } from '../../lambda/core/ports/clock';
import type { TurnResult } from '../../lambda/core/ports/repositories';
import { createTurnHandler } from '../../lambda/orchestrator/turn-handler';
import { composeWebhook } from '../../lambda/composition/webhook';
import { principalPorts } from './permissions/function-principals';
import { FakeGraphApi } from '../../local/fake-whatsapp/fake-graph-api';
import { LOCAL_WEBHOOK_REQUEST_TIMEOUTS } from '../../local/runtime/local-pipeline';
import { createTurnQueues } from '../../local/servers/local-resources';
import { webhookSettings } from './deployment-settings';
import { createTestTable, type TestTable } from './dynamo-table';
import { messageNotification, signedPost, TEST_CREDENTIALS, textNotification } from './webhook-events';

process.env.POWERTOOLS_METRICS_DISABLED = 'true';

export interface TurnHarnessOptions {
  readonly agent?: ScriptedAgentOptions;
  /** Wraps the use case's ports, e.g. to act between two of its steps (test-only fault points). */
  readonly wrap?: (deps: ProcessTurnDependencies) => ProcessTurnDependencies;
  readonly settings?: ProcessTurnDependencies['settings'];
  /** Turns the customer budget gate on, counting at the clock's instants (default: the system clock). */
  readonly budget?: { readonly settings?: Partial<CustomerBudgetSettings>; readonly clock?: Clock };
  /** With `budget`, the pipeline-wide daily token budget too (read at most once per `refreshMs`, default the deployed window). */
  readonly pipelineBudget?: { readonly settings: PipelineBudgetSettings; readonly refreshMs?: number };
  /** The clock the turn reads (e.g. to let a customer's 24-hour window close between attempts; default: the system clock). */
  readonly clock?: Clock;
}

/** A `wrap` that runs `act` right after the turn's result was persisted, before the guard and the send. */
export function afterPersist(act: (deps: ProcessTurnDependencies, write: TurnResult) => Promise<void>): NonNullable<TurnHarnessOptions['wrap']> {
  return (deps) => ({
    ...deps,
    ledger: Object.assign(Object.create(deps.ledger), {
      persistResult: async (write: TurnResult) => {
        const persisted = await deps.ledger.persistResult(write);
        await act(deps, write);
        return persisted;
      },
    }),
  });
}

/**
 * The orchestrator's use case wired to DynamoDB Local, a fake Graph API over real HTTP and the
 * scripted agent; customer messages enter through the real webhook handler.
 */
export class TurnHarness {
  static async start(options: TurnHarnessOptions = {}): Promise<TurnHarness> {
    const table = await createTestTable('turns');
    const sqs = new SQSClient({});
    const { turnQueueUrl: queueUrl } = await createTurnQueues(sqs, physicalNames('turns', randomUUID().slice(0, 8)));
    const fake = await FakeGraphApi.start({ accessToken: TEST_CREDENTIALS.accessToken });
    return new TurnHarness(table, queueUrl, fake, options);
  }

  readonly kit: DynamoKit;
  readonly agent: ScriptedAgent;
  readonly receipts: DynamoInboundReceiptRepository;
  readonly legacy: DynamoLegacyDebounceRepository;
  readonly sessions: DynamoSessionRepository;
  readonly messages: DynamoMessageRepository;
  readonly demands: DynamoDemandRepository;
  readonly resources: DynamoVersionedResourceRepository;
  private readonly logger = new Logger({ serviceName: 'turn-test', logLevel: 'SILENT' });
  /** The turn handler's metrics (disabled: spy on `addMetric` to read them). */
  readonly metrics = new Metrics({ namespace: 'test', serviceName: 'turn-test' });
  private readonly webhook;
  private readonly turnHandler;

  private constructor(
    readonly table: TestTable,
    readonly queueUrl: string,
    readonly fake: FakeGraphApi,
    options: TurnHarnessOptions,
  ) {
    this.kit = new DynamoKit({ tableName: table.name });
    this.agent = new ScriptedAgent(options.agent);
    this.receipts = new DynamoInboundReceiptRepository(this.kit, systemClock);
    this.legacy = new DynamoLegacyDebounceRepository(this.kit);
    this.sessions = new DynamoSessionRepository(this.kit, systemClock);
    this.messages = new DynamoMessageRepository(this.kit, systemClock);
    this.demands = new DynamoDemandRepository(this.kit);
    this.resources = new DynamoVersionedResourceRepository(this.kit, systemClock);
    const credentials = new StaticCredentialsProvider(TEST_CREDENTIALS);
    const deps: ProcessTurnDependencies = {
      ledger: new DynamoTurnLedger(this.kit, systemClock, { sessions: this.sessions, messages: this.messages }),
      receipts: this.receipts,
      legacy: this.legacy,
      sessions: this.sessions,
      messages: this.messages,
      demands: this.demands,
      resources: this.resources,
      agent: this.agent,
      whatsapp: new GraphApiWhatsAppSender({ baseUrl: fake.baseUrl, credentials, requestTimeoutMs: 2_000 }),
      clock: options.clock ?? systemClock,
      ids: randomIdGenerator,
      settings: options.settings,
      budget: options.budget && new CustomerBudgetGate(new DynamoCustomerBudgetRepository(this.kit), options.budget.clock ?? systemClock, options.budget.settings, this.pipelineBudget(options)),
    };
    this.turnHandler = createTurnHandler({ processTurn: new ProcessTurn(options.wrap ? options.wrap(deps) : deps), clock: systemClock, logger: this.logger, metrics: this.metrics });
    this.webhook = composeWebhook(webhookSettings(table.name, queueUrl), {
      credentials,
      ...principalPorts('webhook'),
      logger: this.logger,
      metrics: this.metrics,
      requestTimeouts: LOCAL_WEBHOOK_REQUEST_TIMEOUTS,
    });
  }

  private pipelineBudget({ budget, pipelineBudget }: TurnHarnessOptions): PipelineTokenBudget | undefined {
    if (pipelineBudget === undefined) return undefined;
    return new PipelineTokenBudget(new DynamoPipelineBudgetRepository(this.kit), budget?.clock ?? systemClock, pipelineBudget.settings, pipelineBudget.refreshMs);
  }

  /** Delivery statuses the fake Graph API reports reach the real webhook, signed as Meta's do. */
  reportStatusesToWebhook(): void {
    this.fake.reportStatusesTo(async (notification) => {
      const response = await this.webhook(signedPost(JSON.stringify(notification)));
      if (response.statusCode !== 200) throw new Error(`the webhook answered ${response.statusCode} to the statuses`);
    });
  }

  /** A customer message through the real webhook; returns its HTTP status. */
  async receive(customerId: string, messageId: string, text: string, providerTimestamp = Math.floor(Date.now() / 1000)): Promise<number> {
    const response = await this.webhook(signedPost(textNotification(customerId, messageId, text, providerTimestamp)));
    return response.statusCode ?? 0;
  }

  /** A customer message of any type (Meta's `messages[]` element, without `from`) through the real webhook; returns its HTTP status. */
  async receiveMessage(customerId: string, message: Record<string, unknown>): Promise<number> {
    const response = await this.webhookPost(messageNotification(customerId, { timestamp: String(Math.floor(Date.now() / 1000)), ...message }));
    return response.statusCode ?? 0;
  }

  /** Any body through the real webhook, signed as Meta signs it. */
  webhookPost(body: string) {
    return this.webhook(signedPost(body));
  }

  /** Invokes the orchestrator with one SQS record for the customer, as the event source would. */
  async process(customerId: string, messageId = 'wamid.any', options: { body?: string; receiveCount?: number } = {}): Promise<SQSBatchResponse> {
    const record = {
      messageId: `sqs-${randomUUID()}`,
      receiptHandle: 'handle',
      body: options.body ?? encodeDispatchMessage({ customerId, messageId }),
      attributes: { ApproximateReceiveCount: String(options.receiveCount ?? 1), MessageGroupId: customerId },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:turns.fifo',
      awsRegion: 'us-east-1',
    } as unknown as SQSRecord;
    return this.turnHandler({ Records: [record] }, { getRemainingTimeInMillis: () => 90_000 });
  }

  /** Texts WhatsApp accepted for the customer, in order. */
  sentTo(customerId: string): string[] {
    return this.fake.sent().filter((message) => message.recipient === customerId).map((message) => message.text);
  }

  /** The customer's whole stored history, oldest first, as `role[delivery status]: text` lines. */
  async history(customerId: string): Promise<string[]> {
    const { items } = await this.messages.history(customerId, { limit: 100 });
    return [...items].reverse().map((message) => `${message.role}${message.deliveryStatus ? `[${message.deliveryStatus}]` : ''}: ${message.text}`);
  }

  async close(): Promise<void> {
    await this.fake.close();
    await this.table.drop();
  }
}
