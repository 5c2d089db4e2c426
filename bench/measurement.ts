/** Latencies and wall time of one load level; throughput counts completed messages. */
export interface Measurement {
  readonly messages: number;
  readonly wallMs: number;
  readonly latenciesMs: readonly number[];
}

export interface Summary {
  readonly messages: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/**
 * The budget gate stays on (its admission is part of every turn) with limits no level reaches: a
 * benchmark customer sends far more turns a minute than a person, and a refused turn skips the
 * agent, so with the defaults most turns of a level would measure the over-budget reply instead.
 */
export const UNREACHED_BUDGET = { turnsPerMinute: 1_000_000, turnsPerHour: 1_000_000, agentTokensPerDay: 1_000_000_000 } as const;

/**
 * The benchmarks measure the pipeline's own work, comparable across versions: their turns answer
 * at once, without the burst settle wait (`npm run bench:burst` measures what the wait does).
 */
export const ANSWER_AT_ONCE = { burstSettleMs: 0 } as const;

/** Nearest-rank percentile (the value below which `p` % of the samples fall). */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export function summarize(measurement: Measurement): Summary {
  return {
    messages: measurement.messages,
    seconds: measurement.wallMs / 1000,
    perSecond: measurement.messages / (measurement.wallMs / 1000),
    p50Ms: percentile(measurement.latenciesMs, 50),
    p99Ms: percentile(measurement.latenciesMs, 99),
  };
}

/**
 * Runs `streams` closed-loop workers: each repeats `oneMessage` (which resolves with that message's
 * latency) until it has done `perStream` messages or `maxMs` has passed, whichever comes first.
 */
export async function closedLoop(streams: number, perStream: number, maxMs: number, oneMessage: (stream: number, index: number) => Promise<number>): Promise<Measurement> {
  const latenciesMs: number[] = [];
  const started = performance.now();
  const deadline = started + maxMs;
  await Promise.all(
    Array.from({ length: streams }, async (_unused, stream) => {
      for (let index = 0; index < perStream && performance.now() < deadline; index++) latenciesMs.push(await oneMessage(stream, index));
    }),
  );
  return { messages: latenciesMs.length, wallMs: performance.now() - started, latenciesMs };
}

let nextCustomer = 0;

/** WhatsApp ids no other call in this process returned, so every level starts fresh conversations. */
export function newCustomers(count: number): string[] {
  return Array.from({ length: count }, () => `5511${String(nextCustomer++).padStart(9, '0')}`);
}
