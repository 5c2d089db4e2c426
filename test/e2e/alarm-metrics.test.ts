// End to end, the custom metrics the construct's alarms watch: each failure that the functions
// absorb (a 5xx answer, a refused signature, a turn that failed for good) must come out of the
// Powertools Metrics instance as the EMF line CloudWatch turns into the alarm's metric. And every
// metric any test here makes the functions emit is one the contract names.
import { createServer } from 'node:net';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { Logger } from '@aws-lambda-powertools/logger';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { AgentBackend, AgentTool } from '../../lib';
import { CUSTOM_METRICS, physicalNames, PIPELINE_DEFAULTS, TURN_OUTCOMES, turnOutcomeMetric, WHATSAPP_SECRET_PLACEHOLDER } from '../../lib/contract';
import { ScriptedAgent } from '../../lambda/core/adapters/agent/scripted-agent';
import { FakeConverseModel } from '../../local/fake-bedrock/fake-converse-model';
import { LOCAL_BEDROCK_MODEL_ID } from '../../local/runtime/local-plan';
import { CHECK_STOCK_TOOL } from '../support/fake-order-service';
import { readWebhookSettings } from '../../lambda/composition/read-settings';
import { composeWebhook } from '../../lambda/composition/webhook';
import { principalPorts } from '../support/permissions/function-principals';
import { createPowertools } from '../../lambda/core/adapters/observability/powertools';
import { StaticCredentialsProvider } from '../../lambda/core/adapters/secrets/static-credentials-provider';
import { startFunctionUrlServer } from '../../local/runtime/function-url-server';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { deliverToWebhook } from '../../local/runtime/meta-notification';
import { ConsoleClient, signInOverWhatsApp } from '../support/operator-console-client';
import { newOperatorPhone, newCustomer } from '../support/ids';
import { testPlan, webhookSettings } from '../support/deployment-settings';
import { startTestPipeline } from '../support/pipeline';
import { waitUntil } from '../support/waiting';
import { alarmPeriods, alarmStateFor, type MetricSeries } from '../support/alarm-evaluation';
import { synthPipeline } from '../support/synthesized-pipeline';
import { metaFeeOf } from '../../lambda/core/domain/meta-fee';
import { defaultModelCost } from '../../lib/contract/model-prices';

/** What Powertools writes for one flush: the EMF envelope plus one property per metric and dimension. */
interface EmfLine {
  readonly _aws: { readonly CloudWatchMetrics: { readonly Namespace: string; readonly Dimensions: string[][]; readonly Metrics: { Name: string; Unit: string }[] }[] };
  readonly [key: string]: unknown;
}

const DEPLOYED = physicalNames(PIPELINE_DEFAULTS.serviceName, 'prod');

/** Every metric name the contract defines: the named ones and the turn outcome family. */
const CONTRACT_METRIC_NAMES: ReadonlySet<string> = new Set([...Object.values(CUSTOM_METRICS), ...TURN_OUTCOMES.map(turnOutcomeMetric)]);

let stdout: string[];
let pipeline: LocalPipeline | undefined;
let stopServer: (() => Promise<void>) | undefined;
beforeEach(() => {
  stdout = [];
  const write = process.stdout.write.bind(process.stdout);
  jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = chunk.toString();
    if (text.includes('"_aws"')) {
      stdout.push(text);
      return true;
    }
    return write(chunk, ...(rest as []));
  });
});
afterEach(() => {
  expect(emittedNames().filter((name) => !CONTRACT_METRIC_NAMES.has(name))).toEqual([]);
});
afterEach(async () => {
  jest.restoreAllMocks();
  await pipeline?.stop();
  await stopServer?.();
  pipeline = undefined;
  stopServer = undefined;
});

/** The Metrics instance a deployed function builds from what the construct tells it. */
function deployedMetrics(): Metrics {
  const previous = process.env.POWERTOOLS_METRICS_DISABLED;
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  try {
    const observability = { serviceName: DEPLOYED.table, metricsNamespace: PIPELINE_DEFAULTS.serviceName, logLevel: 'INFO', tracing: false };
    return createPowertools('unused', readWebhookSettings(testPlan(DEPLOYED.table, 'http://127.0.0.1:9/turns.fifo', { observability }).webhook!).observability).metrics;
  } finally {
    if (previous === undefined) delete process.env.POWERTOOLS_METRICS_DISABLED;
    else process.env.POWERTOOLS_METRICS_DISABLED = previous;
  }
}

