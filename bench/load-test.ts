// `npm run load`: 10,000 messages from 1,000 customers through the local pipeline (its own DynamoDB
// Local, SQS emulator, webhook, event source, fake WhatsApp and scripted agent) with faults sprinkled
// in — WhatsApp 5xx answers and accepted-then-dropped sends, agent failures, duplicate webhook
// deliveries — then checks that nothing was lost or answered twice (beyond the counted unknown
// outcomes) and that every customer's pending list drained, and prints the figures.
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { COST_GUARD_DEFAULTS } from '../lib/contract';
import { ScriptedAgent } from '../lambda/core/adapters/agent/scripted-agent';
import type { Message } from '../lambda/core/domain/message';
import { createDynamoRepositories, type DynamoRepositories } from '../lambda/core/adapters/dynamodb/dynamo-repositories';
import type { AcceptedWhatsAppMessage } from '../local/fake-whatsapp/fake-graph-api';
import { startLocalPipeline, type LocalPipeline, type LocalPipelineOptions } from '../local/runtime/local-pipeline';
import type { InvocationReport } from '../local/runtime/sqs-event-source';
import { SignedSqs } from '../lambda/core/adapters/sqs/sqs-api';
import { SqsDeadLetterQueue } from '../lambda/core/adapters/sqs/sqs-dead-letter-queue';
import { RedriveDeadLetters } from '../lambda/core/application/redrive-dead-letters';
import { ANSWER_AT_ONCE, percentile } from './measurement';

export interface LoadOptions {
  readonly customers: number;
  readonly messagesPerCustomer: number;
  /** Customers sending at the same time (each sends its messages one after the other). */
  readonly senders: number;
  /** A customer pauses up to this long (at random) before each next message, as people type. */
  readonly maxPauseMs: number;
  /** Orchestrator invocations in flight at once. */
  readonly orchestratorConcurrency: number;
  /** Every nth agent call fails (the record is retried after the visibility timeout). */
  readonly agentFailureEvery: number;
  /** Every nth message is delivered twice by "Meta". */
  readonly duplicateEvery: number;
  /** How often WhatsApp answers the next two sends with a 503. */
  readonly whatsApp5xxEveryMs: number;
  /** How often WhatsApp accepts the next send and drops the connection (an unknown outcome). */
  readonly whatsAppDropEveryMs: number;
  readonly visibilityTimeoutSeconds: number;
  /** The whole run, sending and draining, must finish within this. */
  readonly timeoutMs: number;

  /** Reuse running local servers (the jest run's), instead of starting them. */
  readonly endpoints?: Pick<LocalPipelineOptions, 'dynamoDbEndpoint' | 'sqsEndpoint'>;
}

export const DEFAULT_LOAD: LoadOptions = {
  customers: 1_000,
  messagesPerCustomer: 10,
  senders: 50,
  maxPauseMs: 1_000,
  orchestratorConcurrency: 20,
  agentFailureEvery: 100,
  duplicateEvery: 20,
  whatsApp5xxEveryMs: 2_000,
  whatsAppDropEveryMs: 5_000,
  visibilityTimeoutSeconds: 10,
  timeoutMs: 30 * 60_000,
};

export interface LoadReport {
  readonly messages: number;
  readonly customers: number;
  readonly sendSeconds: number;
  readonly totalSeconds: number;
  /** Messages accepted by the webhook per second while sending. */
  readonly acceptedPerSecond: number;
  /** Messages answered per second, first POST to last reply. */
  readonly answeredPerSecond: number;
  /** Accepted POST → the reply that answered the message recorded by WhatsApp. */
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  readonly duplicateDeliveries: number;
  /** Orchestrator invocations that succeeded (one per queued turn; most find their message merged into an earlier turn). */
  readonly invocations: number;
  readonly agentCalls: number;
  /** Invocations whose record went back to the queue (failure reported, crash, timeout). */
  readonly retries: number;
  readonly deadLettered: number;
  /** What the redrive did with them, by verdict → action. */
  readonly redrive: Readonly<Record<string, number>>;
  readonly replies: number;
  /** Replies that were the customer budget's short text instead of the agent's (no model call). */
  readonly overBudgetReplies: number;
  /** Accepted-then-dropped sends injected: the only allowed source of duplicate replies. */
  readonly unknownOutcomesInjected: number;
  readonly duplicateReplies: number;
  readonly peakRssMb: { readonly node: number; readonly children: number };
  /** Broken promises: lost or duplicated messages, undrained customers, unexplained duplicates. */
  readonly violations: readonly string[];
}

/** Peak resident memory of a process in MB, from /proc (Linux); 0 where unavailable. */
function peakRssMb(pid: number | 'self'): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

