/**
 * `npm run bench:cost`: what a day of conversations costs, in three parts — Meta's fees, the model's
 * tokens and AWS — per conversation and by conversation length. The conversations run through the
 * webhook and the orchestrator in this process on DynamoDB Local, the SQS emulator and the fake
 * Graph API; the agent is the Bedrock adapter on the fake Converse model, which bills tokens as
 * Bedrock does (prompt caching on; a photo as the image tokens Claude bills), with the memory on
 * as deployed (the fake summarizing model folds long conversations). The deployment has media on
 * (the photos go to a bucket on the local S3 server) and the operator plane, with nobody online:
 * a handoff tells the customer so. Meta's statuses of every sent message go back through the
 * webhook with Meta's pricing, and each fee is read from the messages as the console reads it.
 * Not a test.
 *
 *   npm run bench:cost [-- --conversations 1000 --parallel 8]
 *
 * AWS is an estimate from what was measured here, at the list prices the usage report uses
 * (lib/contract/aws-cost-estimate.ts): DynamoDB's consumed capacity of every request
 * (on-demand prices), the functions' GB-seconds (their handler's time in this process, at the
 * construct's memory sizes; this machine is not Lambda, so read it as an order of magnitude) and
 * requests, SQS requests (the webhook's sends, and a receive and a delete per turn for Lambda's
 * poller, whose empty receives are not counted), and an S3 PUT per photo stored. No voice notes: no
 * Transcribe.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { randomBytes } from 'node:crypto';
import { BedrockConversationSummarizer } from '../lambda/core/adapters/agent/bedrock-conversation-summarizer';
import { BedrockConverseAgent } from '../lambda/core/adapters/agent/bedrock-converse-agent';
import { createDynamoRepositories } from '../lambda/core/adapters/dynamodb/dynamo-repositories';
import { SignedSqs, type SqsApi } from '../lambda/core/adapters/sqs/sqs-api';
import { StaticCredentialsProvider } from '../lambda/core/adapters/secrets/static-credentials-provider';
import { composeOrchestrator } from '../lambda/composition/orchestrator';
import { composeWebhook } from '../lambda/composition/webhook';
import { callbackDataOf } from '../lambda/core/domain/callback-data';
import { metaFeeOf } from '../lambda/core/domain/meta-fee';
import { PIPELINE_DEFAULTS } from '../lib/contract';
import { AWS_LIST_PRICES, AWS_USAGE_PER_AGENT_REPLY, awsUsageCost, type AwsUsage } from '../lib/contract/aws-cost-estimate';
import { META_MESSAGE_RATES } from '../lib/contract/meta-message-rates';
import { MODEL_PRICE_DEFAULTS } from '../lib/contract/model-price-defaults';
import { turnModelCost } from '../lib/contract/model-prices';
import { promptCachingSupportOf } from '../lib/contract/prompt-caching';
import { FakeConverseModel } from '../local/fake-bedrock/fake-converse-model';
import { FakeSummarizingModel } from '../local/fake-bedrock/fake-summarizing-model';
import { createMediaBucket } from '../local/servers/local-resources';
import { statusNotification, type StatusPricing } from '../local/fake-whatsapp/fake-graph-api';
import { inProcessSettings, messageNotification, postToWebhook, runTurn, textNotification, withInProcessPipeline } from './in-process-pipeline';
import { newCustomers, UNREACHED_BUDGET } from './measurement';

process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const { values } = parseArgs({ options: { conversations: { type: 'string', default: '1000' }, parallel: { type: 'string', default: '8' } } });
const CONVERSATIONS = Number(values.conversations);
const PARALLEL = Number(values.parallel);

const MODEL_ID = 'us.anthropic.claude-sonnet-4-20250514-v1:0';

/**
 * The day's mix: how many customer messages a conversation has, whether it starts with the
 * business's template outside the window, and what its second message is (a photo) or its last
 * asks for (a person).
 */
