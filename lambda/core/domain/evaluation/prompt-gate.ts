/**
 * The console's gate on publishing a prompt (docs/EVALUATION.md, "The gate in the console"): a
 * draft is played against the deployment's scenario suite beside the prompt's current version, and
 * a draft that fails a scenario the current version passes is published only with a reason.
 */
import type { EvaluationRun, ScenarioOutcome } from '../../../../lib/contract/operator-api-evaluation';
import { EVALUATION_CUSTOMER_PREFIX } from '../../../../lib/contract/table';

/** Whether a customer is one an evaluation run plays, which people never serve. */
export const isEvaluationCustomer = (customerId: string): boolean => customerId.startsWith(EVALUATION_CUSTOMER_PREFIX);

/** Resource types of the admin resources the gate keeps (versioned, as prompts are). */
export const SCENARIO_RESOURCE_TYPE = 'evaluation_scenario';
export const PROMPT_DRAFT_RESOURCE_TYPE = 'prompt_draft';

/** A suite id: what the console and the API name a stored scenario by. */
export const SCENARIO_ID = /^[a-z0-9][a-z0-9-]{0,63}$/;
/** The scenarios a suite holds at most: a run plays each twice within one evaluator invocation. */
export const MAX_SUITE_SCENARIOS = 30;
/** The failed checks a run keeps per scenario and prompt. */
export const MAX_PROBLEMS_KEPT = 20;
/** A run not finished this long after it started never will (the evaluator's timeout, and its wait in Lambda's queue). */
export const EVALUATION_RUN_DEADLINE_MS = 60 * 60 * 1000;

/**
 * Whether a scenario's customer, quiet since `lastActivity`, was left by a run that did not finish
 * (it timed out or crashed before erasing it): no run that could still play it is that old.
 */
export function isLeftByUnfinishedRun(lastActivity: string, now: Date): boolean {
  return now.getTime() - Date.parse(lastActivity) >= EVALUATION_RUN_DEADLINE_MS;
}

/** A run and its parts are what the operator API answers (lib/contract/operator-api-evaluation.ts). */
export type { EvaluationRun, EvaluationStatus, ScenarioComparison, ScenarioOutcome } from '../../../../lib/contract/operator-api-evaluation';

/** One prompt's results on the suite, by scenario name. */
export type SuiteOutcomes = ReadonlyMap<string, ScenarioOutcome>;

/** The two prompts' results side by side, in the suite's order, with the scenarios the draft regresses on. */
export function compareOutcomes(names: readonly string[], current: SuiteOutcomes, draft: SuiteOutcomes): Pick<EvaluationRun, 'scenarios' | 'regressions'> {
  const scenarios = names.map((name) => ({ name, ...(current.has(name) && { current: current.get(name) }), ...(draft.has(name) && { draft: draft.get(name) }) }));
  const regressions = scenarios.filter((scenario) => scenario.current?.passed === true && scenario.draft?.passed !== true).map((scenario) => scenario.name);
  return { scenarios, regressions };
}

/** A run as a reader should see it: one left `running` past its deadline failed. */
export function runAsSeen(run: EvaluationRun, now: Date): EvaluationRun {
  if (run.status !== 'running' || now.getTime() - Date.parse(run.startedAt) < EVALUATION_RUN_DEADLINE_MS) return run;
  return { ...run, status: 'failed', error: 'the run did not finish: the evaluator function stopped before it wrote the results (see its logs)' };
}

/** What the gate says of publishing `draftVersion` over the prompt's `currentVersion`. */
export type GateVerdict =
  | { readonly open: true; readonly run?: EvaluationRun }
  | { readonly open: false; readonly reason: 'not_evaluated' }
  | { readonly open: false; readonly reason: 'evaluation_regression'; readonly run: EvaluationRun };

/**
 * Open when the suite is empty, or when the newest finished run of this draft against this
 * current version has no regression. A run against an older current version says nothing of the
 * prompt as it is now.
 */
export function gateVerdict(suiteSize: number, runs: readonly EvaluationRun[], draftVersion: number, currentVersion: number): GateVerdict {
  if (suiteSize === 0) return { open: true };
  const run = runs.find((candidate) => candidate.status === 'done' && candidate.draftVersion === draftVersion && candidate.currentVersion === currentVersion);
  if (run === undefined) return { open: false, reason: 'not_evaluated' };
  return run.regressions.length === 0 ? { open: true, run } : { open: false, reason: 'evaluation_regression', run };
}

/** The problems a run keeps of a scenario: the first {@link MAX_PROBLEMS_KEPT}, and how many more there were. */
export function keptProblems(problems: readonly string[]): string[] {
  if (problems.length <= MAX_PROBLEMS_KEPT) return [...problems];
  return [...problems.slice(0, MAX_PROBLEMS_KEPT - 1), `… and ${problems.length - MAX_PROBLEMS_KEPT + 1} more`];
}
