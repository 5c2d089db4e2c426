/**
 * What the admins' handoff report reads, measured on DynamoDB Local: a 7-day and a 30-day report
 * with `handoffs` handoffs a day (default 200), two thirds of them claimed and half of those
 * answered. Each day is one Query of its partition (`REPORT#HANDOFF#{day}`), its pages read in
 * turn; the days in parallel. Counts the report's own reads (the operator function adds the
 * signed-in session's, the same for every call).
 *
 * Prints a table; not a test.
 *
 *   npm run bench:reports [handoffs=200]
 */
import type { DynamoCallEvent } from '../lambda/core/adapters/dynamodb/dynamo-kit';
import { createDynamoRepositories } from '../lambda/core/adapters/dynamodb/dynamo-repositories';
import { reportDays } from '../lambda/core/domain/agent-usage';
import { handoffReportOf } from '../lambda/core/domain/handoff-report';
import { fromEpochMicros, toEpochMicros } from '../lambda/core/domain/timestamps';
import { HANDOFF_REPORT_BOUND } from '../lambda/core/application/operator/admin-console';
import { withInProcessPipeline } from './in-process-pipeline';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const WRITES_AT_ONCE = 50;
const now = new Date();
/** The two periods reported: the default week, and 30 days, both up to the same day. */
const PERIODS = { '7 days': reportDays({ to: '2026-03-30' }, now), '30 days': reportDays({ from: '2026-03-01', to: '2026-03-30' }, now) };

async function main(): Promise<void> {
  const perDay = Number(process.argv[2] ?? 200);
  await withInProcessPipeline('reports', async (pipeline) => {
    const calls: DynamoCallEvent[] = [];
    const repositories = createDynamoRepositories({ tableName: pipeline.tableName, observer: { onRemoteCall: (event) => calls.push(event) } });
    const { handoffReport } = repositories;

    const writes: (() => Promise<void>)[] = [];
    for (const day of PERIODS['30 days']) {
      for (let index = 0; index < perDay; index++) {
        const requestedAt = fromEpochMicros(toEpochMicros(`${day}T08:00:00Z`) + index * 60_000_000);
        const later = (minutes: number) => fromEpochMicros(toEpochMicros(requestedAt) + minutes * 60_000_000);
        const session = { sessionId: `${day}-${index}`, handoffRequestedAt: requestedAt };
        writes.push(async () => {
          if (index % 3 === 2) return handoffReport.recordStep(session);
          await handoffReport.recordStep(session, { step: 'claimed', at: later(1 + (index % 7)) });
          if (index % 2 === 0) await handoffReport.recordStep(session, { step: 'firstReply', at: later(3 + (index % 11)) });
        });
      }
    }
    for (let start = 0; start < writes.length; start += WRITES_AT_ONCE) await Promise.all(writes.slice(start, start + WRITES_AT_ONCE).map((write) => write()));

    console.log(`Handoff report, ${perDay} handoffs a day, DynamoDB Local (bound: ${HANDOFF_REPORT_BOUND.pagesPerPartition} pages of ${HANDOFF_REPORT_BOUND.pageSize} a day)`);
    console.log('  period     handoffs  DynamoDB requests  read units  median to claim');
    for (const [name, days] of Object.entries(PERIODS)) {
      calls.length = 0;
      const report = handoffReportOf(await handoffReport.timelinesByDay(days, HANDOFF_REPORT_BOUND));
      const readUnits = calls.reduce((sum, event) => sum + (event.consumedCapacity?.total ?? 0), 0);
      console.log(`  ${name.padEnd(9)}${String(report.total.handoffs).padStart(10)}${String(calls.length).padStart(19)}${readUnits.toFixed(1).padStart(12)}${`${report.total.medianSecondsToClaim ?? '-'} s`.padStart(17)}`);
    }
  });
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