const SCRIPTED_REPLY = /^Olá! Recebi: ([\s\S]*) \(mensagem (\d+)\)$/;

export async function runLoadTest(options: LoadOptions, log: (line: string) => void = () => undefined): Promise<LoadReport> {
  const agent = new ScriptedAgent({ failWhen: (_request, call) => (call % options.agentFailureEvery === 0 ? new Error('injected: the model endpoint is overloaded') : undefined) });
  const invocations: InvocationReport[] = [];
  const pipeline: LocalPipeline = await startLocalPipeline({
    ...options.endpoints,
    environment: `load${Date.now().toString(36)}`,
    agent,
    queue: { visibilityTimeoutSeconds: options.visibilityTimeoutSeconds },
    maxConcurrency: options.orchestratorConcurrency,
    logLevel: 'SILENT',
    onInvocation: (report) => invocations.push(report),
    ...ANSWER_AT_ONCE,
  });
  const deadline = Date.now() + options.timeoutMs;
  let unknownOutcomesInjected = 0;
  const faults = [
    setInterval(() => pipeline.fakeWhatsApp.failNext(2, { httpStatus: 503, code: 131016, message: 'Service temporarily unavailable' }), options.whatsApp5xxEveryMs),
    setInterval(() => {
      pipeline.fakeWhatsApp.acceptThenDropConnection(1);
      unknownOutcomesInjected++;
    }, options.whatsAppDropEveryMs),
  ];
  try {
    const customers = Array.from({ length: options.customers }, (_, index) => `5521${String(index).padStart(9, '0')}`);
    const accepted = new Map<string, { id: string; text: string; acceptedAt: number }[]>();
    let duplicateDeliveries = 0;
    let sent = 0;
    const started = performance.now();
    const startedAt = Date.now();

    // Each sender takes the next customer and sends its messages one after the other.
    let nextCustomer = 0;
    await Promise.all(
      Array.from({ length: options.senders }, async () => {
        while (nextCustomer < customers.length) {
          const customer = customers[nextCustomer++];
          const messages: { id: string; text: string; acceptedAt: number }[] = [];
          accepted.set(customer, messages);
          for (let index = 1; index <= options.messagesPerCustomer; index++) {
            if (Date.now() > deadline) throw new Error('The load test ran out of time while sending');
            if (index > 1) await sleep(Math.random() * options.maxPauseMs);
            const text = `Mensagem ${index} de ${options.messagesPerCustomer}`;
            const sentAt = new Date();
            const { status, messageId } = await pipeline.sendCustomerMessage(customer, text, { sentAt });
            if (status !== 200) throw new Error(`The webhook answered ${status}`);
            messages.push({ id: messageId, text, acceptedAt: Date.now() });
            const count = ++sent;
            if (count % options.duplicateEvery === 0) {
              // Meta redelivers the same notification (same id, same timestamp).
              const again = await pipeline.sendCustomerMessage(customer, text, { messageId, sentAt });
              if (again.status !== 200) throw new Error(`The webhook answered ${again.status} to a redelivery`);
              duplicateDeliveries++;
            }
            if (count % 1_000 === 0) log(`  ${count} messages accepted`);
          }
        }
      }),
    );
    const sendSeconds = (performance.now() - started) / 1000;
    log(`  all ${sent} messages accepted in ${sendSeconds.toFixed(1)} s; waiting for the pipeline to drain…`);
    faults.forEach(clearInterval);
    await pipeline.waitForIdle(Math.max(1_000, deadline - Date.now()));
    const totalSeconds = (performance.now() - started) / 1000;
    const repositories = createDynamoRepositories({ tableName: pipeline.tableName });

    // The operator's part: whatever reached the DLQ is inspected and redriven (or dropped) if safe.
    const deadLetters = new SqsDeadLetterQueue({ turnQueueUrl: pipeline.turnQueueUrl, deadLetterQueueUrl: pipeline.deadLetterQueueUrl, sqs: new SignedSqs({ endpoint: pipeline.endpoints.sqs, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }) });
    const redrive = await new RedriveDeadLetters({ ...repositories, deadLetters }).run({ apply: true });
    const redriven: Record<string, number> = {};
    for (const { inspection, action } of redrive) redriven[`${inspection.verdict}→${action}`] = (redriven[`${inspection.verdict}→${action}`] ?? 0) + 1;
    if (redrive.length > 0) {
      log(`  ${redrive.length} record(s) in the DLQ: ${Object.entries(redriven).map(([what, count]) => `${count} ${what}`).join(', ')}`);
      await pipeline.waitForIdle(Math.max(1_000, deadline - Date.now()));
    }
    const report = await verify(pipeline, repositories, accepted, unknownOutcomesInjected);
    const held = redrive.filter(({ action }) => action === 'held').length;
    if (held > 0) report.violations.push(`${held} DLQ record(s) needed an operator's confirmation`);
    const lastReplyAt = pipeline.fakeWhatsApp.sent().reduce((last, message) => Math.max(last, Date.parse(message.receivedAt)), startedAt);
    return {
      messages: sent,
      customers: options.customers,
      sendSeconds,
      totalSeconds,
      acceptedPerSecond: sent / sendSeconds,
      answeredPerSecond: sent / ((lastReplyAt - startedAt) / 1000),
      latencyP50Ms: percentile(report.latencies, 50),
      latencyP99Ms: percentile(report.latencies, 99),
      duplicateDeliveries,
      invocations: invocations.filter((invocation) => invocation.outcome === 'deleted').length,
      agentCalls: agent.calls,
      retries: invocations.filter((invocation) => invocation.outcome !== 'deleted').length,
      deadLettered: redrive.length,
      redrive: redriven,
      replies: report.replies,
      unknownOutcomesInjected,
      duplicateReplies: report.duplicateReplies,
      overBudgetReplies: report.overBudgetReplies,
      peakRssMb: { node: peakRssMb('self'), children: pipeline.childPids.reduce((sum, pid) => sum + peakRssMb(pid), 0) },
      violations: report.violations,
    };
  } finally {
    faults.forEach(clearInterval);
    await pipeline.stop();
  }
}

