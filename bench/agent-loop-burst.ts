// `npm run bench:burst`: what latest-message-wins inside the agent's tool loop saves. The burst load
// of `npm run bench` (customers sending three messages 200 ms apart) against the Bedrock adapter on
// the fake Converse model, whose every turn takes tool rounds before its reply: once with the
// in-loop check left out of the agent request, once as deployed. Prints the model calls and tokens
// of each run and what the check saved.
import { cpus } from 'node:os';
import { BedrockConverseAgent } from '../lambda/core/adapters/agent/bedrock-converse-agent';
import { budgetTokens } from '../lambda/core/domain/customer-budget';
import type { AgentPort } from '../lambda/core/ports/agent';
import { FakeConverseModel, type ModelTotals } from '../local/fake-bedrock/fake-converse-model';
import { startLocalPipeline } from '../local/runtime/local-pipeline';
import { startDynamoDbLocal, startSqsEmulator } from '../local/servers/local-servers';
import { measureBursts, type BurstSummary } from './burst-load';
import { UNREACHED_BUDGET } from './measurement';

const BURSTS = { customers: 10, burstsPerCustomer: 3, gapMs: 200 } as const;
/**
 * The model: each round trip takes 300 ms (a short Claude answer), each turn makes two tool calls
 * before its reply (three round trips, as a turn that records qualification data and checks it
 * does), and a reply runs about forty words.
 */
const MODEL = { latencyMs: 300, toolRounds: 2, replyWords: 40 } as const;
const MODEL_ID = 'us.anthropic.claude-sonnet-4-20250514-v1:0';

interface Run {
  readonly bursts: BurstSummary;
  readonly model: ModelTotals;
}

async function main(): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  process.stdout.write(`Node ${process.version} · ${cpus().length} CPUs\nStarting DynamoDB Local and the SQS emulator…\n`);
  const [dynamoDb, sqs] = await Promise.all([startDynamoDbLocal(), startSqsEmulator()]);
  try {
    const run = async (name: string, inLoopCheck: boolean): Promise<Run> => {
      process.stdout.write(`Measuring ${BURSTS.customers} customers × ${BURSTS.burstsPerCustomer} bursts, in-loop check ${inLoopCheck ? 'on' : 'off'}…\n`);
      const model = new FakeConverseModel(MODEL);
      // Prompt caching off: the figures are the loop's alone.
      const bedrock = new BedrockConverseAgent({ modelId: MODEL_ID, converse: model.converse });
      const agent: AgentPort = inLoopCheck ? bedrock : { model: bedrock.model, respond: (request) => bedrock.respond({ ...request, stillLatest: undefined }) };
      const pipeline = await startLocalPipeline({ dynamoDbEndpoint: dynamoDb.endpoint, sqsEndpoint: sqs.endpoint, environment: `burst${name}`, logLevel: 'SILENT', agent, customerBudget: UNREACHED_BUDGET });
      try {
        const bursts = await measureBursts(pipeline, BURSTS.customers, BURSTS.burstsPerCustomer, BURSTS.gapMs);
        await pipeline.waitForIdle();
        return { bursts, model: model.totals };
      } finally {
        await pipeline.stop();
      }
    };
    const without = await run('off', false);
    const withCheck = await run('on', true);
    process.stdout.write(`\n${report(without, withCheck)}\n`);
  } finally {
    await Promise.all([dynamoDb.stop(), sqs.stop()]);
  }
}

function report(without: Run, withCheck: Run): string {
  const tokens = (model: ModelTotals) => budgetTokens(model);
  const rows: Array<[string, (run: Run) => number, (value: number) => string]> = [
    ['model calls', (run) => run.model.calls, String],
    ['model calls per burst', (run) => run.model.calls / run.bursts.bursts, (value) => value.toFixed(2)],
    ['input tokens', (run) => run.model.inputTokens, String],
    ['output tokens', (run) => run.model.outputTokens, String],
    ['budget tokens (input + output)', (run) => tokens(run.model), String],
    ['replies per burst', (run) => run.bursts.repliesPerBurst.mean, (value) => value.toFixed(2)],
    ['last message → reply p50 ms', (run) => run.bursts.lastMessageToReply.p50Ms, (value) => value.toFixed(0)],
    ['last message → reply p99 ms', (run) => run.bursts.lastMessageToReply.p99Ms, (value) => value.toFixed(0)],
  ];
  const header = ['', 'check off', 'check on', 'saved'];
  const lines = rows.map(([name, of, format]) => {
    const [off, on] = [of(without), of(withCheck)];
    return [name, format(off), format(on), off === 0 ? '' : `${(((off - on) / off) * 100).toFixed(0)} %`];
  });
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => line[column].length)));
  const format = (cells: readonly string[]) => cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('  ');
  return [
    `Bursts: ${withCheck.bursts.bursts} bursts of 3 messages ${BURSTS.gapMs} ms apart, ${BURSTS.customers} customers at once; ` +
      `model: ${MODEL.toolRounds} tool rounds + a reply per turn, ${MODEL.latencyMs} ms a round trip, tokens estimated at 4 characters each.`,
    '',
    format(header),
    ...lines.map(format),
  ].join('\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
  process.exitCode = 1;
});
