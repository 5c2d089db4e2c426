// `eval <dir> --function|--stack`: the suite played by a deployed pipeline's evaluator function
// (docs/EVALUATION.md#against-a-deployed-stack), invoked synchronously with the caller's AWS
// credentials. The function plays it through the deployment's own turn path, prompts and model.
import { STACK_OUTPUTS } from '../lib/contract';
import type { SuiteEvaluationEvent, SuiteResultJson } from '../lib/contract/evaluator-event';
import { lambdaInvoke, type LambdaInvoke } from '../lambda/core/adapters/lambda/lambda-invoke';
import { usedTogether } from '../lambda/core/application/evaluation/run-scenarios';
import { resolveRegion } from './aws-region';
import { CliFailure, UsageError } from './cli-command';
import { EXIT_CODES } from './cli-failure';
import { pipelineOutputs, readStackOutputs } from './pipeline-stack';

/** Which deployed evaluator to invoke: by name or ARN, or the one a stack's outputs name. */
export interface DeployedEvaluatorTarget {
  readonly functionName?: string;
  readonly stack?: string;
  /** The pipeline's construct id, when the stack holds several. */
  readonly pipeline?: string;
  readonly region?: string;
}

/** A function's ARN names its Region: `arn:aws:lambda:<region>:<account>:function:<name>`. */
const FUNCTION_ARN = /^arn:aws[a-z-]*:lambda:([a-z0-9-]+):\d{12}:function:/;

/** The evaluator's name (or ARN) and the Region to invoke it in. */
export async function resolveEvaluator(target: DeployedEvaluatorTarget): Promise<{ readonly functionName: string; readonly region: string }> {
  const { functionName, stack } = target;
  if (functionName !== undefined && stack !== undefined) throw new UsageError('Give either --function or --stack, not both.');
  if (functionName !== undefined) {
    if (target.pipeline !== undefined) throw new UsageError('--pipeline chooses a pipeline of --stack; with --function, name the evaluator itself.');
    return { functionName, region: FUNCTION_ARN.exec(functionName)?.[1] ?? (await resolveRegion(target.region)) };
  }
  if (stack === undefined) throw new UsageError('Name the evaluator with --function, or the deployed stack with --stack.');
  const region = await resolveRegion(target.region);
  const outputs = pipelineOutputs(stack, await readStackOutputs(stack, region), target.pipeline);
  if (!outputs.has(STACK_OUTPUTS.evaluatorFunctionName)) {
    throw new UsageError(`The pipeline of stack ${stack} has no evaluator: the operator plane (adminPhoneNumbers) brings it, with this version of the construct.`);
  }
  return { functionName: outputs.output(STACK_OUTPUTS.evaluatorFunctionName), region };
}

/**
 * Plays the suite on the deployed evaluator and answers its result: `concurrency` scenarios per
 * synchronous invocation, played at once, one invocation after the other (the evaluator plays one
 * at a time), so no answer waits longer than its slowest scenario — `fetch` gives up on one after
 * 5 minutes, whatever the suite's length. A suite the function refuses is a usage failure; the
 * function's own failure is the run's.
 */
export async function evaluateDeployed(
  evaluator: { readonly functionName: string; readonly region: string },
  suite: SuiteEvaluationEvent['suite'],
  invoke: LambdaInvoke = lambdaInvoke({ region: evaluator.region }),
): Promise<SuiteResultJson> {
  const size = Math.max(1, suite.concurrency ?? suite.scenarios.length);
  const results: SuiteResultJson[] = [];
  for (let start = 0; start < suite.scenarios.length; start += size) {
    results.push(await evaluateBatch(evaluator, { ...suite, scenarios: suite.scenarios.slice(start, start + size) }, invoke));
  }
  return mergedResults(results);
}

/** The batches' results as one suite's: the first batch's run id, every scenario in order, usage and cost summed. */
function mergedResults(batches: readonly SuiteResultJson[]): SuiteResultJson {
  return { runId: batches[0].runId, scenarios: batches.flatMap((batch) => batch.scenarios), ...usedTogether(batches) };
}

async function evaluateBatch(evaluator: { readonly functionName: string }, suite: SuiteEvaluationEvent['suite'], invoke: LambdaInvoke): Promise<SuiteResultJson> {
  const event: SuiteEvaluationEvent = { suite };
  const answer = await invoke({ FunctionName: evaluator.functionName, Payload: new TextEncoder().encode(JSON.stringify(event)) }, { abortSignal: new AbortController().signal });
  const payload = parsed(answer.Payload);
  if (answer.FunctionError !== undefined) {
    const { errorType, errorMessage } = (payload ?? {}) as { errorType?: string; errorMessage?: string };
    throw new CliFailure(EXIT_CODES.failed, `The evaluator ${evaluator.functionName} failed (${errorType ?? answer.FunctionError}: ${errorMessage ?? 'no message'}); its log group has the details.`);
  }
  // The evaluator answers `{result}` or `{problems}` (SuiteEvaluationAnswer); anything else is not ours.
  const told = payload as { readonly result?: unknown; readonly problems?: unknown } | undefined;
  if (typeof told?.problems === 'string') throw new CliFailure(EXIT_CODES.usage, `The evaluator refused the suite; nothing ran:\n${told.problems}`);
  if (isSuiteResult(told?.result)) return told.result;
  throw new CliFailure(EXIT_CODES.failed, `The evaluator ${evaluator.functionName} answered no suite result: is it the evaluator of a pipeline of this version of cdk-whatsapp-agent-pipeline?`);
}

function parsed(payload: Uint8Array | undefined): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(payload ?? new Uint8Array()));
  } catch {
    return undefined;
  }
}

function isSuiteResult(value: unknown): value is SuiteResultJson {
  const result = value as Partial<SuiteResultJson> | undefined;
  return typeof result?.runId === 'string' && Array.isArray(result.scenarios) && typeof result.usage?.inputTokens === 'number';
}