/**
 * Every customer: each message once in the history, answered in order (the last ones may wait
 * unanswered after a budget reply), nothing left pending.
 */
async function verify(
  pipeline: LocalPipeline,
  { receipts, messages }: DynamoRepositories,
  accepted: ReadonlyMap<string, readonly { id: string; text: string; acceptedAt: number }[]>,
  unknownOutcomesInjected: number,
): Promise<{ violations: string[]; latencies: number[]; replies: number; duplicateReplies: number; overBudgetReplies: number }> {
  const sends = new Map<string, AcceptedWhatsAppMessage[]>();
  for (const message of pipeline.fakeWhatsApp.sent()) sends.set(message.recipient, [...(sends.get(message.recipient) ?? []), message]);
  const violations: string[] = [];
  const latencies: number[] = [];
  let replies = 0;
  let duplicateReplies = 0;
  let overBudgetReplies = 0;
  for (const [customer, sentMessages] of accepted) {
    const history = [];
    let cursor: string | undefined;
    do {
      const page = await messages.history(customer, { limit: 100, cursor });
      history.push(...page.items);
      cursor = page.cursor;
    } while (cursor !== undefined);
    history.reverse();
    const inbound = history.filter((message) => message.direction === 'inbound');
    for (const message of sentMessages) {
      const stored = inbound.filter((entry) => entry.messageId === message.id).length;
      if (stored !== 1) violations.push(`${customer}: "${message.text}" is in the history ${stored} times`);
    }
    if (inbound.map((message) => message.text).join('\n') !== sentMessages.map((message) => message.text).join('\n')) violations.push(`${customer}: the history is not in the order the messages were sent`);

    const delivered = history.filter((message) => message.direction === 'outbound' && message.deliveryStatus === 'sent');
    const customerSends = sends.get(customer) ?? [];
    replies += delivered.length;
    duplicateReplies += customerSends.length - delivered.length;
    const answered: string[] = [];
    for (const reply of delivered) {
      // The budget's reply answers the messages since the previous reply without echoing them.
      const texts = reply.text === COST_GUARD_DEFAULTS.overBudgetReply ? unansweredBefore(reply, history, answered) : (SCRIPTED_REPLY.exec(reply.text)?.[1].split(' | ') ?? []);
      if (reply.text === COST_GUARD_DEFAULTS.overBudgetReply) overBudgetReplies++;
      answered.push(...texts);
      // Budget replies share one text, so their send cannot be told apart: they are left out of the latencies.
      const recordedAt = reply.text === COST_GUARD_DEFAULTS.overBudgetReply ? Number.NaN : Date.parse(customerSends.find((send) => send.text === reply.text)?.receivedAt ?? '');
      for (const text of texts) {
        const message = sentMessages.find((candidate) => candidate.text === text);
        if (message && Number.isFinite(recordedAt)) latencies.push(recordedAt - message.acceptedAt);
      }
    }
    // Once told the budget reply, a customer's further messages in that window are kept unanswered;
    // the next admitted turn answers them. Only the last ones may stay so, after a budget reply.
    const toldToWait = delivered.at(-1)?.text === COST_GUARD_DEFAULTS.overBudgetReply;
    const expected = sentMessages.map((message) => message.text);
    const answeredInOrder = answered.join('\n') === expected.slice(0, answered.length).join('\n');
    if (!answeredInOrder || (answered.length < expected.length && !toldToWait)) violations.push(`${customer}: the replies answered [${answered.join(', ')}]`);
    const latest = await receipts.getLatest(customer);
    if ((latest?.pendingMessageIds.length ?? 0) > 0 || latest?.outbox !== undefined) violations.push(`${customer}: not drained (pending ${latest?.pendingMessageIds.length}, outbox ${latest?.outbox ? 'set' : 'clear'})`);
  }
  if (duplicateReplies > unknownOutcomesInjected) violations.push(`${duplicateReplies} duplicate replies, but only ${unknownOutcomesInjected} unknown outcomes were injected`);
  return { violations, latencies, replies, duplicateReplies, overBudgetReplies };
}

