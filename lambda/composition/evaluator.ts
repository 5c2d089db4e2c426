import { AGENT_BACKEND_KINDS } from '../../lib/contract';
import type { EvaluatorEvent, SuiteEvaluationAnswer } from '../../lib/contract/evaluator-event';
import { singleAgentSettingsOf } from '../core/adapters/agent/agent-backend';
import { BedrockEvaluationJudge } from '../core/adapters/agent/bedrock-evaluation-judge';
import { evaluationRuns, pipelineBudget, versionedResources } from '../core/adapters/dynamodb/dynamo-repositories';
import { PlayEvaluations } from '../core/application/evaluation/play-evaluations';
import { ScenarioFormatError } from '../core/ports/evaluation';
import { suiteScenarios } from '../core/application/evaluation/scenario-suite';
import { PipelineTokenBudget } from '../core/application/pipeline-token-budget';
import type { EvaluatorSettings } from './deployment-settings';
import { composeEvaluationFunction, type EvaluationPorts, evaluationRunners } from './evaluation';
import { agentClients } from './turn-path';

/** Scenarios a prompt plays at a time: a run plays the current version and the draft at once, so twice this many turns run together. */
const SCENARIOS_AT_A_TIME = 2;

export type EvaluatorHandler = (event: EvaluatorEvent) => Promise<SuiteEvaluationAnswer | undefined>;

/**
 * The evaluator function (docs/EVALUATION.md, "Inside the deployment"): the gate's runs, which the
 * operator function stores and invokes it for, and the command-line tool's suites. It plays them
 * on the deployment's own turn path and table — its prompts, stages, gates and agent — as
 * customers of the evaluation key space, erased once played; rubric checks are graded by the
 * agent's own model.
 */
export function composeEvaluator(settings: EvaluatorSettings, ports: EvaluationPorts = {}): EvaluatorHandler {
  const composed = composeEvaluationFunction('evaluator', settings, ports);
  const { table, clock } = composed;
  const [judgeModel] = singleAgentSettingsOf(settings.agent).flatMap((single) => (single.backend === AGENT_BACKEND_KINDS.bedrock ? [single.modelId] : []));
  const judge = ports.judge ?? (judgeModel === undefined ? undefined : new BedrockEvaluationJudge({ modelId: judgeModel, converse: agentClients(ports).converse }));
  const resources = versionedResources(table);
  const budget = pipelineBudget(table);
  const spent = settings.pipelineBudget && new PipelineTokenBudget(budget, clock, settings.pipelineBudget);
  const evaluations = new PlayEvaluations({
    runnerFor: evaluationRunners(settings, composed, { ...ports, judge, eraseScenarios: true }),
    runs: evaluationRuns(table),
    suite: () => suiteScenarios(resources),
    resources,
    budget,
    budgetSpent: spent && (() => spent.isSpent()),
    clock,
    concurrency: SCENARIOS_AT_A_TIME,
  });
  return (event) =>
    composed.instrument(async () => {
      if ('promptEvaluation' in event) {
        const { promptId, runId } = event.promptEvaluation;
        const played = await evaluations.playRun(promptId, runId);
        composed.logger.info('Evaluation run played', { promptId, runId, status: played?.status ?? 'already played', regressions: played?.regressions.length });
        return undefined;
      }
      try {
        return { result: await evaluations.playSuite(event.suite) };
      } catch (error) {
        if (error instanceof ScenarioFormatError) return { problems: error.message };
        throw error;
      }
    });
}
