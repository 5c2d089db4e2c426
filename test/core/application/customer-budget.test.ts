import { UNSUPPORTED_MESSAGE_TEXT_DEFAULT } from '../../../lib/contract';
import { ManualClock } from '../../support/manual-clock';
import { TurnHarness } from '../../support/turn-harness';

const CUSTOMER = '5511977776666';
const OVER_BUDGET = 'Calma! Muitas mensagens seguidas.';
/** Meta's timestamp of the messages: recent, since the webhook drops week-old messages. */
const SENT_AT = Math.floor(Date.now() / 1000) - 600;
let harness: TurnHarness;

afterEach(async () => {
  await harness?.close();
});

/** One message and its own turn, as a customer typing one message after another's answer. */
async function turn(n: number, text = `mensagem ${n}`): Promise<void> {
  expect(await harness.receive(CUSTOMER, `wamid.B${n}`, text, SENT_AT + n)).toBe(200);
  expect(await harness.process(CUSTOMER, `wamid.B${n}`)).toEqual({ batchItemFailures: [] });
}

/** Turns 1 to `count`, five minutes apart on `clock` (all inside one UTC day). */
async function turnsFiveMinutesApart(clock: ManualClock, count: number): Promise<void> {
  for (let n = 1; n <= count; n++) {
    await turn(n);
    clock.advance(5 * 60_000);
  }
}

