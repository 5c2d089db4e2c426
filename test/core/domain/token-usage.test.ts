// What a turn's model tokens count against the budgets, prompt cache reads and writes included.
import { addUsage, budgetTokens, CACHE_READ_BUDGET_WEIGHT, CACHE_WRITE_BUDGET_WEIGHT } from '../../../lambda/core/domain/customer-budget';

test('input and output count whole; cache reads and writes at their weights, rounded up to a whole token', () => {
  expect(budgetTokens({ inputTokens: 600, outputTokens: 100 })).toBe(700);
  expect(budgetTokens({ inputTokens: 600, outputTokens: 100, cacheReadInputTokens: 2_000, cacheWriteInputTokens: 0 })).toBe(700 + 2_000 * CACHE_READ_BUDGET_WEIGHT);
  expect(budgetTokens({ inputTokens: 0, outputTokens: 0, cacheWriteInputTokens: 1_000 })).toBe(1_000 * CACHE_WRITE_BUDGET_WEIGHT);
  expect(budgetTokens({ inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 1 })).toBe(1);
  expect([CACHE_READ_BUDGET_WEIGHT, CACHE_WRITE_BUDGET_WEIGHT]).toEqual([0.1, 1.25]);
});

test('a sum carries the cache counts only when either side has them', () => {
  expect(addUsage({ inputTokens: 1, outputTokens: 2 }, { inputTokens: 3, outputTokens: 4 })).toEqual({ inputTokens: 4, outputTokens: 6 });
  expect(addUsage({ inputTokens: 1, outputTokens: 2 }, { inputTokens: 3, outputTokens: 4, cacheReadInputTokens: 5 })).toEqual({ inputTokens: 4, outputTokens: 6, cacheReadInputTokens: 5 });
  expect(addUsage({ inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 1, cacheWriteInputTokens: 2 }, { inputTokens: 0, outputTokens: 0, cacheWriteInputTokens: 3 })).toEqual({
    inputTokens: 0,
    outputTokens: 0,
    cacheReadInputTokens: 1,
    cacheWriteInputTokens: 5,
  });
});
