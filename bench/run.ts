// `npm run bench`: end-to-end throughput and latency of the local pipeline with the scripted agent,
// next to the floor (the bare DynamoDB transaction + SQS FIFO round trip) on the same local servers.
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PIPELINE_DEFAULTS, physicalNames } from '../lib/contract';
import { createDocumentClient, type DynamoDocuments } from '../lambda/core/adapters/dynamodb/dynamo-kit';
import { startLocalPipeline, type LocalPipeline } from '../local/runtime/local-pipeline';
import { createAgentTable, createTurnQueues } from '../local/servers/local-resources';
import { startDynamoDbLocal, startSqsEmulator, type LocalServer } from '../local/servers/local-servers';
import { measureFloor, type FloorTarget } from './floor';
import { ANSWER_AT_ONCE, summarize, UNREACHED_BUDGET, type Measurement, type Summary } from './measurement';
import { measurePipeline } from './pipeline-load';
import { measureBursts } from './burst-load';

/** Concurrent customers (pipeline) and streams (floor) per level, with bounded work per level. */
const LEVELS = [
  { concurrency: 1, floorPerStream: 200, pipelinePerCustomer: 60 },
  { concurrency: 10, floorPerStream: 40, pipelinePerCustomer: 20 },
  { concurrency: 100, floorPerStream: 5, pipelinePerCustomer: 4 },
] as const;
const LEVEL_TIME_CAP_MS = 30_000;
/** The burst level: customers each sending bursts of three messages this far apart. */
const BURST_LEVEL = { customers: 10, burstsPerCustomer: 3, gapMs: 200 } as const;
/** The local event source's maximum concurrency by default (Lambda's scales with the message groups). */
const DEFAULT_ORCHESTRATOR_CONCURRENCY = 10;

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

async function main(): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const { values } = parseArgs({ options: { 'orchestrator-concurrency': { type: 'string' } } });
  const orchestratorConcurrency = Number(values['orchestrator-concurrency'] ?? DEFAULT_ORCHESTRATOR_CONCURRENCY);
  if (!Number.isInteger(orchestratorConcurrency) || orchestratorConcurrency < 1) throw new RangeError('--orchestrator-concurrency must be a positive integer');
  const region = 'us-east-1';
  process.stdout.write(`Node ${process.version} · ${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? 'unknown'})\nStarting DynamoDB Local and the SQS emulator…\n`);
  const servers: LocalServer[] = [];
  let pipeline: LocalPipeline | undefined;
  let floorClients: { dynamoDb: DynamoDBClient; sqs: SQSClient; documents: DynamoDocuments } | undefined;
  try {
    const [dynamoDb, sqs] = await Promise.all([startDynamoDbLocal(), startSqsEmulator()]);
    servers.push(dynamoDb, sqs);

    floorClients = {
      dynamoDb: new DynamoDBClient({ endpoint: dynamoDb.endpoint, region, credentials: LOCAL_CREDENTIALS }),
      sqs: new SQSClient({ endpoint: sqs.endpoint, region, credentials: LOCAL_CREDENTIALS }),
      documents: createDocumentClient({ endpoint: dynamoDb.endpoint, region, credentials: LOCAL_CREDENTIALS }),
    };
    const floorNames = physicalNames(PIPELINE_DEFAULTS.serviceName, 'benchfloor');
    await createAgentTable(floorClients.dynamoDb, floorNames.table);
    const floorQueues = await createTurnQueues(floorClients.sqs, floorNames);
    const floor: FloorTarget = {
      documents: floorClients.documents,
      sqs: floorClients.sqs,
      tableName: floorNames.table,
      queueUrl: floorQueues.turnQueueUrl,
    };

    pipeline = await startLocalPipeline({
      dynamoDbEndpoint: dynamoDb.endpoint,
      sqsEndpoint: sqs.endpoint,
      environment: 'bench',
      logLevel: 'SILENT',
      maxConcurrency: orchestratorConcurrency,
      customerBudget: UNREACHED_BUDGET,
      ...ANSWER_AT_ONCE,
    });
    const rssBeforeLoadMb = process.memoryUsage().rss / 2 ** 20;

    process.stdout.write('Warming up…\n');
    await measureFloor(floor, 1, 30, LEVEL_TIME_CAP_MS);
    await measurePipeline(pipeline, 1, 15, LEVEL_TIME_CAP_MS);

    const rows: Array<{ concurrency: number; pipeline: Summary; floor: Summary }> = [];
    const processes = { runtime: process.pid, dynamoDb: dynamoDb.pid, sqs: sqs.pid };
    const cpu = { floor: new CpuMeter(processes), pipeline: new CpuMeter(processes) };
    for (const level of LEVELS) {
      process.stdout.write(`Measuring ${level.concurrency} concurrent…\n`);
      const floorSummary = summarize(await cpu.floor.during(() => measureFloor(floor, level.concurrency, level.floorPerStream, LEVEL_TIME_CAP_MS)));
      const pipelineRun = pipeline;
      const pipelineSummary = summarize(await cpu.pipeline.during(() => measurePipeline(pipelineRun, level.concurrency, level.pipelinePerCustomer, LEVEL_TIME_CAP_MS)));
      rows.push({ concurrency: level.concurrency, pipeline: pipelineSummary, floor: floorSummary });
    }
    await pipeline.waitForIdle();
    process.stdout.write(`Measuring bursts (${BURST_LEVEL.customers} customers × ${BURST_LEVEL.burstsPerCustomer} bursts of 3 messages ${BURST_LEVEL.gapMs} ms apart)…\n`);
    const bursts = await measureBursts(pipeline, BURST_LEVEL.customers, BURST_LEVEL.burstsPerCustomer, BURST_LEVEL.gapMs);
    await pipeline.waitForIdle();

    process.stdout.write(`\n${report(rows, orchestratorConcurrency)}\n`);
    const histogram = Object.entries(bursts.repliesPerBurst.counts).map(([replies, times]) => `${replies} repl${replies === '1' ? 'y' : 'ies'} ×${times}`).join(', ');
    process.stdout.write(
      `\nBursts: ${bursts.bursts} bursts of 3 messages ${BURST_LEVEL.gapMs} ms apart, ${BURST_LEVEL.customers} customers at once\n` +
        `  replies per burst: mean ${bursts.repliesPerBurst.mean.toFixed(2)} (${histogram})\n` +
        `  last message → its reply: p50 ${bursts.lastMessageToReply.p50Ms.toFixed(0)} ms, p99 ${bursts.lastMessageToReply.p99Ms.toFixed(0)} ms\n`,
    );
    process.stdout.write(
      [
        '',
        'Peak RSS:',
        `  runtime process (webhook + orchestrator + event source + fake WhatsApp, with the load generator): ${mb(process.resourceUsage().maxRSS * 1024)} (${rssBeforeLoadMb.toFixed(0)} MB before load)`,
        `  DynamoDB Local (Java, pid ${dynamoDb.pid}): ${peakRss(dynamoDb.pid)}`,
        `  SQS emulator (pid ${sqs.pid}): ${peakRss(sqs.pid)}`,
        '',
        'CPU time per message (all levels):',
        `  pipeline: ${cpu.pipeline.perMessage()}`,
        `  floor:    ${cpu.floor.perMessage()}`,
        '',
      ].join('\n'),
    );
  } finally {
    await pipeline?.stop();
    floorClients?.dynamoDb.destroy();
    floorClients?.sqs.destroy();
    await Promise.all(servers.map((server) => server.stop()));
  }
}

