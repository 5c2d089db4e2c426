// The runner's own rules (run-scenarios.ts), on stand-ins of the turn path: at most `concurrency`
// scenarios at a time, each a customer of its own; a turn path that fails ends that scenario with
// the error and the others still run; a rubric without a judge fails.
import { RunScenarios, type ScenarioRunnerDependencies } from '../../../../lambda/core/application/evaluation/run-scenarios';
import type { Scenario } from '../../../../lambda/core/domain/evaluation/scenario';
import type { Session } from '../../../../lambda/core/domain/session';
import type { StageRecording } from '../../../../lambda/core/ports/evaluation';

const scenario = (name: string, text = 'Oi'): Scenario => ({ formatVersion: 1, name, turns: [{ customer: { text }, expect: { reply: { contains: ['Olá'] } } }] });

function runner(change: Partial<ScenarioRunnerDependencies> = {}) {
  let running = 0;
  const seen = { mostAtOnce: 0, customers: [] as string[] };
  const replies = new Map<string, string[]>();
  const deps: ScenarioRunnerDependencies = {
    turns: {
      execute: async ({ customerId }) => {
        running += 1;
        seen.mostAtOnce = Math.max(seen.mostAtOnce, running);
        await new Promise((resolve) => setTimeout(resolve, 20));
        running -= 1;
        if (customerId.endsWith('-1')) throw new Error('the table is unreachable');
        replies.set(customerId, ['Olá!']);
        return { outcome: 'answered', drained: 1 };
      },
    },
    stage: {
      receive: async (customerId) => void seen.customers.push(customerId),
      recordTools: () => undefined,
      take: (customerId): StageRecording => ({ replies: replies.get(customerId) ?? [], toolCalls: [], unrecorded: [] }),
      release: () => undefined,
    },
    sessions: { getActive: async () => undefined as Session | undefined, put: async () => undefined },
    clock: { now: () => new Date() },
    ids: { newId: () => 'run-0001' },
    locale: 'pt-BR' as ScenarioRunnerDependencies['locale'],
    customerIdOf: (runId, index) => `eval-${runId}-${index}`,
    businessPhoneNumberId: '100000000000000',
    turnTimeoutMs: 1_000,
    ...change,
  };
  return { run: new RunScenarios(deps), seen };
}

test('plays at most `concurrency` scenarios at once, each as its own customer of the run', async () => {
  const { run, seen } = runner();
  const result = await run.execute(['a', 'b', 'c', 'd', 'e'].map((name) => scenario(name)), 2);
  expect(seen.mostAtOnce).toBe(2);
  expect(seen.customers.sort()).toEqual(['eval-run0001-0', 'eval-run0001-1', 'eval-run0001-2', 'eval-run0001-3', 'eval-run0001-4']);
  expect(result.runId).toBe('run0001');
  expect(result.scenarios.map((played) => played.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
});

test('a failing turn path ends its scenario with the error; the other scenarios still pass', async () => {
  const { run } = runner();
  const result = await run.execute([scenario('first'), scenario('second'), scenario('third')], 3);
  expect(result.scenarios.map(({ name, passed, error }) => ({ name, passed, error }))).toEqual([
    { name: 'first', passed: true, error: undefined },
    { name: 'second', passed: false, error: 'the turn path failed: the table is unreachable' },
    { name: 'third', passed: true, error: undefined },
  ]);
});

test('a rubric with no judge to grade it fails the turn, saying so', async () => {
  const { run } = runner();
  const graded: Scenario = { formatVersion: 1, name: 'graded', turns: [{ customer: { text: 'Oi' }, expect: { rubric: ['Is polite.'] } }] };
  const [played] = (await run.execute([graded], 1)).scenarios;
  expect(played.turns[0].problems).toEqual(['rubric: no judge model to grade it']);
});