function emfLines(): EmfLine[] {
  return stdout.flatMap((chunk) => chunk.split('\n').filter((line) => line.trim() !== '')).map((line) => JSON.parse(line) as EmfLine);
}

/** The names of every metric the functions emitted, each once. */
function emittedNames(): string[] {
  return [...new Set(emfLines().flatMap((line) => line._aws.CloudWatchMetrics.flatMap((directive) => directive.Metrics.map((metric) => metric.Name))))];
}

/** Asserts the metric was written in exactly the series the construct's alarm reads, and returns its total. */
function emittedTotal(metricName: string): number {
  let total = 0;
  for (const line of emfLines()) {
    for (const directive of line._aws.CloudWatchMetrics) {
      if (!directive.Metrics.some((metric) => metric.Name === metricName)) continue;
      expect(directive.Namespace).toBe(PIPELINE_DEFAULTS.serviceName);
      expect(directive.Dimensions).toEqual([['service']]);
      expect(line.service).toBe(DEPLOYED.table);
      total += line[metricName] as number;
    }
  }
  return total;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

it('an app secret nobody filled in: Meta’s signed delivery is refused with 403 and WebhookSignatureRejected is emitted', async () => {
  pipeline = await startTestPipeline({ metrics: deployedMetrics(), webhookAppSecret: WHATSAPP_SECRET_PLACEHOLDER });

  const { status } = await pipeline.sendCustomerMessage(newCustomer(), 'Olá');

  expect(status).toBe(403);
  expect(emittedTotal('WebhookSignatureRejected')).toBe(1);
  expect(emittedTotal('WebhookServerError')).toBe(0);
});

it('DynamoDB unreachable: the webhook answers 500 and WebhookServerError is emitted', async () => {
  const appSecret = 'app-secret-of-the-test';
  const webhook = composeWebhook(webhookSettings(DEPLOYED.table, 'http://127.0.0.1:1/queue/never-reached.fifo'), {
    credentials: new StaticCredentialsProvider({ appSecret, verifyToken: 'verify', accessToken: 'token' }),
    ...principalPorts('webhook'),
    dynamoDbEndpoint: `http://127.0.0.1:${await closedPort()}`,
    logger: new Logger({ logLevel: 'SILENT' }),
    metrics: deployedMetrics(),
  });
  const server = await startFunctionUrlServer(webhook);
  stopServer = () => server.close();

  const delivery = await deliverToWebhook(server.url, appSecret, [{ from: newCustomer(), text: 'Olá' }]);

  expect(delivery.status).toBe(500);
  expect(emittedTotal('WebhookServerError')).toBe(1);
  expect(emittedTotal('WebhookSignatureRejected')).toBe(0);
});

it('a turn that fails on its last receive emits TurnFailedPermanently once, earlier receives do not', async () => {
  const agent = new ScriptedAgent({ failWhen: () => new Error('agent down') });
  let failedReceives = 0;
  pipeline = await startTestPipeline({
    agent,
    metrics: deployedMetrics(),
    queue: { visibilityTimeoutSeconds: 1, maxReceiveCount: 2 },
    onInvocation: (report) => {
      if (report.outcome === 'retained') failedReceives++;
    },
  });

  await pipeline.sendCustomerMessage(newCustomer(), 'Olá');
  await waitUntil(() => failedReceives === 2, 20_000, 'both receives to fail');

  expect(emittedTotal('TurnFailedPermanently')).toBe(1);
});

it('a conversation, an operator signing in and a handoff sweep emit only metrics the contract names', async () => {
  const admin = newOperatorPhone();
  pipeline = await startTestPipeline({ metrics: deployedMetrics(), adminPhoneNumbers: [admin] });

  await pipeline.sendCustomerMessage(newCustomer(), 'Olá');
  await pipeline.fakeWhatsApp.waitForSent(1, 15_000);
  await signInOverWhatsApp(pipeline, admin);
  expect((await new ConsoleClient(pipeline.consoleUrl!).signIn('not-a-login-token')).status).toBe(401);
  await pipeline.sweepHandoffs();

  expect(emittedNames()).toEqual(
    expect.arrayContaining([
      CUSTOM_METRICS.inboundReceived,
      CUSTOM_METRICS.inboundDispatched,
      CUSTOM_METRICS.turnAnswered,
      CUSTOM_METRICS.agentLatency,
      turnOutcomeMetric('operator_command'),
      CUSTOM_METRICS.operatorSignIn,
      CUSTOM_METRICS.operatorSignInRefused,
      CUSTOM_METRICS.handoffsWaiting,
      CUSTOM_METRICS.oldestHandoffWaitingSeconds,
    ]),
  );
});

it('a failure no retry can fix counts Turn_fallback, which its alarm reads', async () => {
  pipeline = await startTestPipeline({ metrics: deployedMetrics() });
  await pipeline.sendCustomerMessage(newCustomer(), 'Isto quebra o agente #falha');
  await pipeline.fakeWhatsApp.waitForSent(1, 15_000);
  await pipeline.waitForIdle();
  expect(emittedTotal(CUSTOM_METRICS.turnFallback)).toBe(1);
  expect(emittedTotal('TurnFailedPermanently')).toBe(0);
});

it('choices within WhatsApp’s limits count InteractiveReplySent, choices beyond them InteractiveReplyFellBackToText', async () => {
  pipeline = await startTestPipeline({ metrics: deployedMetrics() });
  await pipeline.sendCustomerMessage(newCustomer(), 'Qual? #botoes Sim | Não');
  await pipeline.sendCustomerMessage(newCustomer(), 'Qual? #botoes Um | Dois | Três | Quatro');
  await pipeline.fakeWhatsApp.waitForSent(2, 15_000);
  await pipeline.waitForIdle();
  expect(emittedTotal(CUSTOM_METRICS.interactiveReplySent)).toBe(1);
  expect(emittedTotal(CUSTOM_METRICS.interactiveReplyFellBackToText)).toBe(1);
});

it('a message that reaches the turn after the 24-hour window closed counts Turn_outside_window, and nothing is sent', async () => {
  pipeline = await startTestPipeline({ metrics: deployedMetrics() });
  const customer = newCustomer();
  await pipeline.sendCustomerMessage(customer, 'Olá, ontem escrevi', { sentAt: new Date(Date.now() - 25 * 3_600_000) });
  await pipeline.waitForIdle();
  expect(emittedTotal(CUSTOM_METRICS.turnOutsideWindow)).toBe(1);
  expect(pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === customer)).toEqual([]);
});