describe('per-customer budget (docs/RELIABILITY.md#security)', () => {
  test('a burst over the per-minute budget never reaches the agent; the customer is told once in the minute', async () => {
    const clock = new ManualClock('2026-11-30T10:15:05.000Z');
    harness = await TurnHarness.start({ budget: { clock, settings: { turnsPerMinute: 2, reply: OVER_BUDGET } } });
    for (let n = 1; n <= 5; n++) await turn(n);

    expect(harness.agent.calls).toBe(2);
    expect(harness.sentTo(CUSTOMER)).toEqual(['Olá! Recebi: mensagem 1 (mensagem 1)', 'Olá! Recebi: mensagem 2 (mensagem 2)', OVER_BUDGET]);
    // The budget reply is the pipeline's, not the model's: no usage, role system. The later messages
    // of the minute are kept, unanswered, for the agent to read once the customer is admitted again.
    expect((await harness.history(CUSTOMER)).slice(-4)).toEqual(['user: mensagem 3', `system[sent]: ${OVER_BUDGET}`, 'user: mensagem 4', 'user: mensagem 5']);

    // The next minute the customer is answered by the agent again (refused turns counted nothing).
    clock.advance(60_000);
    await turn(6);
    expect(harness.agent.calls).toBe(3);
    // The agent reads what the refused minute kept unanswered (the scripted agent echoes every message since the last reply).
    expect(harness.sentTo(CUSTOMER).at(-1)).toBe('Olá! Recebi: mensagem 4 | mensagem 5 | mensagem 6 (mensagem 6)');
  });

  test('a turn an earlier gate answered counts nothing: the notice for an unreadable message leaves the minute to the agent', async () => {
    const clock = new ManualClock('2026-11-30T10:15:05.000Z');
    harness = await TurnHarness.start({ budget: { clock, settings: { turnsPerMinute: 1, reply: OVER_BUDGET } } });
    await harness.receiveMessage(CUSTOMER, { id: 'wamid.U-1', type: 'unsupported', errors: [{ code: 131051, title: 'Message type unknown' }], unsupported: { type: 'poll_creation' } });
    await harness.process(CUSTOMER, 'wamid.U-1');
    await turn(1);

    expect(harness.agent.calls).toBe(1);
    expect(harness.sentTo(CUSTOMER)).toEqual([UNSUPPORTED_MESSAGE_TEXT_DEFAULT, 'Olá! Recebi: mensagem 1 (mensagem 2)']);
  });

  test('the per-hour budget holds across minutes', async () => {
    const clock = new ManualClock('2026-11-30T10:00:00.000Z');
    harness = await TurnHarness.start({ budget: { clock, settings: { turnsPerMinute: 5, turnsPerHour: 3, reply: OVER_BUDGET } } });
    for (let n = 1; n <= 4; n++) {
      await turn(n);
      clock.advance(60_000);
    }
    expect(harness.agent.calls).toBe(3);
    expect(harness.sentTo(CUSTOMER).at(-1)).toBe(OVER_BUDGET);
  });

  test('the daily token budget counts the usage the agent reports, and each reply stores its tokens', async () => {
    const clock = new ManualClock('2026-11-30T10:00:00.000Z');
    harness = await TurnHarness.start({
      agent: { usage: { inputTokens: 600, outputTokens: 100 } },
      budget: { clock, settings: { agentTokensPerDay: 1_000, reply: OVER_BUDGET } },
    });
    // 0 and 700 tokens are below the budget; 1,400 is not.
    await turnsFiveMinutesApart(clock, 3);
    expect(harness.agent.calls).toBe(2);
    expect(harness.sentTo(CUSTOMER).at(-1)).toBe(OVER_BUDGET);

    const { items } = await harness.messages.history(CUSTOMER, { limit: 10 });
    const agentReplies = items.filter((message) => message.role === 'assistant');
    expect(agentReplies.map((message) => [message.llm?.inputTokens, message.llm?.outputTokens])).toEqual([
      [600, 100],
      [600, 100],
    ]);
    expect(items.find((message) => message.role === 'system')?.llm).toBeUndefined();

    // A new UTC day starts a new token count.
    clock.set('2026-12-01T00:00:01.000Z');
    await turn(4);
    expect(harness.agent.calls).toBe(3);
  });

  test('prompt cache tokens count at their weights (reads 0.1, writes 1.25), and each reply stores them', async () => {
    const clock = new ManualClock('2026-11-30T10:00:00.000Z');
    const usage = { inputTokens: 100, outputTokens: 50, cacheReadInputTokens: 5_000, cacheWriteInputTokens: 400 };
    harness = await TurnHarness.start({ agent: { usage }, budget: { clock, settings: { agentTokensPerDay: 1_200, reply: OVER_BUDGET } } });
    // 150 + 5,000 × 0.1 + 400 × 1.25 = 1,150 a turn: the second turn starts below the budget, the third does not
    // (counted unweighted, 5,550 a turn, the second would have been refused).
    await turnsFiveMinutesApart(clock, 3);
    expect(harness.agent.calls).toBe(2);
    expect(harness.sentTo(CUSTOMER).at(-1)).toBe(OVER_BUDGET);

    const { items } = await harness.messages.history(CUSTOMER, { limit: 10 });
    expect(items.filter((message) => message.role === 'assistant').map((message) => message.llm)).toEqual([expect.objectContaining(usage), expect.objectContaining(usage)]);
  });

  test('without a budget gate every turn reaches the agent (the gate is what refuses)', async () => {
    harness = await TurnHarness.start();
    for (let n = 1; n <= 3; n++) await turn(n);
    expect(harness.agent.calls).toBe(3);
  });
});

describe('history sent to the model', () => {
  test('is capped by characters as well as by count, keeping the newest messages', async () => {
    harness = await TurnHarness.start({ settings: { historyMaxCharacters: 200 } });
    await turn(1, 'a'.repeat(150));
    await turn(2, 'b'.repeat(30));
    await turn(3, 'c'.repeat(500));

    const seen = harness.agent.requests.map((request) => request.history.map((entry) => entry.text.length));
    // Turn 2: its own 30 characters fit; the echo of turn 1 before it (over 150 characters) would pass the cap.
    expect(seen[1].reduce((sum, length) => sum + length, 0)).toBeLessThanOrEqual(200);
    expect(harness.agent.requests[1].history.at(-1)?.text).toBe('b'.repeat(30));
    expect(harness.agent.requests[1].history.some((entry) => entry.text === 'a'.repeat(150))).toBe(false);
    // Turn 3: a message longer than the cap alone is kept, cut to it.
    expect(harness.agent.requests[2].history.map((entry) => entry.text)).toEqual(['c'.repeat(200)]);
  });
});
