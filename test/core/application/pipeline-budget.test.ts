// The pipeline-wide daily token budget: every customer's turns count against one total; once it is
// spent no turn reaches the model, and each customer is told once a day.
import { PipelineTokenBudget } from '../../../lambda/core/application/pipeline-token-budget';
import type { TokenUsage } from '../../../lambda/core/domain/customer-budget';
import type { PipelineBudgetRepository } from '../../../lambda/core/ports/repositories';
import { ManualClock } from '../../support/manual-clock';
import { TurnHarness } from '../../support/turn-harness';

const SPENT = 'O atendimento automático de hoje acabou.';
const SENT_AT = Math.floor(Date.now() / 1000) - 600;

/** The table's counts as several instances share them; counts its reads. */
class SharedCounts implements Pick<PipelineBudgetRepository, 'addTokens' | 'tokensOfDay'> {
  total = 0;
  reads = 0;
  async addTokens(_customerId: string, _at: Date, usage: TokenUsage): Promise<void> {
    this.total += usage.inputTokens + usage.outputTokens;
  }
  async tokensOfDay(): Promise<number> {
    this.reads += 1;
    await new Promise((resolve) => setTimeout(resolve, 5));
    return this.total;
  }
}

describe('an instance’s view of the day’s total', () => {
  const settings = { agentTokensPerDay: 1_000, reply: SPENT };

  test('reads the shared total at most once per window, and adds its own turns at once', async () => {
    const clock = new ManualClock('2026-11-30T10:00:00.000Z');
    const counts = new SharedCounts();
    const one = new PipelineTokenBudget(counts, clock, settings, 30_000);
    const other = new PipelineTokenBudget(counts, clock, settings, 30_000);

    await Promise.all([one.usedToday(), one.usedToday(), one.usedToday()]);
    expect(counts.reads).toBe(1);
    await one.count('5511900000001', { inputTokens: 600, outputTokens: 100 });
    expect(await one.usedToday()).toBe(700);
    expect(counts.reads).toBe(1);

    // The other instance read before that turn: it sees it only after its window.
    expect(await other.usedToday()).toBe(700);
    await one.count('5511900000001', { inputTokens: 300, outputTokens: 0 });
    expect(await one.isSpent()).toBe(true);
    clock.advance(29_999);
    expect(await other.isSpent()).toBe(false);
    clock.advance(1);
    expect(await other.isSpent()).toBe(true);
    expect(counts.reads).toBe(3);
  });

  test('starts each UTC day from that day’s total', async () => {
    const clock = new ManualClock('2026-11-30T23:59:59.000Z');
    const counts = new SharedCounts();
    const budget = new PipelineTokenBudget(counts, clock, settings, 30_000);
    await budget.count('5511900000001', { inputTokens: 1_000, outputTokens: 0 });
    expect(await budget.isSpent()).toBe(true);
    clock.set('2026-12-01T00:00:00.000Z');
    counts.total = 0;
    expect(await budget.isSpent()).toBe(false);
  });
});

describe('turns over the pipeline’s budget', () => {
  let harness: TurnHarness;
  afterEach(() => harness?.close());

  const turn = async (customer: string, n: number) => {
    expect(await harness.receive(customer, `wamid.${customer}.${n}`, `mensagem ${n}`, SENT_AT + n)).toBe(200);
    expect(await harness.process(customer, `wamid.${customer}.${n}`)).toEqual({ batchItemFailures: [] });
  };

  test('never reach the model once the day is spent; each customer is told once, and the next day is answered', async () => {
    const clock = new ManualClock('2026-11-30T10:00:00.000Z');
    harness = await TurnHarness.start({
      agent: { usage: { inputTokens: 600, outputTokens: 100 } },
      budget: { clock },
      pipelineBudget: { settings: { agentTokensPerDay: 1_000, reply: SPENT }, refreshMs: 0 },
    });
    const [ana, bruno] = ['5511966660001', '5511966660002'];
    // 700 tokens spent after Ana's turn, 1,400 after Bruno's: both answered, each under the customer's own budget.
    await turn(ana, 1);
    await turn(bruno, 1);
    expect(harness.agent.calls).toBe(2);

    await turn(ana, 2);
    await turn(ana, 3);
    await turn(bruno, 2);
    expect(harness.agent.calls).toBe(2);
    expect(harness.sentTo(ana)).toEqual(['Olá! Recebi: mensagem 1 (mensagem 1)', SPENT]);
    expect(harness.sentTo(bruno)).toEqual(['Olá! Recebi: mensagem 1 (mensagem 1)', SPENT]);
    expect((await harness.history(ana)).slice(-3)).toEqual(['user: mensagem 2', `system[sent]: ${SPENT}`, 'user: mensagem 3']);

    clock.set('2026-12-01T00:00:01.000Z');
    await turn(ana, 4);
    expect(harness.agent.calls).toBe(3);
    expect(harness.sentTo(ana).at(-1)).toBe('Olá! Recebi: mensagem 3 | mensagem 4 (mensagem 4)');
  });
});
