/**
 * What the admins' reports read, measured on DynamoDB Local, each for a 7-day and a 30-day period:
 * - the handoff report, with `handoffs` handoffs a day (default 200), two thirds of them claimed
 *   and half of those answered. Each day is one Query of its partition (`REPORT#HANDOFF#{day}`),
 *   its pages read in turn; the days in parallel.
 * - the usage report, with `replies` agent replies a day (default 150) and a third as many
 *   operators' messages, each priced by a status as Meta's webhook reports it. Each day reads the
 *   LLM day partitions of the key layout (the replies, all the report read before Meta's fees)
 *   and the write shards of the fee index (the other priced messages); both are counted apart.
 * Counts the reports' own reads (the operator function adds the signed-in session's, the same for
 * every call).
 *
 * Prints tables; not a test.
 *
 *   npm run bench:reports [handoffs=200] [replies=150]
 */
import { createDocumentClient, type DynamoCallEvent, type DynamoDocuments } from '../lambda/core/adapters/dynamodb/dynamo-kit';
import { GSI1_PARTITIONS } from '../lib/contract';
import { META_MESSAGE_RATES } from '../lib/contract/meta-message-rates';
import { createDynamoRepositories } from '../lambda/core/adapters/dynamodb/dynamo-repositories';
import { reportDays } from '../lambda/core/domain/agent-usage';
import { handoffReportOf } from '../lambda/core/domain/handoff-report';
import { fromEpochMicros, toEpochMicros } from '../lambda/core/domain/timestamps';
import { HANDOFF_REPORT_BOUND, USAGE_REPORT_BOUND } from '../lambda/core/application/operator/admin-console';
import type { Message } from '../lambda/core/domain/message';
import { usageReportOf } from '../lambda/core/domain/agent-usage';
import { newCustomers } from './measurement';
import { withInProcessPipeline } from './in-process-pipeline';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const WRITES_AT_ONCE = 50;
const now = new Date();
/** The two periods reported: the default week, and 30 days, both up to the same day. */
const PERIODS = { '7 days': reportDays({ to: '2026-03-30' }, now), '30 days': reportDays({ from: '2026-03-01', to: '2026-03-30' }, now) };

async function main(): Promise<void> {
  const perDay = Number(process.argv[2] ?? 200);
  const repliesPerDay = Number(process.argv[3] ?? 150);
  await withInProcessPipeline('reports', async (pipeline) => {
    const calls: DynamoCallEvent[] = [];
    // Each Query's partition and read units, seen on the client: the kit's observer does not name partitions.
    const queries: { partition: string; units: number }[] = [];
    const documents = createDocumentClient();
    const client: DynamoDocuments = {
      call: async (operation, input) => {
        const output = await documents.call(operation, input);
        const partition = (input as { ExpressionAttributeValues?: Record<string, unknown> }).ExpressionAttributeValues?.[':partition'];
        const consumed = (output as { ConsumedCapacity?: { CapacityUnits?: number } }).ConsumedCapacity;
        if (typeof partition === 'string') queries.push({ partition, units: consumed?.CapacityUnits ?? 0 });
        return output;
      },
    };
    const repositories = createDynamoRepositories({ tableName: pipeline.tableName, client, observer: { onRemoteCall: (event) => calls.push(event) } });
    const { handoffReport, messages } = repositories;

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

    // The usage report: each day's replies, and a third as many operators' messages, every one priced by its `sent` status.
    const customers = newCustomers(200);
    const priced: (() => Promise<void>)[] = [];
    for (const day of PERIODS['30 days']) {
      for (let index = 0; index < repliesPerDay + Math.floor(repliesPerDay / 3); index++) {
        const timestamp = fromEpochMicros(toEpochMicros(`${day}T08:00:00Z`) + index * 60_000_000);
        const byAgent = index < repliesPerDay;
        const message: Message = {
          customerId: customers[index % customers.length],
          sessionId: `${day}-${index}`,
          messageId: `${day}-${index}`,
          direction: 'outbound',
          role: byAgent ? 'assistant' : 'operator',
          text: 'Olá!',
          timestamp,
          deliveryStatus: 'sent',
          providerMessageId: `wamid.${day}-${index}`,
          ...(byAgent && { llm: { model: 'model-a', inputTokens: 1_200, outputTokens: 60, cacheReadInputTokens: 2_000 } }),
        };
        priced.push(async () => {
          await messages.append(message);
          await messages.recordReceipt(messages.refFor(message), { status: 'sent', at: timestamp, providerMessageId: message.providerMessageId!, pricing: { billable: true, category: 'service', type: 'regular', pricingModel: 'PMP' } });
        });
      }
    }
    for (let start = 0; start < priced.length; start += WRITES_AT_ONCE) await Promise.all(priced.slice(start, start + WRITES_AT_ONCE).map((write) => write()));

    console.log(`\nUsage report, ${repliesPerDay} agent replies and ${Math.floor(repliesPerDay / 3)} operators' messages a day, each priced by Meta (bound: ${USAGE_REPORT_BOUND.pagesPerPartition} pages of ${USAGE_REPORT_BOUND.pageSize} a partition)`);
    console.log('  period     replies  priced   LLM day: requests  read units   fee index: requests  read units');
    for (const [name, days] of Object.entries(PERIODS)) {
      queries.length = 0;
      const report = usageReportOf(await messages.agentUsageByDay(days, USAGE_REPORT_BOUND), META_MESSAGE_RATES.checkedOn);
      const [fee, llm] = [queries.filter((query) => query.partition.startsWith(GSI1_PARTITIONS.prefixes.feeDay)), queries.filter((query) => !query.partition.startsWith(GSI1_PARTITIONS.prefixes.feeDay))];
      const units = (read: typeof queries) => read.reduce((sum, query) => sum + query.units, 0).toFixed(1);
      console.log(`  ${name.padEnd(9)}${String(report.total.replies).padStart(9)}${String(report.total.metaFees.messages).padStart(8)}${String(llm.length).padStart(20)}${units(llm).padStart(12)}${String(fee.length).padStart(22)}${units(fee).padStart(12)}`);
    }
  });
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