/** Texts of the customer messages stored before `reply` that no earlier reply answered. */
function unansweredBefore(reply: Message, history: readonly Message[], answered: readonly string[]): string[] {
  const before = history.filter((message) => message.direction === 'inbound' && message.timestamp < reply.timestamp).map((message) => message.text);
  return before.slice(answered.length);
}

export function formatLoadReport(report: LoadReport): string {
  const rows: [string, string][] = [
    ['messages / customers', `${report.messages} / ${report.customers} (+${report.duplicateDeliveries} duplicate webhook deliveries)`],
    ['sending', `${report.sendSeconds.toFixed(1)} s · ${report.acceptedPerSecond.toFixed(0)} messages/s accepted by the webhook`],
    ['until drained', `${report.totalSeconds.toFixed(1)} s · ${report.answeredPerSecond.toFixed(0)} messages/s answered`],
    ['accepted → reply recorded', `p50 ${report.latencyP50Ms.toFixed(0)} ms · p99 ${report.latencyP99Ms.toFixed(0)} ms`],
    ['invocations · agent calls · retries', `${report.invocations} · ${report.agentCalls} · ${report.retries}`],
    ['replies · duplicates (unknown outcomes injected)', `${report.replies} · ${report.duplicateReplies} (${report.unknownOutcomesInjected})`],
    ['budget replies (customer budgets on, the defaults)', `${report.overBudgetReplies}`],
    ['DLQ (then redriven by verdict → action)', `${report.deadLettered}${report.deadLettered > 0 ? ` (${Object.entries(report.redrive).map(([what, count]) => `${count} ${what}`).join(', ')})` : ''}`],
    ['peak RSS', `node ${report.peakRssMb.node.toFixed(0)} MB · DynamoDB Local + SQS emulator ${report.peakRssMb.children.toFixed(0)} MB`],
    ['invariants', report.violations.length === 0 ? '0 lost, 0 duplicated, every pending list drained' : `${report.violations.length} VIOLATED`],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  return [...rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`), ...report.violations.slice(0, 20).map((violation) => `  ! ${violation}`)].join('\n');
}

async function main(): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const { values } = parseArgs({
    options: {
      customers: { type: 'string' },
      messages: { type: 'string' },
      senders: { type: 'string' },
      concurrency: { type: 'string' },
      'max-pause-ms': { type: 'string' },
      'timeout-minutes': { type: 'string' },
    },
  });
  const number = (value: string | undefined, fallback: number, name: string, minimum = 1) => {
    const parsed = value === undefined ? fallback : Number(value);
    if (!Number.isInteger(parsed) || parsed < minimum) throw new RangeError(`--${name} must be an integer of at least ${minimum}`);
    return parsed;
  };
  const options: LoadOptions = {
    ...DEFAULT_LOAD,
    customers: number(values.customers, DEFAULT_LOAD.customers, 'customers'),
    messagesPerCustomer: number(values.messages, DEFAULT_LOAD.messagesPerCustomer, 'messages'),
    senders: number(values.senders, DEFAULT_LOAD.senders, 'senders'),
    orchestratorConcurrency: number(values.concurrency, DEFAULT_LOAD.orchestratorConcurrency, 'concurrency'),
    maxPauseMs: number(values['max-pause-ms'], DEFAULT_LOAD.maxPauseMs, 'max-pause-ms', 0),
    timeoutMs: number(values['timeout-minutes'], DEFAULT_LOAD.timeoutMs / 60_000, 'timeout-minutes') * 60_000,
  };
  console.log(
    `Node ${process.version} · ${cpus().length} CPUs · ${options.customers} customers × ${options.messagesPerCustomer} messages, ` +
      `${options.senders} sending at once (pausing up to ${options.maxPauseMs} ms between messages), ${options.orchestratorConcurrency} orchestrator invocations at once`,
  );
  const report = await runLoadTest(options, (line) => console.log(line));
  console.log(formatLoadReport(report));
  if (report.violations.length > 0) process.exitCode = 1;
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
