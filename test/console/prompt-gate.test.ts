// The console's reading of the prompt gate without a browser: which refusal asks for an override,
// what publishing will meet, a run's scenarios side by side, and a scenario typed as JSON.
import type { EvaluationRun, PromptDraft } from '../../lib/contract/operator-api';
import { applicableRun, comparisonRows, gateRefusalOf, isOverrideReason, NEW_SCENARIO, parseScenarioText, passCounts, pendingDraft, problemLines, publishOutlook, scenarioDescription, scenarioDraftOf } from '../../console/src/prompt-gate';
import { handScenario, takeHandedScenario } from '../../console/src/scenario-handoff';

const run = (extra: Partial<EvaluationRun> = {}): EvaluationRun => ({
  runId: 'run-1',
  promptId: 'system',
  draftVersion: 2,
  currentVersion: 3,
  status: 'done',
  startedBy: '5511999990000',
  startedAt: '2026-12-07T12:00:00Z',
  scenarios: [],
  regressions: [],
  usage: { inputTokens: 0, outputTokens: 0 },
  ...extra,
});

const draft = (extra: Partial<PromptDraft> = {}): PromptDraft => ({ promptId: 'system', version: 2, content: 'x', author: 'a', createdAt: '2026-12-07T12:00:00Z', published: false, ...extra });

describe('the refusals that ask for an override', () => {
  it('are the two 409s of the gate, not a stale version nor another status', () => {
    expect(gateRefusalOf(409, 'evaluation_regression')).toBe('evaluation_regression');
    expect(gateRefusalOf(409, 'not_evaluated')).toBe('not_evaluated');
    expect(gateRefusalOf(409, 'version_conflict')).toBeUndefined();
    expect(gateRefusalOf(400, 'not_evaluated')).toBeUndefined();
    expect(gateRefusalOf(undefined, 'network')).toBeUndefined();
  });

  it('need a reason of 1 to 500 characters, not blank', () => {
    expect(isOverrideReason('')).toBe(false);
    expect(isOverrideReason('   ')).toBe(false);
    expect(isOverrideReason('Campaign starts today; the handoff is fixed in the next draft.')).toBe(true);
    expect(isOverrideReason('x'.repeat(500))).toBe(true);
    expect(isOverrideReason('x'.repeat(501))).toBe(false);
  });
});

describe('what publishing will meet', () => {
  const runs = [run({ runId: 'newest', draftVersion: 2, currentVersion: 3, regressions: ['asks-for-a-person'] }), run({ runId: 'older', draftVersion: 2, currentVersion: 3 })];

  it('reads the newest run of this draft against this current version', () => {
    expect(applicableRun(runs, 2, 3)?.runId).toBe('newest');
    expect(publishOutlook(1, applicableRun(runs, 2, 3))).toBe('regressions');
  });

  it('needs a new run once the current version moved on, or for another draft', () => {
    expect(applicableRun(runs, 2, 4)).toBeUndefined();
    expect(applicableRun(runs, 3, 3)).toBeUndefined();
    expect(publishOutlook(1, undefined)).toBe('notEvaluated');
  });

  it('skips a failed run: it says nothing of the draft', () => {
    const afterFailure = [run({ runId: 'failed', status: 'failed', error: 'timeout' }), run({ runId: 'passed' })];
    expect(applicableRun(afterFailure, 2, 3)?.runId).toBe('passed');
    expect(publishOutlook(2, applicableRun(afterFailure, 2, 3))).toBe('passes');
  });

  it('waits for a running one, and needs none with an empty suite', () => {
    expect(publishOutlook(1, run({ status: 'running' }))).toBe('running');
    expect(publishOutlook(0, undefined)).toBe('emptySuite');
  });

  it('offers only a draft not yet published', () => {
    expect(pendingDraft(null)).toBeUndefined();
    expect(pendingDraft(undefined)).toBeUndefined();
    expect(pendingDraft(draft({ published: true }))).toBeUndefined();
    expect(pendingDraft(draft())?.version).toBe(2);
  });
});

describe("a run's table", () => {
  const played = run({
    scenarios: [
      { name: 'greets', current: { passed: true, problems: [] }, draft: { passed: true, problems: [] } },
      { name: 'records-registration', current: { passed: false, problems: ['turn 1: learned.cadastral.name is missing'] }, draft: { passed: false, problems: ['turn 1: learned.cadastral.name is missing'] } },
      { name: 'asks-for-a-person', current: { passed: true, problems: [] }, draft: { passed: false, problems: ['turn 2: request_human_handoff was not called'] } },
    ],
    regressions: ['asks-for-a-person'],
  });

  it('puts the regressions first and marks only them', () => {
    expect(comparisonRows(played).map((row) => [row.name, row.regression])).toEqual([
      ['asks-for-a-person', true],
      ['greets', false],
      ['records-registration', false],
    ]);
  });

  it('counts what each side passed', () => {
    expect(passCounts(played)).toEqual({ current: 2, draft: 1, total: 3 });
  });
});

describe('a scenario typed as JSON', () => {
  it('is an object, or a problem worded before anything is sent', () => {
    expect(parseScenarioText('{"formatVersion": 1}')).toEqual({ scenario: { formatVersion: 1 } });
    expect(parseScenarioText('{"formatVersion": ')).toEqual({ problem: expect.any(String) });
    expect(parseScenarioText('[1]')).toEqual({ problem: 'not an object' });
    expect(parseScenarioText('null')).toEqual({ problem: 'not an object' });
  });

  it('opens a stored one indented, at its version, and a new one as the smallest file at version 0', () => {
    const opened = scenarioDraftOf({ id: 'greets', version: 4, scenario: { formatVersion: 1, name: 'greets' } });
    expect(opened).toEqual({ id: 'greets', expectedVersion: 4, text: '{\n  "formatVersion": 1,\n  "name": "greets"\n}' });
    expect(NEW_SCENARIO.expectedVersion).toBe(0);
    expect(parseScenarioText(NEW_SCENARIO.text)).toEqual({ scenario: { formatVersion: 1, name: '', turns: [{ customer: { text: '' }, expect: {} }] } });
  });

  it('shows a description only when the file has one as text', () => {
    expect(scenarioDescription({ description: 'Hands over when asked.' })).toBe('Hands over when asked.');
    expect(scenarioDescription({ description: 3 })).toBe('');
    expect(scenarioDescription({})).toBe('');
  });

  it("lists a refusal's problems one per line", () => {
    expect(problemLines("scenario 'x': turns is required\n  scenario 'x': name must match\n")).toEqual(["scenario 'x': turns is required", "scenario 'x': name must match"]);
  });

  it('is handed from a conversation to the suite once', () => {
    handScenario({ id: 'from-chat', expectedVersion: 0, text: '{}' });
    expect(takeHandedScenario()?.id).toBe('from-chat');
    expect(takeHandedScenario()).toBeUndefined();
  });
});
