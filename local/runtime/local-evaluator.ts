import { composeEvaluator } from '../../lambda/composition/evaluator';
import type { EvaluatorSettings } from '../../lambda/composition/deployment-settings';
import type { EvaluationPorts } from '../../lambda/composition/evaluation';
import { BedrockEvaluationJudge } from '../../lambda/core/adapters/agent/bedrock-evaluation-judge';
import { bedrockConverse, type ConverseCall } from '../../lambda/core/adapters/agent/bedrock-converse-agent';
import { type AwsCredentials, credentialProvider } from '../../lambda/core/adapters/aws/aws-identity';
import type { EvaluationLauncher } from '../../lambda/core/ports/evaluation';
import { FakeBedrockRuntime } from '../fake-bedrock/fake-bedrock-runtime';
import { fakeJudgeModel } from '../fake-bedrock/fake-judge-model';
import type { Cleanup } from './cleanup';

/** The judge model's id in a local run: the fake's, priced at nothing. */
export const LOCAL_JUDGE_MODEL_ID = 'local.fake-judge';

/**
 * The evaluator function of a local pipeline, in process: the operator function's launcher plays
 * each run as Lambda would play the asynchronous event — after the call that started it returned —
 * with rubric checks graded by the deterministic fake judge. Runs still playing are awaited before
 * the pipeline stops, so none writes to a table that is gone.
 */
export async function localEvaluationLauncher(settings: EvaluatorSettings, ports: EvaluationPorts, cleanup: Pick<Cleanup, 'add'>): Promise<EvaluationLauncher> {
  const judge = await startLocalJudge(ports.awsCredentials, cleanup);
  const evaluator = composeEvaluator(settings, { ...ports, judge, turnSettings: { promptCacheMs: 0, ...ports.turnSettings } });
  const playing = new Set<Promise<unknown>>();
  cleanup.add(async () => {
    await Promise.allSettled(playing);
  });
  return {
    async launch(run) {
      const played: Promise<unknown> = new Promise((resolve) => setImmediate(resolve))
        .then(() => evaluator({ promptEvaluation: run }))
        // Lambda would log an asynchronous invocation's failure; so does the local runtime, where the pipeline logs.
        .catch((error: unknown) => ports.logger?.error('The evaluation run failed', { ...run, error: (error as Error).message }))
        .finally(() => playing.delete(played));
      playing.add(played);
    },
  };
}

/** A judge model (default: the deterministic fake judge) behind its own fake Bedrock Runtime, called by the judge's signed client. */
export async function startLocalJudge(credentials: AwsCredentials | undefined, cleanup: Pick<Cleanup, 'add'>, model: ConverseCall = fakeJudgeModel): Promise<BedrockEvaluationJudge> {
  const runtime = await FakeBedrockRuntime.start({ converse: model });
  cleanup.add(() => runtime.close());
  return new BedrockEvaluationJudge({ modelId: LOCAL_JUDGE_MODEL_ID, converse: bedrockConverse({ endpoint: runtime.endpoint, credentials: credentialProvider(credentials) }) });
}
