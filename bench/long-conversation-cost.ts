// The 60-turn part of `npm run bench:cache`: a conversation that outgrows the agent's window, with
// the memory (older messages fold into a summary, the window starts at the fold point) and without
// it (the window slides: the newest 50 messages). Per turn: the tokens the model reads, how they are
// billed, and the billed-equivalent input (input + 1.25 × cache writes + 0.1 × cache reads), the
// input of the fold's own call included on the turn that folds.
import { BedrockConversationSummarizer } from '../lambda/core/adapters/agent/bedrock-conversation-summarizer';
import { BedrockConverseAgent } from '../lambda/core/adapters/agent/bedrock-converse-agent';
import { promptCachingSupportOf } from '../lib/contract/prompt-caching';
import { addTotals, FakeConverseModel, type ModelTotals } from '../local/fake-bedrock/fake-converse-model';
import { FakeSummarizingModel } from '../local/fake-bedrock/fake-summarizing-model';
import { startLocalPipeline } from '../local/runtime/local-pipeline';
import { ANSWER_AT_ONCE, newCustomers, UNREACHED_BUDGET } from './measurement';

const TURNS = 60;
const MODEL_ID = 'us.anthropic.claude-sonnet-4-20250514-v1:0';
/** About the length of a WhatsApp answer the default prompt asks for (two or three short sentences). */
const REPLY_WORDS = 45;
/** A summary of about 1,200 characters: what a model writes of a long qualifying conversation. */
const SUMMARY_WORDS = 140;
const TOPICS = [
  'Quero saber sobre o exame de sequenciamento para a minha clínica.',
  'A gente atende uns 30 pacientes por mês, às vezes mais no verão.',
  'As amostras seriam de sangue, coletadas aqui mesmo na clínica.',
  'Qual é o prazo de entrega dos resultados nesse caso?',
  'E vocês buscam as amostras ou precisamos enviar pelo correio?',
  'Quanto custa mais ou menos cada exame nesse volume?',
] as const;

/** One turn's figures: what the model read, billed as Bedrock bills it, and whether the memory folded. */
export interface TurnFigures {
  readonly turn: number;
  readonly usage: ModelTotals;
  /** Input, cache writes and reads together: the prompt the model read. */
  readonly promptTokens: number;
  /** Input + 1.25 × writes + 0.1 × reads, with the fold's input on the turn that folded (its output is output). */
  readonly billedEquivalent: number;
  readonly folded: boolean;
}

/** The billed-equivalent input of a turn: cache writes cost 1.25 of an input token, reads 0.1 (Claude on Bedrock). */
export function billedEquivalent(usage: Pick<ModelTotals, 'inputTokens' | 'cacheWriteInputTokens' | 'cacheReadInputTokens'>): number {
  return usage.inputTokens + 1.25 * usage.cacheWriteInputTokens + 0.1 * usage.cacheReadInputTokens;
}

/** The 60 turns of one customer, each answered before the next, with the memory on or off. */
export async function longConversation(endpoints: { readonly dynamoDb: string; readonly sqs: string }, memory: boolean): Promise<TurnFigures[]> {
  const fake = new FakeConverseModel({ toolRounds: 0, replyWords: REPLY_WORDS });
  const summarizing = new FakeSummarizingModel({ summaryWords: SUMMARY_WORDS });
  const agent = new BedrockConverseAgent({
    modelId: MODEL_ID,
    converse: fake.converse,
    promptCaching: promptCachingSupportOf(MODEL_ID),
    ...(memory && { memory: { foldEveryTurns: 5, summarizer: new BedrockConversationSummarizer({ modelId: MODEL_ID, converse: summarizing.converse }) } }),
  });
  const pipeline = await startLocalPipeline({ dynamoDbEndpoint: endpoints.dynamoDb, sqsEndpoint: endpoints.sqs, environment: `long${memory ? 'memory' : 'sliding'}`, logLevel: 'SILENT', agent, customerBudget: UNREACHED_BUDGET, ...ANSWER_AT_ONCE });
  try {
    const [customer] = newCustomers(1);
    const figures: TurnFigures[] = [];
    for (let turn = 1; turn <= TURNS; turn++) {
      const before = fake.totals;
      const summaries = summarizing.asked.length;
      const foldInputBefore = summarizing.totals.inputTokens;
      await pipeline.sendCustomerMessage(customer, `${turn}. ${TOPICS[turn % TOPICS.length]}`);
      await pipeline.fakeWhatsApp.waitForSent(turn, 15_000);
      await pipeline.waitForIdle();
      const usage = addTotals(fake.totals, before, -1);
      figures.push({
        turn,
        usage,
        promptTokens: usage.inputTokens + usage.cacheWriteInputTokens + usage.cacheReadInputTokens,
        billedEquivalent: billedEquivalent(usage) + summarizing.totals.inputTokens - foldInputBefore,
        folded: summarizing.asked.length > summaries,
      });
    }
    return figures;
  } finally {
    await pipeline.stop();
  }
}

/** The largest deviation from the mean over turns `from`–`to`, as a share of the mean. */
function spread(values: readonly number[]): { mean: number; deviation: number } {
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  return { mean, deviation: Math.max(...values.map((value) => Math.abs(value - mean))) / mean };
}

export function reportLongConversation(withMemory: readonly TurnFigures[], sliding: readonly TurnFigures[]): string {
  const header = ['turn', 'prompt', 'input', 'write', 'read', 'billed-eq', '|', 'sliding prompt', 'billed-eq'];
  const rows = withMemory.map((figures, index) => [
    `${figures.turn}${figures.folded ? ' fold' : ''}`,
    String(figures.promptTokens),
    String(figures.usage.inputTokens),
    String(figures.usage.cacheWriteInputTokens),
    String(figures.usage.cacheReadInputTokens),
    figures.billedEquivalent.toFixed(0),
    '|',
    String(sliding[index].promptTokens),
    sliding[index].billedEquivalent.toFixed(0),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const format = (cells: readonly string[]) => cells.map((cell, column) => cell.padStart(widths[column])).join('  ');
  const from20 = (figures: readonly TurnFigures[]) => figures.filter((figures) => figures.turn >= 20);
  const describe = (name: string, figures: readonly TurnFigures[]) => {
    const prompt = spread(from20(figures).map((turn) => turn.promptTokens));
    const billed = spread(from20(figures).map((turn) => turn.billedEquivalent));
    const total = figures.reduce((sum, turn) => sum + turn.billedEquivalent, 0);
    const uncached = figures.reduce((sum, turn) => sum + turn.promptTokens, 0);
    return (
      `${name}: turns 20–60 read ${prompt.mean.toFixed(0)} prompt tokens a turn on average, within ±${(prompt.deviation * 100).toFixed(1)} %; ` +
      `billed-equivalent input ${billed.mean.toFixed(0)} a turn, within ±${(billed.deviation * 100).toFixed(1)} %; ` +
      `60 turns: ${total.toFixed(0)} billed-equivalent of ${uncached} read (${((total / uncached) * 100).toFixed(1)} %).`
    );
  };
  return [
    `A 60-turn conversation, Claude Sonnet 4 (caching as the orchestrator sends it; memory: the agent's model folds at most every 5 turns, a ${SUMMARY_WORDS + 3}-word summary):`,
    '',
    format(header),
    ...rows.map(format),
    '',
    describe('With memory', withMemory),
    describe('Sliding window (memory off)', sliding),
  ].join('\n');
}