const SHAPES = [
  { name: 'short (2 messages)', turns: 2, share: 0.36 },
  { name: 'typical (5 messages)', turns: 5, share: 0.3 },
  { name: 'long (10 messages)', turns: 10, share: 0.13 },
  { name: 'very long (20 messages)', turns: 20, share: 0.04 },
  { name: 'marathon (40, memory folds)', turns: 40, share: 0.01 },
  { name: 'a photo among 3 messages', turns: 3, share: 0.06, photo: true },
  { name: 'handoff at the 3rd message', turns: 3, share: 0.05, handoff: true },
  { name: 'template, then 2 messages', turns: 2, share: 0.05, template: true },
] as const satisfies readonly { name: string; turns: number; share: number; template?: boolean; photo?: boolean; handoff?: boolean }[];
type Shape = (typeof SHAPES)[number] & { readonly template?: boolean; readonly photo?: boolean; readonly handoff?: boolean };

/** What a customer who wants a person writes; the model hands over when it reads it. */
const ASKS_FOR_A_PERSON = 'Prefiro falar com um atendente, por favor.';
/** A phone photo's size: what the webhook's receipt, the download and the bucket carry. */
const PHOTO_BYTES = 200 * 1024;

const LINES = [
  'Oi, boa tarde! Vocês fazem exame de sequenciamento genético?',
  'É para a minha clínica, a gente atende uns 30 pacientes por mês.',
  'Qual é o prazo de entrega dos resultados?',
  'E vocês buscam as amostras ou precisamos enviar pelo correio?',
  'Quanto custa mais ou menos cada exame?',
] as const;

/** Meta's pricing of a free-form reply inside the window: billed at the market's rate, as the rate table assumes from 1 Oct 2026. */
const SERVICE: StatusPricing = { billable: true, pricing_model: 'PMP', category: 'service', type: 'regular' };
const UTILITY_TEMPLATE: StatusPricing = { billable: true, pricing_model: 'PMP', category: 'utility', type: 'regular' };

/** What a conversation used: the usage the report estimates per reply, and the photos' PUTs to the bucket, which it leaves out. */
type Spend = { -readonly [Resource in keyof AwsUsage]: AwsUsage[Resource] } & { s3Puts: number };
const emptySpend = (): Spend => ({ writeRequestUnits: 0, readRequestUnits: 0, sqsRequests: 0, lambdaRequests: 0, lambdaGbSeconds: 0, s3Puts: 0 });
const awsCost = (spend: Spend) => awsUsageCost(spend) + spend.s3Puts * AWS_LIST_PRICES.s3PutRequest;

const READ_OPERATIONS = new Set(['get', 'queryPage', 'batchGet']);

