import type { PromptEvaluationEvent } from '../../../../lib/contract/evaluator-event';
import type { EvaluationLauncher } from '../../ports/evaluation';
import type { LambdaInvoke } from '../lambda/lambda-invoke';

/** Lambda answers an asynchronous invoke once the event is queued: seconds at most. */
const QUEUE_TIMEOUT_MS = 5_000;

/**
 * Starts a run on the evaluator function with an asynchronous `Invoke` (`Event`): Lambda queues the
 * event and the operator's call returns at once, while the run plays for minutes. The evaluator
 * has no retries: a run that failed says so in the table (prompt-gate.ts).
 */
export function lambdaEvaluationLauncher(functionName: string, invoke: LambdaInvoke): EvaluationLauncher {
  return {
    async launch({ promptId, runId }) {
      const event: PromptEvaluationEvent = { promptEvaluation: { promptId, runId } };
      const answer = await invoke({ FunctionName: functionName, InvocationType: 'Event', Payload: new TextEncoder().encode(JSON.stringify(event)) }, { abortSignal: AbortSignal.timeout(QUEUE_TIMEOUT_MS) });
      if (answer.StatusCode !== 202) throw new Error(`Lambda did not queue the evaluation run (status ${answer.StatusCode ?? 'none'})`);
    },
  };
}