it('a pipeline whose daily token budget is spent: the next turn gets the budget reply, no model call, and the budget metrics are emitted', async () => {
  const agent = new ScriptedAgent({ usage: { inputTokens: 900, outputTokens: 200 } });
  const reply = 'O atendimento automático de hoje acabou; voltamos amanhã.';
  pipeline = await startTestPipeline({ agent, metrics: deployedMetrics(), pipelineBudget: { agentTokensPerDay: 1_000, reply } });
  const [first, second] = [newCustomer(), newCustomer()];

  await pipeline.sendCustomerMessage(first, 'Olá');
  await pipeline.waitForIdle();
  await pipeline.sendCustomerMessage(second, 'Bom dia');
  await pipeline.waitForIdle();

  expect(agent.calls).toBe(1);
  expect(pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === second).map((message) => message.text)).toEqual([reply]);
  expect((await pipeline.conversation(second)).history.map((message) => [message.role, message.text])).toEqual([
    ['user', 'Bom dia'],
    ['system', reply],
  ]);
  expect(emittedTotal(CUSTOM_METRICS.turnOverPipelineBudget)).toBe(1);
  expect(emittedTotal(CUSTOM_METRICS.turnOverBudget)).toBe(0);
  const gauge = emfLines().filter((line) => typeof line[CUSTOM_METRICS.pipelineAgentTokensToday] === 'number').map((line) => line[CUSTOM_METRICS.pipelineAgentTokensToday]);
  expect(gauge).toEqual([1_100, 1_100]);
});