void withInProcessPipeline('bench-cost', async (pipeline) => {
  const { fake, credentials, tableName } = pipeline;
  const bucketName = `${tableName}-media`.toLowerCase();
  await createMediaBucket(process.env.AWS_ENDPOINT_URL_S3!, bucketName);
  const deployed = inProcessSettings(pipeline, { media: { bucketName }, operatorPlane: { adminPhoneNumbers: ['5511900000001'], consoleUrl: 'http://127.0.0.1:9/console', evaluatorFunctionName: 'bench-evaluator' } });
  const settings = { ...deployed, customerBudget: { ...deployed.customerBudget, ...UNREACHED_BUDGET } };
  // Every request is charged to the conversation whose work made it.
  const conversationOf = new AsyncLocalStorage<Spend>();
  const kitObserver = {
    onRemoteCall: (event: { operation: string; consumedCapacity?: { total: number } }) => {
      const spend = conversationOf.getStore();
      if (spend === undefined) return;
      const units = event.consumedCapacity?.total ?? 0;
      if (READ_OPERATIONS.has(event.operation)) spend.readRequestUnits += units;
      else spend.writeRequestUnits += units;
    },
  };
  const queues = new SignedSqs();
  const sqsClient: SqsApi = {
    call: (operation, input) => {
      const spend = conversationOf.getStore();
      if (spend !== undefined) spend.sqsRequests += 1;
      return queues.call(operation, input);
    },
  };
  const logger = new Logger({ logLevel: 'SILENT' });
  const metrics = new Metrics({ namespace: 'bench' });
  const model = new FakeConverseModel({
    replyWords: 45,
    minimumCacheTokens: 1_024,
    toolCall: (turn, roundsDone) => (roundsDone === 0 && turn.at(-1) === ASKS_FOR_A_PERSON ? { name: 'request_human_handoff', input: { reason: 'O cliente pediu um atendente.' } } : undefined),
  });
  // The memory as deployed: on, folding at most every 5 turns with the agent's own model.
  const summarizer = new BedrockConversationSummarizer({ modelId: MODEL_ID, converse: new FakeSummarizingModel().converse });
  const agent = new BedrockConverseAgent({ modelId: MODEL_ID, converse: model.converse, promptCaching: promptCachingSupportOf(MODEL_ID), memory: { foldEveryTurns: 5, summarizer } });
  const webhook = composeWebhook(settings, { credentials: new StaticCredentialsProvider(credentials), logger, metrics, sqsClient, kitObserver });
  const orchestrator = composeOrchestrator(settings, { agent, credentials: new StaticCredentialsProvider(credentials), logger, metrics, kitObserver });
  const repositories = createDynamoRepositories({ tableName });

  /** One invocation of a function: its request, and its time at the function's memory as GB-seconds. */
  const invoke = async <T>(memoryMb: number, work: () => Promise<T>): Promise<T> => {
    const spend = conversationOf.getStore()!;
    const started = performance.now();
    try {
      return await work();
    } finally {
      spend.lambdaRequests += 1;
      spend.lambdaGbSeconds += ((performance.now() - started) / 1000) * (memoryMb / 1024);
    }
  };
  const toWebhook = (body: string) => invoke(PIPELINE_DEFAULTS.webhookMemorySize, () => postToWebhook(webhook, credentials.appSecret, body));
  const reportStatuses = async (customerId: string, providerMessageId: string, callbackData: string, pricing: StatusPricing) => {
    for (const status of ['sent', 'delivered', 'read'] as const) {
      await toWebhook(JSON.stringify(statusNotification({ businessPhoneNumberId: '106540352242922', providerMessageId, recipient: customerId, status, at: new Date(), callbackData, pricing })));
    }
  };

  const converse = async (customerId: string, shape: Shape, index: number): Promise<void> => {
    if (shape.template) {
      // The business re-opens the conversation with a utility template (sent from the console), priced by Meta's statuses.
      const template = { customerId, sessionId: 'outside-window', messageId: `template-${index}`, direction: 'outbound', role: 'operator', text: 'Seu resultado está pronto.', timestamp: new Date().toISOString(), deliveryStatus: 'sent', providerMessageId: `wamid.template-${index}` } as const;
      await repositories.messages.append(template);
      await reportStatuses(customerId, template.providerMessageId, callbackDataOf(repositories.messages.refFor(template)), UTILITY_TEMPLATE);
    }
    for (let turn = 0; turn < shape.turns; turn++) {
      const messageId = `wamid.cost-${index}-${turn}`;
      const before = fake.sent().length;
      if (shape.photo && turn === 1) {
        const mediaId = `${index}${turn}`;
        fake.registerMedia(mediaId, { bytes: randomBytes(PHOTO_BYTES), mimeType: 'image/jpeg' });
        conversationOf.getStore()!.s3Puts += 1;
        await toWebhook(messageNotification(customerId, messageId, { type: 'image', image: { id: mediaId, mime_type: 'image/jpeg', caption: 'Foto do pedido médico' } }));
      } else {
        const text = shape.handoff && turn === shape.turns - 1 ? ASKS_FOR_A_PERSON : LINES[turn % LINES.length];
        await toWebhook(textNotification(customerId, messageId, text));
      }
      // Lambda's poller: a receive and a delete per turn (batch size 1).
      conversationOf.getStore()!.sqsRequests += 2;
      if (await invoke(PIPELINE_DEFAULTS.orchestratorMemorySize, () => runTurn(orchestrator, customerId, messageId))) throw new Error(`the turn of ${messageId} failed`);
      for (const reply of fake.sent().slice(before).filter((sent) => sent.recipient === customerId)) {
        await reportStatuses(customerId, reply.providerMessageId, reply.callbackData!, SERVICE);
      }
    }
  };

  // The day's conversations, each shape its share, run `PARALLEL` at a time.
  const plan = SHAPES.flatMap((shape) => Array.from({ length: Math.round(CONVERSATIONS * shape.share) }, () => shape));
  const customers = newCustomers(plan.length);
  const results: { shape: Shape; customerId: string; spend: Spend; metaUsd: number; modelUsd: number; serviceUsd: number }[] = [];
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < plan.length) {
        const index = next++;
        const spend = emptySpend();
        await conversationOf.run(spend, () => converse(customers[index], plan[index], index));
        results.push({ shape: plan[index], customerId: customers[index], spend, ...(await costsOf(customers[index])) });
      }
    }),
  );

  /** Meta's fees and the model's cost of one customer's messages, as the console prices them. */
  async function costsOf(customerId: string): Promise<{ metaUsd: number; modelUsd: number; serviceUsd: number }> {
    let metaUsd = 0;
    let serviceUsd = 0;
    let modelUsd = 0;
    for (const message of (await repositories.messages.history(customerId, { limit: 200 })).items) {
      const fee = message.metaPricing && metaFeeOf(message.metaPricing, customerId).usd;
      metaUsd += fee ?? 0;
      if (message.metaPricing?.category === 'service') serviceUsd += fee ?? 0;
      if (message.llm) {
        const { model: answeredBy, inputTokens = 0, outputTokens = 0, cacheReadInputTokens, cacheWriteInputTokens, memoryFold } = message.llm;
        modelUsd += turnModelCost({ model: answeredBy ?? MODEL_ID, inputTokens, outputTokens, cacheReadInputTokens, cacheWriteInputTokens }, memoryFold, MODEL_PRICE_DEFAULTS) ?? 0;
      }
    }
    return { metaUsd, modelUsd, serviceUsd };
  }

  const usd = (value: number) => `US$ ${value.toFixed(5)}`;
  const line = (label: string, rows: typeof results) => {
    const mean = (pick: (row: (typeof results)[number]) => number) => rows.reduce((sum, row) => sum + pick(row), 0) / rows.length;
    const [meta, tokens, aws] = [mean((row) => row.metaUsd), mean((row) => row.modelUsd), mean((row) => awsCost(row.spend))];
    const total = meta + tokens + aws;
    const share = (part: number) => `${((part / total) * 100).toFixed(1)} %`;
    console.log(`${label.padEnd(28)} ${String(rows.length).padStart(5)}  ${usd(total)}  Meta ${usd(meta)} (${share(meta)})  model ${usd(tokens)} (${share(tokens)})  AWS ${usd(aws)} (${share(aws)})`);
  };
  console.log(`\n${results.length} conversations in ${((performance.now() - started) / 1000).toFixed(1)} s, ${PARALLEL} at a time; model ${MODEL_ID} with prompt caching; Meta's rates of ${META_MESSAGE_RATES.checkedOn} (estimates)\n`);
  console.log(`${'per conversation'.padEnd(28)} count  total          parts`);
  for (const shape of SHAPES) line(shape.name, results.filter((row) => row.shape === shape));
  line('the day, mean', results);
  const day = (pick: (row: (typeof results)[number]) => number) => results.reduce((sum, row) => sum + pick(row), 0);
  console.log(`\nthe day: Meta ${usd(day((row) => row.metaUsd))}, model ${usd(day((row) => row.modelUsd))}, AWS ${usd(day((row) => awsCost(row.spend)))}`);
  console.log(`  of which Meta's service messages ${usd(day((row) => row.serviceUsd))}: what Meta's part would drop by if it did not bill service messages`);
  const spend = results.reduce((sum, row) => {
    for (const resource of Object.keys(sum) as (keyof Spend)[]) sum[resource] += row.spend[resource];
    return sum;
  }, emptySpend());
  const replies = results.reduce((sum, row) => sum + row.shape.turns, 0);
  const perReply = (resource: keyof Spend) => (spend[resource] / replies).toFixed(3);
  console.log(
    `  AWS measured: ${spend.writeRequestUnits.toFixed(0)} write units, ${spend.readRequestUnits.toFixed(0)} read units, ${spend.sqsRequests} SQS requests, ${spend.lambdaRequests} invocations, ${spend.lambdaGbSeconds.toFixed(1)} GB-s, ${spend.s3Puts} S3 PUTs`,
  );
  console.log(
    `  per answered message (${replies}): ${perReply('writeRequestUnits')} write units, ${perReply('readRequestUnits')} read units, ${perReply('sqsRequests')} SQS requests, ${perReply('lambdaRequests')} invocations, ${perReply('lambdaGbSeconds')} GB-s`,
  );
  console.log(`  the usage report's figures (AWS_USAGE_PER_AGENT_REPLY, measured ${AWS_USAGE_PER_AGENT_REPLY.measuredOn}): ${JSON.stringify(AWS_USAGE_PER_AGENT_REPLY)}`);
});
