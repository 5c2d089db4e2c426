// Entry point of the evaluator function (docs/EVALUATION.md): the console's evaluation runs and the
// CLI's suites, played through the turn path by ../composition/evaluator.ts.
import { composedOnFirstInvocation } from '../composition/compose-function';
import { composeEvaluator } from '../composition/evaluator';
import { readEvaluatorSettings, toldToThisFunction } from '../composition/read-settings';

export const handler = composedOnFirstInvocation(() => composeEvaluator(readEvaluatorSettings(toldToThisFunction(__dirname))));
