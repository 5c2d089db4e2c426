import type { TokenUsage } from '../../domain/customer-budget';
import { compareOutcomes, type EvaluationRun, keptProblems, PROMPT_DRAFT_RESOURCE_TYPE, type ScenarioOutcome } from '../../domain/evaluation/prompt-gate';
import type { Scenario } from '../../domain/evaluation/scenario';
import { isoMicros } from '../../domain/timestamps';
import type { Clock } from '../../ports/clock';
import { type EvaluationRunRepository, ScenarioFormatError } from '../../ports/evaluation';
import { ConditionFailedError, type PipelineBudgetRepository, type VersionedResourceRepository } from '../../ports/repositories';
import { type ScenarioResult, type SuiteResult, usedTogether } from './run-scenarios';
import { parseScenarios } from './scenario-format';
import type { StoredScenario } from './scenario-suite';

/** A prompt's text to play instead of its current version. */
export interface PromptDraftText {
  readonly promptId: string;
  readonly content: string;
}

/** The runner on the deployment's turn path: with a draft, that prompt answers as the draft. */
export type ScenarioRunnerFor = (draft?: PromptDraftText) => { execute(scenarios: readonly Scenario[], concurrency: number): Promise<SuiteResult> };

export interface PlayEvaluationsDependencies {
  readonly runnerFor: ScenarioRunnerFor;
  readonly runs: EvaluationRunRepository;
  /** The deployment's suite as stored (scenario-suite.ts). */
  readonly suite: () => Promise<readonly StoredScenario[]>;
  readonly resources: Pick<VersionedResourceRepository, 'getVersion'>;
  /** The evaluation line of the pipeline's daily budget, which the usage report shows. */
  readonly budget?: Pick<PipelineBudgetRepository, 'addEvaluationTokens'>;
  /** Whether the pipeline's daily token budget is spent (with `pipelineBudget`); a run then does not start. */
  readonly budgetSpent?: () => Promise<boolean>;
  readonly clock: Clock;
  /** Scenarios played at a time, per prompt. */
  readonly concurrency: number;
}

/**
 * The evaluator function's use cases (docs/EVALUATION.md): a run of the console's gate — the
 * stored suite played with the prompt's current version and with the draft, side by side — and a
 * suite the command-line tool sends. Both count their tokens on the pipeline budget's evaluation line.
 */
export class PlayEvaluations {
  constructor(private readonly deps: PlayEvaluationsDependencies) {}

  /** Plays a stored run once: a run no longer `running` (a repeated event) is left as it is. */
  async playRun(promptId: string, runId: string): Promise<EvaluationRun | undefined> {
    const run = await this.deps.runs.get(promptId, runId);
    if (run?.status !== 'running') return undefined;
    let finished: EvaluationRun;
    try {
      finished = await this.compare(run);
    } catch (error) {
      finished = { ...run, status: 'failed', finishedAt: isoMicros(this.deps.clock.now()), error: (error as Error).message };
    }
    try {
      await this.deps.runs.finish(finished);
    } catch (error) {
      if (error instanceof ConditionFailedError) return undefined;
      throw error;
    }
    return finished;
  }

  /** The command-line tool's suite, with the prompt's current version or one of its drafts; refused as a whole when a scenario breaks the format. */
  async playSuite(request: { readonly scenarios: readonly unknown[]; readonly draft?: { readonly promptId: string; readonly version: number }; readonly concurrency?: number }): Promise<SuiteResult> {
    const scenarios = parseScenarios(request.scenarios.map((scenario, index) => ({ file: `scenario ${index + 1}`, text: JSON.stringify(scenario) })));
    await this.requireBudget();
    const draft = request.draft && (await this.draftText(request.draft.promptId, request.draft.version));
    const result = await this.deps.runnerFor(draft).execute(scenarios, request.concurrency ?? this.deps.concurrency);
    await this.count(result.usage);
    return result;
  }

  private async compare(run: EvaluationRun): Promise<EvaluationRun> {
    await this.requireBudget();
    const draft = await this.draftText(run.promptId, run.draftVersion);
    const stored = await this.deps.suite();
    let scenarios: Scenario[];
    try {
      scenarios = parseScenarios(stored.map(({ id, scenario }) => ({ file: id, text: JSON.stringify(scenario) })));
    } catch (error) {
      if (error instanceof ScenarioFormatError) throw new Error(`the suite does not follow the scenario format: ${error.message}`);
      throw error;
    }
    const [current, drafted] = await Promise.all([this.deps.runnerFor().execute(scenarios, this.deps.concurrency), this.deps.runnerFor(draft).execute(scenarios, this.deps.concurrency)]);
    const { usage, costUsd } = usedTogether([current, drafted]);
    await this.count(usage);
    return {
      ...run,
      ...compareOutcomes(
        scenarios.map((scenario) => scenario.name),
        outcomesOf(current),
        outcomesOf(drafted),
      ),
      status: 'done',
      finishedAt: isoMicros(this.deps.clock.now()),
      usage: { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens },
      ...(costUsd !== undefined && { costUsd }),
    };
  }

  private async draftText(promptId: string, version: number): Promise<PromptDraftText> {
    const draft = await this.deps.resources.getVersion(PROMPT_DRAFT_RESOURCE_TYPE, promptId, version);
    if (draft === undefined) throw new Error(`prompt '${promptId}' has no draft version ${version}`);
    return { promptId, content: draft.content };
  }

  private async requireBudget(): Promise<void> {
    if (await this.deps.budgetSpent?.()) throw new Error("the pipeline's daily token budget is spent: evaluations wait for the next UTC day, as the agent's turns do");
  }

  private async count(usage: TokenUsage): Promise<void> {
    if (usage.inputTokens + usage.outputTokens > 0) await this.deps.budget?.addEvaluationTokens(this.deps.clock.now(), usage);
  }
}

function outcomesOf(result: SuiteResult): Map<string, ScenarioOutcome> {
  return new Map(result.scenarios.map((scenario) => [scenario.name, { passed: scenario.passed, problems: keptProblems(problemsOf(scenario)) }]));
}

function problemsOf(scenario: ScenarioResult): string[] {
  const turns = scenario.turns.flatMap((turn, index) => turn.problems.map((problem) => `turn ${index + 1}: ${problem}`));
  return scenario.error === undefined ? turns : [...turns, scenario.error];
}
