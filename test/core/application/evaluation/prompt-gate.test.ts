// The prompt gate's rules (prompt-gate.ts) and its faults on DynamoDB Local: a run that cannot be
// played or stops half-way ends `failed` and is never played twice; a launch Lambda refused leaves
// no run `running`; a stale editor or a stale run cannot publish; the suite refuses a broken scenario.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PlayEvaluations } from '../../../../lambda/core/application/evaluation/play-evaluations';
import { PromptDrafts } from '../../../../lambda/core/application/evaluation/prompt-drafts';
import { parseScenarios } from '../../../../lambda/core/application/evaluation/scenario-format';
import { ScenarioSuite, suiteScenarios } from '../../../../lambda/core/application/evaluation/scenario-suite';
import type { SuiteResult } from '../../../../lambda/core/application/evaluation/run-scenarios';
import { OperatorActionError } from '../../../../lambda/core/application/operator/operator-errors';
import { compareOutcomes, type EvaluationRun, EVALUATION_RUN_DEADLINE_MS, gateVerdict, keptProblems, MAX_PROBLEMS_KEPT, runAsSeen } from '../../../../lambda/core/domain/evaluation/prompt-gate';
import type { Operator } from '../../../../lambda/core/domain/operator';
import { createTestTable, tableRepositories, type TestTable } from '../../../support/dynamo-table';
import { ManualClock, SequentialIds } from '../../../support/manual-clock';

const ASKS_FOR_A_PERSON = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', '..', 'evaluation', 'scenarios', 'asks-for-a-person.json'), 'utf8')) as Record<string, unknown>;
const ADMIN = { phone: '5511900000001', role: 'admin' } as Operator;

const run = (overrides: Partial<EvaluationRun>): EvaluationRun => ({
  runId: 'r1',
  promptId: 'system',
  draftVersion: 2,
  currentVersion: 5,
  status: 'done',
  startedBy: ADMIN.phone,
  startedAt: '2026-12-07T10:00:00.000000Z',
  scenarios: [],
  regressions: [],
  usage: { inputTokens: 0, outputTokens: 0 },
  ...overrides,
});

describe('the gate', () => {
  it('is open with an empty suite, closed without a finished run of this draft against this current version, closed on a regression', () => {
    expect(gateVerdict(0, [], 2, 5)).toEqual({ open: true });
    expect(gateVerdict(1, [run({ status: 'running' }), run({ currentVersion: 4 }), run({ draftVersion: 1 })], 2, 5)).toEqual({ open: false, reason: 'not_evaluated' });
    expect(gateVerdict(1, [run({ regressions: ['a'] })], 2, 5)).toMatchObject({ open: false, reason: 'evaluation_regression' });
    // The newest matching run decides: a later clean run of the same draft opens it.
    expect(gateVerdict(1, [run({ runId: 'r2' }), run({ regressions: ['a'] })], 2, 5)).toMatchObject({ open: true, run: { runId: 'r2' } });
  });

  it('counts as a regression only what the current version passes and the draft does not', () => {
    const passed = { passed: true, problems: [] };
    const failed = { passed: false, problems: ['x'] };
    const compared = compareOutcomes(
      ['both', 'worse', 'better', 'neither', 'missing'],
      new Map([['both', passed], ['worse', passed], ['better', failed], ['neither', failed], ['missing', passed]]),
      new Map([['both', passed], ['worse', failed], ['better', passed], ['neither', failed]]),
    );
    expect(compared.regressions).toEqual(['worse', 'missing']);
    expect(compared.scenarios[4]).toEqual({ name: 'missing', current: passed });
  });

  it('answers a run left running past its deadline as failed, and keeps a bounded list of problems', () => {
    const started = run({ status: 'running' });
    expect(runAsSeen(started, new Date(Date.parse(started.startedAt) + EVALUATION_RUN_DEADLINE_MS - 1)).status).toBe('running');
    expect(runAsSeen(started, new Date(Date.parse(started.startedAt) + EVALUATION_RUN_DEADLINE_MS))).toMatchObject({ status: 'failed', error: expect.stringMatching(/did not finish/) });
    const problems = Array.from({ length: 30 }, (_, index) => `p${index}`);
    expect(keptProblems(problems)).toHaveLength(MAX_PROBLEMS_KEPT);
    expect(keptProblems(problems).at(-1)).toBe('… and 11 more');
  });
});

