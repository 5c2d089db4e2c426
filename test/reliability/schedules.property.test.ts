// Property-based schedules: fast-check generates customers, messages, duplicate and late webhook
// deliveries, provider clock skew, agent latencies and faults, and its scheduler decides the
// interleaving of every remote call of both functions, every delivery and every poll (SQS
// redelivers whatever failed). The four invariants must hold after each run; a failure shrinks to
// a minimal schedule and prints its seed. The properties run side by side, each on its own queue
// and fake Graph API; all runs share one table, isolated by customer id.
import fc from 'fast-check';
import { FAULT_KINDS, FAULT_PHASES } from '../support/fault-injection';
import { takeAll } from '../support/inspect';
import { startReliabilityEnvironment, type ReliabilityEnvironment } from './harness/pipeline-under-test';
import { ScenarioRun } from './harness/scenario-run';
import { BURST } from './harness/scenarios';
import { ScheduledRun, type Arrival, type RunPlan } from './harness/scheduled-run';

/** Multiplies every property's run count (e.g. 5 for a nightly soak). */
const SCALE = Number(process.env.RELIABILITY_PROPERTY_SCALE ?? 1);

/** Replays a reported failure: the `seed` and `path` fast-check printed (applied to every property). */
const REPLAY = process.env.RELIABILITY_PROPERTY_SEED === undefined ? {} : { seed: Number(process.env.RELIABILITY_PROPERTY_SEED), path: process.env.RELIABILITY_PROPERTY_PATH };

let table: ReliabilityEnvironment;
/** Every boundary a clean burst crosses, per side: where random faults may strike. */
const boundaries = { webhook: [] as string[], orchestrator: [] as string[] };

beforeAll(async () => {
  table = await startReliabilityEnvironment('schedules');
  for (const side of ['webhook', 'orchestrator'] as const) {
    const { crossings } = await new ScenarioRun(table, BURST, side, []).execute();
    // Sorted: the order calls happen in may vary, and a replayed seed must pick the same boundary.
    boundaries[side] = [...new Set(crossings.map((crossing) => crossing.boundary))].sort();
  }
}, 60_000);

afterAll(async () => {
  await table?.close();
});

/** Mostly 1, sometimes up to `max`: most runs stay cheap, enough are large to matter. */
const mostlyOne = (max: number) => fc.oneof({ arbitrary: fc.constant(1), weight: 3 }, { arbitrary: fc.integer({ min: 2, max }), weight: 1 });

/** A message arrives after some steps, or right after a given remote call of a turn (inside its window). */
const arrival = (withTurns: boolean): fc.Arbitrary<Arrival> =>
  withTurns
    ? fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 40 }), fc.record({ after: fc.constantFrom(...boundaries.orchestrator), occurrence: mostlyOne(2) }))
    : fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 40 }));

/** 1–3 customers with 1–4 messages each, every message delivered 1–3 times, late or not, with clock skew. */
const customers = (withTurns: boolean) =>
  fc
    .array(
      fc.record({
        messages: fc
          .integer({ min: 1, max: 4 })
          .chain((count) =>
            fc.array(fc.record({ deliveries: mostlyOne(3), arrival: arrival(withTurns), clockSkew: fc.integer({ min: -1, max: 1 }) }), { minLength: count, maxLength: count }),
          ),
      }),
      { minLength: 1, maxLength: 3 },
    )
    .filter((plan) => plan.length === 1 || plan.every((customer) => customer.messages.length <= 2));

/** Steps each agent call takes: the window in which newer messages arrive. */
const agentLatency = fc.array(fc.integer({ min: 0, max: 12 }), { maxLength: 4 });

const faults = (where: readonly string[], count: { minLength: number; maxLength: number }, times: fc.Arbitrary<number> = fc.constant(1)) =>
  fc.array(fc.record({ boundary: fc.constantFrom(...where), occurrence: mostlyOne(3), phase: fc.constantFrom(...FAULT_PHASES), kind: fc.constantFrom(...FAULT_KINDS), times }), count);

interface Property {
  readonly name: string;
  readonly runs: number;
  readonly plans: () => fc.Arbitrary<RunPlan>;
}

const PROPERTIES: readonly Property[] = [
  {
    name: 'webhook: duplicate, late, reordered and concurrent deliveries, 0–2 faults, Meta retrying',
    runs: 350,
    plans: () => fc.record({ turns: fc.constant(false), customers: customers(false), agentLatency: fc.constant([]), faults: faults(boundaries.webhook, { minLength: 0, maxLength: 2 }) }),
  },
  {
    name: 'pipeline: the same deliveries with turns, redeliveries and slow agents',
    runs: 300,
    plans: () => fc.record({ turns: fc.constant(true), customers: customers(true), agentLatency, faults: fc.constant([]) }),
  },
  {
    name: 'pipeline: the same with 1–2 faults (crash, transient, unknown outcome) anywhere, redelivered',
    runs: 300,
    plans: () => fc.record({ turns: fc.constant(true), customers: customers(true), agentLatency, faults: faults([...boundaries.webhook, ...boundaries.orchestrator], { minLength: 1, maxLength: 2 }) }),
  },
  {
    name: 'pipeline: lasting faults send turns to the DLQ; once they stop, the operator’s redrive brings everything back',
    runs: 150,
    plans: () =>
      fc.record({
        turns: fc.constant(true),
        redrive: fc.constant(true),
        customers: customers(true),
        agentLatency,
        faults: faults(boundaries.orchestrator, { minLength: 1, maxLength: 2 }, fc.integer({ min: 2, max: 6 })),
      }),
  },
];

/** Runs the property on a lane of its own (queue, DLQ, fake Graph API), each run starting from empty queues. */
async function check(property: Property): Promise<{ runs: number; ms: number }> {
  const lane = await startReliabilityEnvironment('schedules', table.tableName);
  const started = Date.now();
  try {
    await fc.assert(
      fc.asyncProperty(property.plans(), fc.scheduler(), async (plan, scheduler) => {
        lane.fake.reset();
        await takeAll(lane.turnQueueUrl);
        const { violations } = await new ScheduledRun(lane, plan, scheduler).execute();
        expect(violations).toEqual([]);
      }),
      { numRuns: Math.max(1, Math.round(property.runs * SCALE)), ...REPLAY },
    );
  } finally {
    await lane.close();
  }
  return { runs: Math.max(1, Math.round(property.runs * SCALE)), ms: Date.now() - started };
}

/** Runs only the properties whose name contains this (to chase one failure). */
const ONLY = process.env.RELIABILITY_PROPERTY_ONLY;
const SELECTED = PROPERTIES.filter((property) => ONLY === undefined || property.name.includes(ONLY));

test(`the invariants hold on every generated schedule (${SELECTED.map((property) => property.runs).join(' + ')} runs)`, async () => {
  const outcomes = await Promise.allSettled(SELECTED.map(check));
  // fast-check's message holds the seed, the counterexample and the schedule; its cause, what broke.
  const failures = outcomes.flatMap((outcome, index) => {
    if (outcome.status === 'fulfilled') return [];
    const error = outcome.reason as Error;
    return [`${SELECTED[index].name}\n${error.message}\n${String(error.cause ?? '')}`];
  });
  console.log(
    outcomes.map((outcome, index) => `${SELECTED[index].name}: ${outcome.status === 'fulfilled' ? `${outcome.value.runs} runs in ${(outcome.value.ms / 1000).toFixed(1)} s` : 'FAILED'}`).join('\n'),
  );
  expect(failures).toEqual([]);
}, 1_200_000);
