/**
 * Remote calls and consumed capacity per inbound message (webhook) and per turn (orchestrator,
 * agent excluded), measured on DynamoDB Local and the SQS emulator. Prints a table; not a test.
 *
 *   npx tsx bench/hot-path-calls.ts [messages=40]
 */
import { performance } from 'node:perf_hooks';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { SignedSqs, type SqsApi } from '../lambda/core/adapters/sqs/sqs-api';
import { ScriptedAgent } from '../lambda/core/adapters/agent/scripted-agent';
import type { DynamoCallEvent } from '../lambda/core/adapters/dynamodb/dynamo-kit';
import { StaticCredentialsProvider } from '../lambda/core/adapters/secrets/static-credentials-provider';
import { GraphApiWhatsAppSender } from '../lambda/core/adapters/whatsapp/graph-api-sender';
import { composeOrchestrator } from '../lambda/composition/orchestrator';
import { composeWebhook } from '../lambda/composition/webhook';
import { inProcessSettings, postToWebhook, runTurn, textNotification, withInProcessPipeline } from './in-process-pipeline';
import { createDynamoRepositories } from '../lambda/core/adapters/dynamodb/dynamo-repositories';
import { SessionState } from '../lambda/core/domain/session';
import { composeOperator } from '../lambda/composition/operator';
import { newRawToken } from '../lambda/core/application/operator/operator-sign-in';
import { hashToken } from '../lambda/core/domain/operator-auth';
import { validateConfigValue } from '../lambda/core/domain/operational-settings';
import { OPERATOR_DEFAULTS } from '../lib/contract';

process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

interface RemoteCall {
  readonly service: string;
  readonly operation: string;
  readonly start: number;
  readonly end: number;
  readonly read: number;
  readonly write: number;
}

const READ_OPERATIONS = new Set(['get', 'queryPage', 'batchGet']);

/** Collects the remote calls of one unit of work (one webhook request, or one turn). */
class CallRecorder {
  calls: RemoteCall[] = [];

  dynamo(event: DynamoCallEvent): void {
    const end = performance.now();
    // With ReturnConsumedCapacity TOTAL DynamoDB reports one figure per call; its kind follows the operation.
    const units = event.consumedCapacity?.total ?? 0;
    const isRead = READ_OPERATIONS.has(event.operation);
    this.calls.push({ service: 'dynamodb', operation: event.operation, start: end - event.durationMs, end, read: isRead ? units : 0, write: isRead ? 0 : units });
  }

  other(service: string, operation: string, start: number): void {
    this.calls.push({ service, operation, start, end: performance.now(), read: 0, write: 0 });
  }

  /** Calls that had to wait for an earlier one: overlapping calls share a wave. */
  sequentialWaves(): number {
    const sorted = [...this.calls].sort((a, b) => a.start - b.start);
    let waves = 0;
    let waveEnd = -Infinity;
    for (const call of sorted) {
      if (call.start >= waveEnd) waves += 1;
      waveEnd = call.start >= waveEnd ? call.end : Math.max(waveEnd, call.end);
    }
    return waves;
  }

  take(): RemoteCall[] {
    const taken = this.calls;
    this.calls = [];
    return taken;
  }
}

interface Sample {
  readonly waves: number;
  readonly calls: RemoteCall[];
  readonly ms: number;
}

function summarise(label: string, samples: Sample[]): void {
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const operations = new Map<string, number>();
  for (const sample of samples) for (const call of sample.calls) operations.set(`${call.service}.${call.operation}`, (operations.get(`${call.service}.${call.operation}`) ?? 0) + 1);
  const perUnit = [...operations].map(([name, count]) => `${name}×${(count / samples.length).toFixed(2)}`).join(', ');
  const total = (pick: (call: RemoteCall) => number) => samples.reduce((sum, sample) => sum + sample.calls.reduce((s, call) => s + pick(call), 0), 0) / samples.length;
  console.log(`\n${label} (${samples.length} samples)`);
  console.log(`  remote calls      median ${median(samples.map((s) => s.calls.length))}, sequential waves median ${median(samples.map((s) => s.waves))} (max ${Math.max(...samples.map((s) => s.waves))})`);
  console.log(`  per unit          ${perUnit}`);
  console.log(`  consumed capacity ${total((c) => c.read).toFixed(2)} RCU + ${total((c) => c.write).toFixed(2)} WCU (mean)`);
  console.log(`  wall time         median ${median(samples.map((s) => s.ms)).toFixed(1)} ms`);
}

