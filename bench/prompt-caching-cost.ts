// `npm run bench:cache`: the input tokens billed and the estimated cost of a 10-turn conversation
// with and without Bedrock prompt caching, then a 60-turn one with and without the agent's memory
// (bench/long-conversation-cost.ts). The conversation runs through the local pipeline, so the
// requests are the ones the orchestrator builds (the default system prompt, the built-in tools, the
// session context and the stored history); the fake Converse model estimates their tokens and
// bills them as Bedrock does, cache reads and writes included (local/fake-bedrock).
import { BedrockConverseAgent } from '../lambda/core/adapters/agent/bedrock-converse-agent';
import { budgetTokens } from '../lambda/core/domain/customer-budget';
import { promptCachingSupportOf } from '../lib/contract/prompt-caching';
import { addTotals, FakeConverseModel, type ModelTotals } from '../local/fake-bedrock/fake-converse-model';
import { startLocalPipeline } from '../local/runtime/local-pipeline';
import { startDynamoDbLocal, startSqsEmulator } from '../local/servers/local-servers';
import { billedEquivalent, longConversation, reportLongConversation } from './long-conversation-cost';
import { ANSWER_AT_ONCE, newCustomers, UNREACHED_BUDGET } from './measurement';

/** A customer of a genetics lab qualifying their need; the turns stating facts make the agent record them (one tool round). */
const CONVERSATION = [
  'Oi, boa tarde! Vocês fazem exame de sequenciamento genético?',
  'É para a minha clínica, a gente atende uns 30 pacientes por mês.',
  'As amostras seriam de sangue, coletadas aqui mesmo na clínica.',
  'Qual é o prazo de entrega dos resultados?',
  'E vocês buscam as amostras ou precisamos enviar pelo correio?',
  'Somos de Campinas, interior de São Paulo.',
  'Quanto custa mais ou menos cada exame?',
  'Tem desconto para volume acima de 20 exames por mês?',
  'Perfeito. E como funciona o contrato com clínicas?',
  'Obrigado! Pode me passar para alguém do comercial?',
] as const;
const STATES_A_FACT = new Set<string>([CONVERSATION[1], CONVERSATION[2], CONVERSATION[5]]);
/** About the length of a WhatsApp answer the default prompt asks for (two or three short sentences). */
const REPLY_WORDS = 45;

/** On-demand list prices per million tokens in us-east-1 (https://aws.amazon.com/bedrock/pricing/), and the model's fewest tokens per cache point. */
const MODELS = [
  { name: 'Claude Sonnet 4', modelId: 'us.anthropic.claude-sonnet-4-20250514-v1:0', minimumCacheTokens: 1_024, price: { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 } },
  { name: 'Claude 3.5 Haiku', modelId: 'us.anthropic.claude-3-5-haiku-20241022-v1:0', minimumCacheTokens: 2_048, price: { input: 0.8, output: 4, cacheWrite: 1, cacheRead: 0.08 } },
] as const;
type Model = (typeof MODELS)[number];

async function main(): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const [dynamoDb, sqs] = await Promise.all([startDynamoDbLocal(), startSqsEmulator()]);
  const endpoints = { dynamoDb: dynamoDb.endpoint, sqs: sqs.endpoint };
  try {
    const converse = async (model: Model, caching: boolean): Promise<ModelTotals[]> => {
      const fake = new FakeConverseModel({ toolRounds: (turn) => (STATES_A_FACT.has(turn.at(-1) ?? '') ? 1 : 0), replyWords: REPLY_WORDS, minimumCacheTokens: model.minimumCacheTokens });
      const agent = new BedrockConverseAgent({ modelId: model.modelId, converse: fake.converse, promptCaching: caching ? promptCachingSupportOf(model.modelId) : undefined });
      const pipeline = await startLocalPipeline({ dynamoDbEndpoint: dynamoDb.endpoint, sqsEndpoint: sqs.endpoint, environment: `cache${caching ? 'on' : 'off'}${model.minimumCacheTokens}`, logLevel: 'SILENT', agent, customerBudget: UNREACHED_BUDGET, ...ANSWER_AT_ONCE });
      try {
        const [customer] = newCustomers(1);
        const perTurn: ModelTotals[] = [];
        for (const [index, text] of CONVERSATION.entries()) {
          const before = fake.totals;
          await pipeline.sendCustomerMessage(customer, text);
          await pipeline.fakeWhatsApp.waitForSent(index + 1, 15_000);
          await pipeline.waitForIdle();
          perTurn.push(addTotals(fake.totals, before, -1));
        }
        return perTurn;
      } finally {
        await pipeline.stop();
      }
    };
    for (const model of MODELS) {
      const without = await converse(model, false);
      const withCaching = await converse(model, true);
      process.stdout.write(`\n${report(model, without, withCaching)}\n`);
    }
    const [withMemory, sliding] = [await longConversation(endpoints, true), await longConversation(endpoints, false)];
    process.stdout.write(`\n${reportLongConversation(withMemory, sliding)}\n`);
    process.stdout.write(
      '\nTokens are estimated at one per 4 characters of each block (text, or the JSON of a tool spec, tool use or result);\n' +
        "the model's own tool-use instructions are not counted. Cache points as the orchestrator sends them; cache reads as\n" +
        'Bedrock documents them for Claude (the longest cached prefix ending at a cache point or up to 20 blocks before it),\n' +
        'with every turn within the 5-minute cache lifetime of the previous one.\n',
    );
  } finally {
    await Promise.all([dynamoDb.stop(), sqs.stop()]);
  }
}