it('a tool that answers outside its contract counts ToolCallsFailed, which its alarm reads; a business refusal does not', async () => {
  const answers: unknown[] = [{ error: { message: 'Sem estoque hoje.' } }, { inStock: 3 }];
  const checkStock = async () => answers.shift();
  const model = new FakeConverseModel({ toolRounds: 0, toolCall: (_turn, roundsDone) => (roundsDone === 0 ? { name: CHECK_STOCK_TOOL.name, input: { sku: 'pao-frances' } } : undefined) });
  pipeline = await startTestPipeline({ metrics: deployedMetrics(), bedrockAgent: { converse: model.converse, tools: [{ ...CHECK_STOCK_TOOL, handler: checkStock }] } });

  for (const text of ['Tem pão?', 'E agora, tem?']) {
    await pipeline.sendCustomerMessage(newCustomer(), text);
    await pipeline.waitForIdle();
  }

  expect(answers).toEqual([]);
  expect(emittedTotal(CUSTOM_METRICS.toolCalls)).toBe(2);
  expect(emittedTotal(CUSTOM_METRICS.toolCallsFailed)).toBe(1);
  const { template } = synthPipeline({}, (stack) => ({
    agentBackend: AgentBackend.bedrock({ modelId: LOCAL_BEDROCK_MODEL_ID, tools: [AgentTool.fromFunction(lambda.Function.fromFunctionName(stack, 'Stock', 'stock'), CHECK_STOCK_TOOL)] }),
  }));
  const [alarm] = Object.values(template.findResources('AWS::CloudWatch::Alarm', { Properties: { AlarmName: 'TestStack-Pipeline-toolCallsFailed' } }));
  expect(alarm.Properties).toMatchObject({ MetricName: CUSTOM_METRICS.toolCallsFailed, Namespace: PIPELINE_DEFAULTS.serviceName, Dimensions: [{ Name: 'service' }] });
});

/** Every series the functions emitted, summed over the run: what CloudWatch would hold for one period. */
function emittedSeries(): MetricSeries[] {
  const sums = new Map<string, MetricSeries>();
  for (const line of emfLines()) {
    for (const directive of line._aws.CloudWatchMetrics) {
      const dimensions = Object.fromEntries(directive.Dimensions.flat().map((name) => [name, String(line[name])]));
      for (const { Name } of directive.Metrics) {
        const key = JSON.stringify([directive.Namespace, Name, dimensions]);
        const sum = (sums.get(key)?.sum ?? 0) + (line[Name] as number);
        sums.set(key, { namespace: directive.Namespace, metricName: Name, dimensions, sum });
      }
    }
  }
  return [...sums.values()];
}

it('Meta’s fee of a message (once, however many statuses repeat it) and the model’s cost of the turn come out in the series the daily-cost alarm adds up, which fires once a day’s estimate crosses its threshold', async () => {
  const model = 'us.anthropic.claude-sonnet-4-20250514-v1:0';
  const usage = { inputTokens: 1_200, outputTokens: 300, cacheReadInputTokens: 4_000 };
  pipeline = await startTestPipeline({ agent: new ScriptedAgent({ usage, model }), metrics: deployedMetrics() });
  const customer = newCustomer();
  await pipeline.sendCustomerMessage(customer, 'Olá');
  const [reply] = await pipeline.fakeWhatsApp.waitForSent(1, 15_000);
  // A free-form reply inside the window, billed at the market's rate as Meta now bills service messages.
  const billedService = { billable: true, pricing_model: 'PMP', category: 'service', type: 'regular' };
  for (const status of ['sent', 'delivered', 'read'] as const) await pipeline.fakeWhatsApp.reportStatus(reply.providerMessageId, status, { pricing: billedService });

  const fee = metaFeeOf({ billable: true, category: 'service', type: 'regular', pricingModel: 'PMP' }, customer).usd!;
  const modelCost = defaultModelCost(model, usage)!;
  expect(fee).toBeGreaterThan(0);
  expect(modelCost).toBeGreaterThan(0);
  expect(emittedTotal(CUSTOM_METRICS.metaFeesUsd)).toBeCloseTo(fee, 12);
  expect(emittedTotal(CUSTOM_METRICS.agentCostUsd)).toBeCloseTo(modelCost, 12);

  const day = fee + modelCost;
  const alarmWith = (dailyCostUsd: number) => {
    const { template, pipeline: construct } = synthPipeline({ environment: 'prod', alarms: { dailyCostUsd } });
    const alarmName = `${construct.node.scope!.node.id}-${construct.node.id}-dailyCost`;
    expect(alarmPeriods(template, alarmName)).toEqual([86_400, 86_400]);
    return alarmStateFor(template, alarmName, emittedSeries());
  };
  expect(alarmWith(day * 0.95)).toBe('ALARM');
  expect(alarmWith(day * 1.05)).toBe('OK');
});