async function main(): Promise<void> {
  const messages = Number(process.argv[2] ?? 40);
  await withInProcessPipeline('bench', async (pipeline) => {
    const { fake, tableName, credentials } = pipeline;
    const settings = inProcessSettings(pipeline);
    const recorder = new CallRecorder();
    const queues = new SignedSqs();
    const sqsClient: SqsApi = {
      call: async (operation, input) => {
        const start = performance.now();
        try {
          return await queues.call(operation, input);
        } finally {
          recorder.other('sqs', `${operation}Command`, start);
        }
      },
    };
    const logger = new Logger({ logLevel: 'SILENT' });
    const metrics = new Metrics({ namespace: 'bench' });
    const webhook = composeWebhook(settings, { credentials: new StaticCredentialsProvider(credentials), logger, metrics, sqsClient, kitObserver: { onRemoteCall: (event) => recorder.dynamo(event) } });
    const whatsapp = new GraphApiWhatsAppSender({ baseUrl: fake.baseUrl, credentials: new StaticCredentialsProvider(credentials) });
    const countingWhatsApp: typeof whatsapp = Object.assign(Object.create(whatsapp), {
      sendText: async (message: Parameters<typeof whatsapp.sendText>[0]) => {
        const start = performance.now();
        try {
          return await whatsapp.sendText(message);
        } finally {
          recorder.other('whatsapp', 'sendText', start);
        }
      },
    });
    const orchestrator = composeOrchestrator(settings, { whatsapp: countingWhatsApp, logger, metrics, kitObserver: { onRemoteCall: (event) => recorder.dynamo(event) } });

    const post = (handler: typeof webhook, customerId: string, messageId: string, text: string) => postToWebhook(handler, credentials.appSecret, textNotification(customerId, messageId, text));
    const measureInbound = async (into: Sample[], customerId: string, messageId: string, text: string) => {
      const start = performance.now();
      await post(webhook, customerId, messageId, text);
      into.push({ waves: recorder.sequentialWaves(), calls: recorder.take(), ms: performance.now() - start });
    };
    const measureTurn = async (into: Sample[], customerId: string, messageId: string, options: { handler?: typeof orchestrator; expectFailure?: boolean } = {}) => {
      const start = performance.now();
      const failed = await runTurn(options.handler ?? orchestrator, customerId, messageId);
      if (failed !== (options.expectFailure ?? false)) throw new Error(`turn of ${messageId}: unexpected outcome`);
      into.push({ waves: recorder.sequentialWaves(), calls: recorder.take(), ms: performance.now() - start });
    };

    const inbound: { first: Sample[]; next: Sample[] } = { first: [], next: [] };
    const turns: { first: Sample[]; next: Sample[] } = { first: [], next: [] };
    for (let i = 0; i < messages; i++) {
      const customerId = `55119${String(10_000_000 + i)}`;
      for (const phase of ['first', 'next'] as const) {
        const messageId = `wamid.${phase}.${i}`;
        await measureInbound(inbound[phase], customerId, messageId, `mensagem ${phase}`);
        await measureTurn(turns[phase], customerId, messageId);
      }
    }
    summarise('Webhook, first message of a customer', inbound.first);
    summarise('Webhook, message in an existing conversation', inbound.next);
    summarise('Turn (agent excluded), new session', turns.first);
    summarise('Turn (agent excluded), existing session', turns.next);

    // The other paths, on the customers above (each has a session in QUALIFYING and nothing pending).
    const { sessions } = createDynamoRepositories({ tableName: tableName });
    const quietWebhook = composeWebhook(settings, { credentials: new StaticCredentialsProvider(credentials), logger, metrics });
    let interrupt: { customerId: string; messageId: string } | undefined;
    const interrupted = composeOrchestrator(settings, {
      whatsapp: countingWhatsApp, logger, metrics, kitObserver: { onRemoteCall: (event) => recorder.dynamo(event) },
      // A newer message arrives while the agent thinks (registered by an uncounted webhook).
      agent: new ScriptedAgent({ respondAfter: async () => { if (interrupt) await post(quietWebhook, interrupt.customerId, interrupt.messageId, 'mudei de ideia'); } }),
    });
    const paths = { takenOver: [] as Sample[], humanInbox: [] as Sample[], humanInboxTurn: [] as Sample[], superseded: [] as Sample[], failedSend: [] as Sample[], resent: [] as Sample[], noop: [] as Sample[] };
    const sample = Math.min(messages, 20);
    for (let i = 0; i < sample; i++) {
      const customerId = `55119${String(10_000_000 + i)}`;
      // Superseded: the reply of wamid.s loses to wamid.t, which its own turn then answers.
      await post(quietWebhook, customerId, `wamid.s.${i}`, 'quero um exame');
      recorder.take();
      interrupt = { customerId, messageId: `wamid.t.${i}` };
      await measureTurn(paths.superseded, customerId, `wamid.s.${i}`, { handler: interrupted });
      interrupt = undefined;
      await measureTurn([], customerId, `wamid.t.${i}`);
      // Nothing pending: the later records of a burst.
      await measureTurn(paths.noop, customerId, `wamid.t.${i}`);
      // A send that fails (WhatsApp unavailable), then the retry that resends the persisted reply.
      await post(quietWebhook, customerId, `wamid.r.${i}`, 'oi de novo');
      recorder.take();
      fake.failNext(1, { httpStatus: 503, code: 131016, message: 'Service temporarily unavailable' });
      await measureTurn(paths.failedSend, customerId, `wamid.r.${i}`, { expectFailure: true });
      await measureTurn(paths.resent, customerId, `wamid.r.${i}`);
      // A human takes over after the message was routed to the agent, before its turn.
      await post(quietWebhook, customerId, `wamid.h.${i}`, 'quero falar com alguém');
      recorder.take();
      const session = (await sessions.getActive(customerId))!;
      await sessions.transitionState(session, session.state, SessionState.AWAITING_HUMAN);
      recorder.take();
      await measureTurn(paths.takenOver, customerId, `wamid.h.${i}`);
      // A message while a human owns the conversation: the webhook routes it to the human inbox.
      await measureInbound(paths.humanInbox, customerId, `wamid.i.${i}`, 'alô?');
      await measureTurn(paths.humanInboxTurn, customerId, `wamid.i.${i}`);
    }
    summarise('Turn, superseded (a newer message during the agent call)', paths.superseded);
    summarise('Turn, nothing pending (a later record of a burst)', paths.noop);
    summarise('Turn, WhatsApp send failed (record retried)', paths.failedSend);
    summarise('Turn, retry that resends the persisted reply', paths.resent);
    summarise('Turn, human took over before the turn', paths.takenOver);
    summarise('Webhook, message while a human owns the session', paths.humanInbox);
    summarise('Turn, record of a message routed to the human inbox', paths.humanInboxTurn);
    console.log(`\nWhatsApp messages recorded by the fake: ${fake.sent().length} (expected ${messages * 2 + Math.min(messages, 20) * 2})`);

    // The pipeline-wide budget's cost: turns of an agent that reports usage, without and with it, on
    // fresh customers (a second turn each, so the session exists), one orchestrator instance each.
    const reportingAgent = () => new ScriptedAgent({ usage: { inputTokens: 1_200, outputTokens: 150 } });
    const observed = { whatsapp: countingWhatsApp, logger, metrics, kitObserver: { onRemoteCall: (event: DynamoCallEvent) => recorder.dynamo(event) } };
    const withoutBudget = composeOrchestrator(settings, { ...observed, agent: reportingAgent() });
    const withBudget = composeOrchestrator({ ...settings, pipelineBudget: { agentTokensPerDay: 1_000_000_000_000, reply: 'unused' } }, { ...observed, agent: reportingAgent() });
    const budgetPaths = { without: [] as Sample[], first: [] as Sample[], within: [] as Sample[] };
    for (let i = 0; i < sample; i++) {
      for (const [handler, prefix] of [[withoutBudget, 3], [withBudget, 4]] as const) {
        const customerId = `5511${prefix}${String(10_000_000 + i)}`;
        await post(quietWebhook, customerId, `wamid.u1.${i}`, 'primeira');
        recorder.take();
        // The instance's very first turn reads the day's total: it is the first sample of its own.
        await measureTurn(handler === withBudget && i === 0 ? budgetPaths.first : [], customerId, `wamid.u1.${i}`, { handler });
        await post(quietWebhook, customerId, `wamid.u2.${i}`, 'segunda');
        recorder.take();
        await measureTurn(handler === withBudget ? budgetPaths.within : budgetPaths.without, customerId, `wamid.u2.${i}`, { handler });
      }
    }
    summarise('Turn, existing session, agent reporting usage, no pipeline budget', budgetPaths.without);
    summarise('Turn, same, with pipelineBudget (total read less than 30 s ago)', budgetPaths.within);
    summarise('Turn, new session, with pipelineBudget: the instance reads the total', budgetPaths.first);

    await measureAdminCall(tableName, settings);
  });
}