function report(rows: ReadonlyArray<{ concurrency: number; pipeline: Summary; floor: Summary }>, orchestratorConcurrency: number): string {
  const header = ['customers', 'msgs', 'msg/s', 'p50 ms', 'p99 ms', '|', 'floor msg/s', 'p50 ms', 'p99 ms', '|', 'pipeline/floor'];
  const lines = rows.map(({ concurrency, pipeline, floor }) => [
    String(concurrency),
    String(pipeline.messages),
    pipeline.perSecond.toFixed(1),
    pipeline.p50Ms.toFixed(0),
    pipeline.p99Ms.toFixed(0),
    '|',
    floor.perSecond.toFixed(1),
    floor.p50Ms.toFixed(0),
    floor.p99Ms.toFixed(0),
    '|',
    (pipeline.perSecond / floor.perSecond).toFixed(2),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => line[column].length)));
  const format = (cells: readonly string[]) => cells.map((cell, column) => cell.padStart(widths[column])).join('  ');
  return [
    `End to end: signed webhook POST → reply recorded by the fake WhatsApp API (scripted agent, no delay; orchestrator concurrency ${orchestratorConcurrency}).`,
    'Floor: 2-item DynamoDB transaction + SQS FIFO send + receive + delete, same servers, same concurrency.',
    '',
    format(header),
    ...lines.map(format),
  ].join('\n');
}

/** Linux reports process CPU times in /proc in units of USER_HZ, which the kernel ABI fixes at 100. */
const USER_HZ = 100;

/** CPU seconds used by each process of the run while a measurement ran, where /proc has them. */
class CpuMeter {
  private readonly seconds: Record<string, number> = {};
  private messages = 0;

  constructor(private readonly pids: Record<string, number>) {}

  async during(measure: () => Promise<Measurement>): Promise<Measurement> {
    const before = this.sample();
    const measurement = await measure();
    const after = this.sample();
    for (const name of Object.keys(this.pids)) this.seconds[name] = (this.seconds[name] ?? 0) + (after[name] - before[name]);
    this.messages += measurement.messages;
    return measurement;
  }

  perMessage(): string {
    if (Object.values(this.seconds).some(Number.isNaN)) return 'unknown (no /proc on this platform)';
    const parts = Object.entries(this.seconds).map(([name, seconds]) => `${name} ${((seconds * 1000) / this.messages).toFixed(1)} ms`);
    const total = Object.values(this.seconds).reduce((sum, seconds) => sum + seconds, 0);
    return `${parts.join(' + ')} = ${((total * 1000) / this.messages).toFixed(1)} ms`;
  }

  private sample(): Record<string, number> {
    return Object.fromEntries(Object.entries(this.pids).map(([name, pid]) => [name, cpuSeconds(pid)]));
  }
}

function cpuSeconds(pid: number): number {
  try {
    // Fields after the parenthesised command name: state is the 1st, utime the 12th, stime the 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(')').pop()!.trim().split(/\s+/);
    return (Number(fields[11]) + Number(fields[12])) / USER_HZ;
  } catch {
    return Number.NaN;
  }
}

function mb(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(0)} MB`;
}

/** VmHWM (the resident set's high-water mark) from /proc, where the platform has it. */
function peakRss(pid: number): string {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? mb(Number(match[1]) * 1024) : 'unknown';
  } catch {
    return 'unknown (no /proc on this platform)';
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
  process.exitCode = 1;
});
