import { afterFoldPoint, planFold, type WindowMessage } from '../../../lambda/core/domain/conversation-memory';

const at = (index: number) => `2026-12-07T08:${String(Math.floor(index / 60)).padStart(2, '0')}:${String(index % 60).padStart(2, '0')}.000000Z`;
/** `turns` customer messages each answered, oldest first. */
function conversation(turns: number, text = 'uma mensagem'): WindowMessage[] {
  return Array.from({ length: turns }, (_, turn) => [
    { role: 'customer' as const, text, at: at(2 * turn) },
    { role: 'assistant' as const, text, at: at(2 * turn + 1) },
  ]).flat();
}
const LIMITS = { messages: 50, characters: 24_000, foldEveryTurns: 5 };

describe('planFold', () => {
  it('does not fold a window within the limits', () => {
    expect(planFold(conversation(25), LIMITS)).toBeUndefined();
  });

  it('folds a window over the message limit, keeping the newest 50 − 2 × foldEveryTurns from a customer message', () => {
    const window = [...conversation(25), { role: 'customer' as const, text: 'mais uma', at: at(50) }];
    const plan = planFold(window, LIMITS)!;
    expect(plan.keep).toHaveLength(39);
    expect(plan.keep[0].role).toBe('customer');
    expect([...plan.fold, ...plan.keep]).toEqual(window);
  });

  it('folds a window over the character limit, keeping the same share of the characters', () => {
    const window = conversation(10, 'x'.repeat(1_500));
    const plan = planFold(window, LIMITS)!;
    const kept = plan.keep.reduce((sum, message) => sum + message.text.length, 0);
    expect(kept).toBeLessThanOrEqual((24_000 * 40) / 50);
    expect(plan.keep[0].role).toBe('customer');
    expect(plan.fold.length).toBeGreaterThan(0);
  });

  it('never folds before foldEveryTurns replies since the last fold (a burst of customer messages waits)', () => {
    const burst = Array.from({ length: 60 }, (_, index) => ({ role: 'customer' as const, text: 'oi', at: at(index) }));
    expect(planFold([...burst, ...conversation(4).map((message, index) => ({ ...message, at: at(100 + index) }))], LIMITS)).toBeUndefined();
  });

  it('a newest message alone over the character limit folds nothing (it is cut, as without memory)', () => {
    expect(planFold([...conversation(5), { role: 'customer', text: 'y'.repeat(30_000), at: at(99) }], LIMITS)).toBeUndefined();
  });
});

it('afterFoldPoint keeps only the messages after the summary’s last one', () => {
  const messages = conversation(3);
  expect(afterFoldPoint(messages, { summary: 's', through: messages[3].at, foldedAt: at(10) })).toEqual(messages.slice(4));
  expect(afterFoldPoint(messages, undefined)).toEqual(messages);
});
