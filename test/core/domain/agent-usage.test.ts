// The usage report's rules without a table: which UTC days a period covers, and how replies add up.
import { AgentUsageTally, InvalidReportRangeError, MAX_REPORT_DAYS, reportDays, usageReportOf } from '../../../lambda/core/domain/agent-usage';
import { awsEstimateUsd } from '../../../lib/contract/aws-cost-estimate';
import { META_MESSAGE_RATES, metaRateTableFrom } from '../../../lib/contract/meta-message-rates';

const NO_FEES = { messages: 0, billable: 0, usd: 0, unpriced: 0 };

const now = new Date('2026-03-10T02:30:00-03:00'); // 05:30 UTC: the UTC day is the 10th

describe('reportDays', () => {
  test('the last 7 UTC days by default, today included, oldest first', () => {
    expect(reportDays({}, now)).toEqual(['2026-03-04', '2026-03-05', '2026-03-06', '2026-03-07', '2026-03-08', '2026-03-09', '2026-03-10']);
  });

  test('`to` alone ends the week; `from` alone runs to today; across a month and a leap day', () => {
    expect(reportDays({ to: '2024-03-02' }, now)).toEqual(['2024-02-25', '2024-02-26', '2024-02-27', '2024-02-28', '2024-02-29', '2024-03-01', '2024-03-02']);
    expect(reportDays({ from: '2026-03-09' }, now)).toEqual(['2026-03-09', '2026-03-10']);
    expect(reportDays({ from: '2026-03-10', to: '2026-03-10' }, now)).toEqual(['2026-03-10']);
    expect(reportDays({ from: '2026-01-01', to: '2026-01-31' }, now)).toHaveLength(MAX_REPORT_DAYS);
  });

  test.each([
    [{ from: '2026-03-10', to: '2026-03-09' }],
    [{ from: '2026-01-01', to: '2026-02-01' }],
    [{ from: '2026-02-29' }],
    [{ to: '2026-3-1' }],
    [{ to: '2026-03-01T00:00:00Z' }],
  ])('%j is refused before anything is read', (period) => {
    expect(() => reportDays(period, now)).toThrow(InvalidReportRangeError);
  });
});

test('a tally adds replies per model, those without a model last, and a day cut short makes the total incomplete', () => {
  const monday = new AgentUsageTally();
  monday.addReply({ model: 'model-b', inputTokens: 10, outputTokens: 1 });
  monday.addReply(undefined);
  monday.addReply({ model: 'model-a', inputTokens: 5 });
  const tuesday = new AgentUsageTally();
  tuesday.addReply({ model: 'model-a', inputTokens: 7, outputTokens: 2, latencyMs: 100 });
  tuesday.markIncomplete();

  const report = usageReportOf(
    [
      { day: '2026-03-09', ...monday.usage() },
      { day: '2026-03-10', ...tuesday.usage() },
    ],
    '2026-03-01',
  );

  expect(report.days[0]).toEqual({
    day: '2026-03-09',
    replies: 3,
    inputTokens: 15,
    outputTokens: 1,
    models: [
      { model: 'model-a', replies: 1, inputTokens: 5, outputTokens: 0 },
      { model: 'model-b', replies: 1, inputTokens: 10, outputTokens: 1 },
      { replies: 1, inputTokens: 0, outputTokens: 0 },
    ],
    metaFees: NO_FEES,
    aws: { usd: awsEstimateUsd(3, 0), modelWaitSeconds: 0 },
    complete: true,
  });
  expect(report).toMatchObject({ from: '2026-03-09', to: '2026-03-10', metaRatesCheckedOn: '2026-03-01' });
  expect(report.total).toEqual({
    replies: 4,
    inputTokens: 22,
    outputTokens: 3,
    models: [
      { model: 'model-a', replies: 2, inputTokens: 12, outputTokens: 2 },
      { model: 'model-b', replies: 1, inputTokens: 10, outputTokens: 1 },
      { replies: 1, inputTokens: 0, outputTokens: 0 },
    ],
    metaFees: NO_FEES,
    aws: { usd: expect.closeTo(awsEstimateUsd(4, 100), 12), modelWaitSeconds: 0.1 },
    complete: false,
  });
});

test('prompt cache reads and writes are added up where a reply reported them, and only there', () => {
  const day = new AgentUsageTally();
  day.addReply({ model: 'claude', inputTokens: 40, outputTokens: 10, cacheReadInputTokens: 0, cacheWriteInputTokens: 1_500 });
  day.addReply({ model: 'claude', inputTokens: 60, outputTokens: 12, cacheReadInputTokens: 1_500 });
  day.addReply({ model: 'llama', inputTokens: 900, outputTokens: 20 });

  const usage = day.usage();

  expect(usage.models).toEqual([
    { model: 'claude', replies: 2, inputTokens: 100, outputTokens: 22, cacheReadInputTokens: 1_500, cacheWriteInputTokens: 1_500 },
    { model: 'llama', replies: 1, inputTokens: 900, outputTokens: 20 },
  ]);
  expect(usage).toMatchObject({ replies: 3, inputTokens: 1_000, outputTokens: 42, cacheReadInputTokens: 1_500, cacheWriteInputTokens: 1_500 });
  expect(usageReportOf([{ day: '2026-03-10', ...usage }], META_MESSAGE_RATES.checkedOn).total).toEqual(usage);
});

test('a memory fold counts its tokens under its own model, with no reply of its own', () => {
  const day = new AgentUsageTally();
  day.addReply({ model: 'claude', inputTokens: 40, outputTokens: 10, memoryFold: { model: 'haiku', inputTokens: 700, outputTokens: 90 } });
  day.addReply({ model: 'claude', inputTokens: 60, outputTokens: 12, memoryFold: { model: 'claude', inputTokens: 5, outputTokens: 1 } });

  const usage = day.usage();

  expect(usage.models).toEqual([
    { model: 'claude', replies: 2, inputTokens: 105, outputTokens: 23 },
    { model: 'haiku', replies: 0, inputTokens: 700, outputTokens: 90 },
  ]);
  expect(usage).toMatchObject({ replies: 2, inputTokens: 805, outputTokens: 113 });
});

test("Meta's fees at the tally's rate table: the admin's correction of a market's rate over the packaged one", () => {
  const corrected = metaRateTableFrom({ checkedOn: '2026-12-01', rates: { brazil: { service: 0.005 } } });
  const tally = new AgentUsageTally(corrected);
  const service = { billable: true, category: 'service', type: 'regular', pricingModel: 'PMP' };
  tally.addMetaPricing(service, '5511999990000');
  tally.addMetaPricing({ ...service, category: 'utility' }, '5511999990000');

  expect(tally.usage().metaFees).toEqual({ messages: 2, billable: 2, usd: 0.005 + 0.0068, unpriced: 0 });
});
