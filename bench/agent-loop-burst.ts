// `npm run bench:burst`: what latest-message-wins inside the agent's tool loop and the burst settle
// wait save. The burst load of `npm run bench` (customers sending three messages 200 ms apart)
// against the Bedrock adapter on the fake Converse model, whose every turn takes tool rounds before
// its reply: with the in-loop check left out of the agent request and no settle wait, with the
// check and no wait, then as deployed (the check and the default `burstSettle`). Prints the model
// calls and tokens of each run, replies per burst, and the reply latency the wait adds.
import { cpus } from 'node:os';
import { BedrockConverseAgent } from '../lambda/core/adapters/agent/bedrock-converse-agent';
import { budgetTokens } from '../lambda/core/domain/customer-budget';
import type { AgentPort } from '../lambda/core/ports/agent';
import { FakeConverseModel, type ModelTotals } from '../local/fake-bedrock/fake-converse-model';
import { startLocalPipeline } from '../local/runtime/local-pipeline';
import { startDynamoDbLocal, startSqsEmulator } from '../local/servers/local-servers';
import { measureBursts, type BurstSummary } from './burst-load';
import { UNREACHED_BUDGET } from './measurement';
import { PIPELINE_DEFAULTS } from '../lib/contract';

const BURSTS = { customers: 10, burstsPerCustomer: 3, gapMs: 200 } as const;
/**
 * The model: each round trip takes 300 ms (a short Claude answer), each turn makes two tool calls
 * before its reply (three round trips, as a turn that records qualification data and checks it
 * does), and a reply runs about forty words.
 */
const MODEL = { latencyMs: 300, toolRounds: 2, replyWords: 40 } as const;
const MODEL_ID = 'us.anthropic.claude-sonnet-4-20250514-v1:0';

interface Run {
  readonly title: string;
  readonly bursts: BurstSummary;
  readonly model: ModelTotals;
  /** Turns that asked the agent (each makes its round trips). */
  readonly agentTurns: number;
}

/** What each run turns on: the agent's in-loop check, and the settle wait (milliseconds, 0: off). */
const RUNS = [
  { name: 'off', title: 'check off', inLoopCheck: false, burstSettleMs: 0 },
  { name: 'check', title: 'check on', inLoopCheck: true, burstSettleMs: 0 },
  { name: 'settle', title: `+ settle ${PIPELINE_DEFAULTS.burstSettleMs / 1000} s`, inLoopCheck: true, burstSettleMs: PIPELINE_DEFAULTS.burstSettleMs },
] as const;

async function main(): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  process.stdout.write(`Node ${process.version} · ${cpus().length} CPUs\nStarting DynamoDB Local and the SQS emulator…\n`);
  const [dynamoDb, sqs] = await Promise.all([startDynamoDbLocal(), startSqsEmulator()]);
  try {
    const run = async ({ name, title, inLoopCheck, burstSettleMs }: (typeof RUNS)[number]): Promise<Run> => {
      process.stdout.write(`Measuring ${BURSTS.customers} customers × ${BURSTS.burstsPerCustomer} bursts, in-loop check ${inLoopCheck ? 'on' : 'off'}, settle wait ${burstSettleMs} ms…\n`);
      const model = new FakeConverseModel(MODEL);
      // Prompt caching off: the figures are the loop's alone.
      const bedrock = new BedrockConverseAgent({ modelId: MODEL_ID, converse: model.converse });
      let agentTurns = 0;
      const agent: AgentPort = {
        model: bedrock.model,
        respond: (request) => {
          agentTurns++;
          return bedrock.respond(inLoopCheck ? request : { ...request, stillLatest: undefined });
        },
      };
      const pipeline = await startLocalPipeline({ dynamoDbEndpoint: dynamoDb.endpoint, sqsEndpoint: sqs.endpoint, environment: `burst${name}`, logLevel: 'SILENT', agent, customerBudget: UNREACHED_BUDGET, burstSettleMs });
      try {
        const bursts = await measureBursts(pipeline, BURSTS.customers, BURSTS.burstsPerCustomer, BURSTS.gapMs);
        await pipeline.waitForIdle();
        return { title, bursts, model: model.totals, agentTurns };
      } finally {
        await pipeline.stop();
      }
    };
    const runs: Run[] = [];
    for (const each of RUNS) runs.push(await run(each));
    process.stdout.write(`\n${report(runs)}\n`);
  } finally {
    await Promise.all([dynamoDb.stop(), sqs.stop()]);
  }
}

function report(runs: readonly Run[]): string {
  const tokens = (model: ModelTotals) => budgetTokens(model);
  const rows: Array<[string, (run: Run) => number, (value: number) => string]> = [
    ['agent turns per burst', (run) => run.agentTurns / run.bursts.bursts, (value) => value.toFixed(2)],
    ['model calls', (run) => run.model.calls, String],
    ['model calls per burst', (run) => run.model.calls / run.bursts.bursts, (value) => value.toFixed(2)],
    ['input tokens', (run) => run.model.inputTokens, String],
    ['output tokens', (run) => run.model.outputTokens, String],
    ['budget tokens (input + output)', (run) => tokens(run.model), String],
    ['replies per burst', (run) => run.bursts.repliesPerBurst.mean, (value) => value.toFixed(2)],
    ['last message → reply p50 ms', (run) => run.bursts.lastMessageToReply.p50Ms, (value) => value.toFixed(0)],
    ['last message → reply p99 ms', (run) => run.bursts.lastMessageToReply.p99Ms, (value) => value.toFixed(0)],
  ];
  const first = runs[0];
  const header = ['', ...runs.map((run) => run.title), ...runs.slice(1).map((run) => `saved (${run.title})`)];
  const lines = rows.map(([name, of, format]) => {
    const off = of(first);
    return [name, ...runs.map((run) => format(of(run))), ...runs.slice(1).map((run) => (off === 0 ? '' : `${(((off - of(run)) / off) * 100).toFixed(0)} %`))];
  });
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => line[column].length)));
  const format = (cells: readonly string[]) => cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('  ');
  const [, checked, settled] = runs;
  const added = (percentile: 'p50Ms' | 'p99Ms') => (settled.bursts.lastMessageToReply[percentile] - checked.bursts.lastMessageToReply[percentile]).toFixed(0);
  return [
    `Bursts: ${first.bursts.bursts} bursts of 3 messages ${BURSTS.gapMs} ms apart, ${BURSTS.customers} customers at once; ` +
      `model: ${MODEL.toolRounds} tool rounds + a reply per turn, ${MODEL.latencyMs} ms a round trip, tokens estimated at 4 characters each.`,
    '',
    format(header),
    ...lines.map(format),
    '',
    `The settle wait of ${PIPELINE_DEFAULTS.burstSettleMs} ms adds ${added('p50Ms')} ms (p50) / ${added('p99Ms')} ms (p99) from a burst's last message to its reply.`,
  ].join('\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
  process.exitCode = 1;
});