describe('on DynamoDB Local', () => {
  let table: TestTable;
  let repositories: ReturnType<typeof tableRepositories>;
  const clock = new ManualClock(new Date('2026-12-07T10:00:00Z'));
  const trail = { record: async () => undefined };

  beforeAll(async () => {
    table = await createTestTable('prompt-gate');
    repositories = tableRepositories(table.name);
  });
  afterAll(() => table.drop());

  const suite = () => new ScenarioSuite({ resources: repositories.resources, trail, parseScenarios });
  const drafts = (launch: () => Promise<void>) =>
    new PromptDrafts({ resources: repositories.resources, runs: repositories.evaluationRuns, suite: suite(), launcher: { launch }, trail, clock, ids: new SequentialIds() });
  const player = (execute: () => Promise<SuiteResult>) =>
    new PlayEvaluations({ runnerFor: () => ({ execute }), runs: repositories.evaluationRuns, suite: () => suiteScenarios(repositories.resources), resources: repositories.resources, clock, concurrency: 1 });

  it('stores no scenario that breaks the format and no second scenario of the same name', async () => {
    await expect(suite().save(ADMIN, 'broken', { ...ASKS_FOR_A_PERSON, turns: [] }, 0)).rejects.toThrow(OperatorActionError);
    await suite().save(ADMIN, 'asks', ASKS_FOR_A_PERSON, 0);
    await expect(suite().save(ADMIN, 'asks-again', ASKS_FOR_A_PERSON, 0)).rejects.toThrow(/already the name of scenario 'asks'/);
    expect((await suite().list()).map((stored) => stored.id)).toEqual(['asks']);
  });

  it('fails a run whose launch Lambda refused, instead of leaving it running', async () => {
    const gate = drafts(async () => {
      throw new Error('TooManyRequestsException');
    });
    const draft = await gate.saveDraft(ADMIN, 'launch', { content: 'Seja breve.', expectedVersion: 0 });
    await expect(gate.startEvaluation(ADMIN, 'launch', draft.version)).rejects.toThrow('TooManyRequestsException');
    const [stored] = await gate.runs('launch');
    expect(stored).toMatchObject({ status: 'failed', error: expect.stringMatching(/could not start: TooManyRequestsException/) });
  });

  it('ends a run failed when the turn path throws, and plays a finished run never again', async () => {
    const gate = drafts(async () => undefined);
    const draft = await gate.saveDraft(ADMIN, 'faulty', { content: 'Seja breve.', expectedVersion: 0 });
    const started = await gate.startEvaluation(ADMIN, 'faulty', draft.version);
    let plays = 0;
    const failing = player(async () => {
      plays += 1;
      throw new Error('Bedrock ThrottlingException');
    });
    expect(await failing.playRun('faulty', started.runId)).toMatchObject({ status: 'failed', error: 'Bedrock ThrottlingException' });
    expect(await failing.playRun('faulty', started.runId)).toBeUndefined();
    // One play runs the suite twice, the current prompt and the draft; the second play runs nothing.
    expect(plays).toBe(2);
    expect(await gate.run('faulty', started.runId)).toMatchObject({ status: 'failed' });
    await expect(gate.publish(ADMIN, 'faulty', { draftVersion: draft.version, expectedVersion: 0 })).rejects.toMatchObject({ reason: 'not_evaluated' });
  });

  it('refuses to publish a draft that is no longer the draft, or over a prompt another edit moved', async () => {
    const gate = drafts(async () => undefined);
    const first = await gate.saveDraft(ADMIN, 'stale', { content: 'Primeira.', expectedVersion: 0 });
    await gate.saveDraft(ADMIN, 'stale', { content: 'Segunda.', expectedVersion: first.version });
    await expect(gate.publish(ADMIN, 'stale', { draftVersion: first.version, expectedVersion: 0, overrideReason: 'urgent' })).rejects.toMatchObject({ reason: 'conflict' });
    await repositories.resources.putNextVersion({ resourceType: 'prompt', resourceId: 'stale', content: 'Outra.', author: ADMIN.phone, active: true, expectedVersion: 0 });
    await expect(gate.publish(ADMIN, 'stale', { draftVersion: first.version + 1, expectedVersion: 0, overrideReason: 'urgent' })).rejects.toMatchObject({ reason: 'conflict' });
    expect((await repositories.resources.getCurrent('prompt', 'stale'))?.content).toBe('Outra.');
  });
});