function costOf(model: Model, usage: ModelTotals): number {
  const { price } = model;
  return (usage.inputTokens * price.input + usage.outputTokens * price.output + usage.cacheWriteInputTokens * price.cacheWrite + usage.cacheReadInputTokens * price.cacheRead) / 1_000_000;
}

function report(model: Model, without: readonly ModelTotals[], withCaching: readonly ModelTotals[]): string {
  const header = ['turn', 'calls', 'input (no cache)', '|', 'input', 'cache write', 'cache read', '|', 'cost no cache', 'cost cached'];
  const row = (label: string, off: ModelTotals, on: ModelTotals) => [
    label,
    String(on.calls),
    String(off.inputTokens),
    '|',
    String(on.inputTokens),
    String(on.cacheWriteInputTokens),
    String(on.cacheReadInputTokens),
    '|',
    `$${costOf(model, off).toFixed(5)}`,
    `$${costOf(model, on).toFixed(5)}`,
  ];
  const total = (turns: readonly ModelTotals[]) => turns.reduce((a, b) => addTotals(a, b));
  const lines = [...without.map((off, index) => row(String(index + 1), off, withCaching[index])), row('total', total(without), total(withCaching))];
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => line[column].length)));
  const format = (cells: readonly string[]) => cells.map((cell, column) => cell.padStart(widths[column])).join('  ');
  const [off, on] = [total(without), total(withCaching)];
  const billedInputOff = costOf(model, { ...off, outputTokens: 0 });
  const billedInputOn = costOf(model, { ...on, outputTokens: 0 });
  return [
    `${model.name} (${model.modelId}; at least ${model.minimumCacheTokens} tokens per cache point), output ${on.outputTokens} tokens either way:`,
    '',
    format(header),
    ...lines.map(format),
    '',
    `Input billed: ${off.inputTokens} tokens at the input price without caching; with it ${on.inputTokens} at the input price + ${on.cacheWriteInputTokens} cache writes + ${on.cacheReadInputTokens} cache reads ` +
      `($${billedInputOff.toFixed(5)} → $${billedInputOn.toFixed(5)}, ${(((billedInputOff - billedInputOn) / billedInputOff) * 100).toFixed(0)} % less).`,
    `Billed-equivalent input (input + 1.25 × cache writes + 0.1 × cache reads): ${billedEquivalent(on).toFixed(0)} of ${off.inputTokens} uncached (${((billedEquivalent(on) / off.inputTokens) * 100).toFixed(1)} %).`,
    `Budget tokens (cache reads at 0.1, writes at 1.25, per turn): ${without.reduce((sum, turn) => sum + budgetTokens(turn), 0)} → ${withCaching.reduce((sum, turn) => sum + budgetTokens(turn), 0)}.`,
    `Conversation: $${costOf(model, off).toFixed(5)} → $${costOf(model, on).toFixed(5)} (${(((costOf(model, off) - costOf(model, on)) / costOf(model, off)) * 100).toFixed(0)} % less).`,
  ].join('\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
  process.exitCode = 1;
});
