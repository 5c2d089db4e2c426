import { setTimeout as sleep } from 'node:timers/promises';
import type { LocalPipeline } from '../local/runtime/local-pipeline';
import { newCustomers, percentile } from './measurement';

const MESSAGES_PER_BURST = 3;
const REPLY_TIMEOUT_MS = 30_000;
/** After the last message's reply, how long to keep counting late replies of the same burst. */
const SETTLE_MS = 500;

export interface BurstSummary {
  readonly bursts: number;
  /** Replies the customer received per burst of three messages (latest-message-wins: ideally 1). */
  readonly repliesPerBurst: { readonly mean: number; readonly counts: Readonly<Record<number, number>> };
  /** From the POST of a burst's last message to the reply that answers it. */
  readonly lastMessageToReply: { readonly p50Ms: number; readonly p99Ms: number };
}

/**
 * Bursts: each customer sends three messages `gapMs` apart, then waits for the reply that answers
 * the last one (the scripted agent quotes every message it answers) before the next burst. Counts
 * how many replies each burst drew — the closed loop of `measurePipeline` cannot show
 * latest-message-wins merging a burst into one reply.
 */
export async function measureBursts(pipeline: LocalPipeline, customers: number, burstsPerCustomer: number, gapMs: number): Promise<BurstSummary> {
  const fake = pipeline.fakeWhatsApp;
  const repliesTo = (customer: string) => fake.sent().filter((reply) => reply.recipient === customer);
  const counts: number[] = [];
  const latencies: number[] = [];
  await Promise.all(
    newCustomers(customers).map(async (customer) => {
      for (let burst = 1; burst <= burstsPerCustomer; burst++) {
        const before = repliesTo(customer).length;
        let lastSentAt = 0;
        const last = `rajada ${burst}, mensagem ${MESSAGES_PER_BURST}`;
        for (let message = 1; message <= MESSAGES_PER_BURST; message++) {
          if (message > 1) await sleep(gapMs);
          lastSentAt = performance.now();
          const { status } = await pipeline.sendCustomerMessage(customer, message === MESSAGES_PER_BURST ? last : `rajada ${burst}, mensagem ${message}`);
          if (status !== 200) throw new Error(`The webhook answered ${status} for ${customer}`);
        }
        const deadline = performance.now() + REPLY_TIMEOUT_MS;
        while (!repliesTo(customer).some((reply) => reply.text.includes(last))) {
          if (performance.now() > deadline) throw new Error(`No reply to the last message of ${customer}'s burst within ${REPLY_TIMEOUT_MS} ms`);
          await sleep(5);
        }
        latencies.push(performance.now() - lastSentAt);
        await sleep(SETTLE_MS);
        counts.push(repliesTo(customer).length - before);
      }
    }),
  );
  const histogram: Record<number, number> = {};
  for (const count of counts) histogram[count] = (histogram[count] ?? 0) + 1;
  return {
    bursts: counts.length,
    repliesPerBurst: { mean: counts.reduce((sum, count) => sum + count, 0) / counts.length, counts: histogram },
    lastMessageToReply: { p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99) },
  };
}