/**
 * What an admin call costs for checking the role against the stored operators list: one
 * consistent GetItem, priced by the list's size.
 */
async function measureAdminCall(tableName: string, settings: ReturnType<typeof inProcessSettings>): Promise<void> {
  const repositories = createDynamoRepositories({ tableName });
  const reads: DynamoCallEvent[] = [];
  const operator = composeOperator(
    { ...settings, deadLetterQueueUrl: settings.turnQueueUrl, evaluatorFunctionName: 'bench-evaluator', operatorPlane: { adminPhoneNumbers: ['5511900000000'], timeZone: OPERATOR_DEFAULTS.timeZone } },
    { console: { serve: () => undefined }, logger: new Logger({ logLevel: 'SILENT' }), metrics: new Metrics({ namespace: 'bench' }), kitObserver: { onRemoteCall: (event) => reads.push(event) } },
  );
  const admin = '5511900000001';
  const call = (method: string, path: string, options: { body?: string; cookie?: string; csrf?: string } = {}) =>
    operator({
      version: '2.0',
      rawPath: path,
      body: options.body,
      headers: { 'content-type': 'application/json', ...(options.csrf ? { 'x-csrf-token': options.csrf } : {}) },
      cookies: options.cookie ? [options.cookie] : undefined,
      requestContext: { http: { method, sourceIp: '127.0.0.1' } },
    } as never);
  console.log('\nOperator API, an admin call (GET /api/admin/audit): the role checked against the stored operators list');
  for (const entries of [35, 100, 500]) {
    const operators: Record<string, { role: string; name: string }> = { [admin]: { role: 'admin', name: 'Admin' } };
    for (let index = 1; index < entries; index++) operators[`5511${String(80_000_000 + index)}`] = { role: 'operator', name: `Operadora ${index} Silva` };
    const stored = validateConfigValue('operators', operators, { author: admin, now: new Date().toISOString(), previous: undefined });
    await repositories.config.set({ key: 'operators', value: stored, author: admin });
    const token = newRawToken();
    await repositories.operatorAuth.putLoginGrant(hashToken(token), admin);
    const signedIn = await call('POST', '/api/session', { body: JSON.stringify({ token }) });
    const cookie = signedIn.cookies![0].split(';')[0];
    reads.length = 0;
    await call('GET', '/api/admin/audit', { cookie });
    const gets = reads.filter((event) => event.operation === 'get');
    console.log(`  ${String(entries).padStart(3)} entries  ${reads.length} requests (${gets.length} GetItem), the list's read ${gets[1]?.consumedCapacity?.total ?? '?'} RCU; an operator's call skips it`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
