/**
 * The console's decisions about the prompt gate that need no browser: what the publish step will
 * meet, how a run's scenarios read side by side, and a scenario typed as JSON. Pure functions,
 * unit-tested without a DOM (docs/EVALUATION.md, "The gate in the console").
 */
import type { EvaluationRun, PromptDraft, ScenarioComparison, StoredScenario } from '../../lib/contract/operator-api';
import { GATE_OVERRIDE_REASON_MAX_CHARACTERS } from '../../lib/contract/operator-setting-limits';

/** The API's codes of a publication the gate refuses without an override reason. */
export type GateRefusal = 'evaluation_regression' | 'not_evaluated';
const GATE_REFUSALS: readonly string[] = ['evaluation_regression', 'not_evaluated'] satisfies readonly GateRefusal[];

/** The gate's refusal a failed publication was, if it was one (a stale version is another 409). */
export function gateRefusalOf(status: number | undefined, code: string): GateRefusal | undefined {
  return status === 409 && GATE_REFUSALS.includes(code) ? (code as GateRefusal) : undefined;
}

/** Whether the run will not change any more. */
export function isSettled(run: EvaluationRun): boolean {
  return run.status !== 'running';
}

/** The draft an admin can still run and publish: saved and not yet published. */
export function pendingDraft(draft: PromptDraft | null | undefined): PromptDraft | undefined {
  return draft === null || draft === undefined || draft.published ? undefined : draft;
}

/** The run the API reads when the draft is published: the newest of this draft against this current version that did not fail. */
export function applicableRun(runs: readonly EvaluationRun[], draftVersion: number, currentVersion: number): EvaluationRun | undefined {
  // Runs are newest first.
  return runs.find((run) => run.draftVersion === draftVersion && run.currentVersion === currentVersion && run.status !== 'failed');
}

/**
 * What publishing the draft meets now, as the console can tell before asking: `emptySuite` (no run
 * needed), `running`, `notEvaluated` (no finished run of this draft against the current version),
 * `regressions` or `passes`. The API decides; this is what the screen says beforehand.
 */
export type PublishOutlook = 'emptySuite' | 'running' | 'notEvaluated' | 'regressions' | 'passes';

export function publishOutlook(suiteSize: number, run: EvaluationRun | undefined): PublishOutlook {
  if (suiteSize === 0) return 'emptySuite';
  if (run === undefined) return 'notEvaluated';
  if (run.status === 'running') return 'running';
  return run.regressions.length > 0 ? 'regressions' : 'passes';
}

/** One row of a run's table: a scenario on the current version and on the draft, regressions marked. */
export interface ComparisonRow extends ScenarioComparison {
  readonly regression: boolean;
}

/** The run's scenarios with their regressions marked, regressions first, then in the run's order. */
export function comparisonRows(run: EvaluationRun): ComparisonRow[] {
  const regressions = new Set(run.regressions);
  const rows = run.scenarios.map((scenario) => ({ ...scenario, regression: regressions.has(scenario.name) }));
  return [...rows.filter((row) => row.regression), ...rows.filter((row) => !row.regression)];
}

/** How many scenarios each side passed, of how many. */
export function passCounts(run: EvaluationRun): { readonly current: number; readonly draft: number; readonly total: number } {
  const passed = (side: 'current' | 'draft') => run.scenarios.filter((scenario) => scenario[side]?.passed === true).length;
  return { current: passed('current'), draft: passed('draft'), total: run.scenarios.length };
}

/** A publication's override reason as the API takes it: not blank, at most its length. */
export function isOverrideReason(reason: string): boolean {
  return reason.trim() !== '' && reason.length <= GATE_OVERRIDE_REASON_MAX_CHARACTERS;
}

/** A scenario as an admin edits it: its id in the suite, the version edited (0: a new one) and its JSON. */
export interface ScenarioDraft {
  readonly id: string;
  readonly expectedVersion: number;
  readonly text: string;
}

/** Where the scenario format is documented, field by field. */
export const SCENARIO_FORMAT_DOCS = 'https://github.com/gogenetic/cdk-whatsapp-agent-pipeline/blob/main/docs/EVALUATION.md#the-scenario-format';

/** A new scenario starts as the format's smallest file, for the admin to fill in. */
export const NEW_SCENARIO: ScenarioDraft = {
  id: '',
  expectedVersion: 0,
  text: JSON.stringify({ formatVersion: 1, name: '', turns: [{ customer: { text: '' }, expect: {} }] }, null, 2),
};

/** A stored scenario in the editor: its file-format JSON, indented as in the shipped files. */
export function scenarioDraftOf(stored: Pick<StoredScenario, 'id' | 'version' | 'scenario'>): ScenarioDraft {
  return { id: stored.id, expectedVersion: stored.version, text: JSON.stringify(stored.scenario, null, 2) };
}

/** Why a stored scenario exists, as its file says (`description`), or nothing. */
export function scenarioDescription(scenario: object): string {
  const { description } = scenario as { readonly description?: unknown };
  return typeof description === 'string' ? description : '';
}

/** The editor's text as the object the API validates, or why it is not one (the API lists the format's problems). */
export function parseScenarioText(text: string): { readonly scenario: Readonly<Record<string, unknown>> } | { readonly problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: (error as Error).message };
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? { scenario: value as Record<string, unknown> } : { problem: 'not an object' };
}

/** A refusal's problems, one per line, as the API lists them in its message. */
export function problemLines(message: string): string[] {
  return message
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}
