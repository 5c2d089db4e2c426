// The operator function's launch of an evaluation run: an asynchronous `Invoke` of the evaluator,
// against the fake Lambda over HTTP, signed by the real client: the call returns once Lambda queued
// the event, the evaluator gets the run it names, and a launch Lambda refuses is an error (the gate
// then marks the run failed: prompt-gate.test.ts).
import { lambdaEvaluationLauncher } from '../../../../lambda/core/adapters/evaluation/lambda-evaluation-launcher';
import { lambdaInvoke } from '../../../../lambda/core/adapters/lambda/lambda-invoke';
import { FakeLambda } from '../../../../local/fake-aws/fake-lambda';

const CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

let lambda: FakeLambda;
const events: unknown[] = [];
let release: () => void = () => undefined;

beforeAll(async () => {
  lambda = await FakeLambda.start({
    functions: new Map([
      [
        'pipeline-evaluator',
        async (event: unknown) => {
          // The evaluator plays for minutes: the launch must not wait for it.
          await new Promise<void>((resolve) => (release = resolve));
          events.push(event);
        },
      ],
    ]),
  });
});
afterAll(() => lambda.close());

const invoke = () => lambdaInvoke({ endpoint: lambda.endpoint, credentials: async () => CREDENTIALS });

it('returns once Lambda queued the event, and the evaluator gets the run it names', async () => {
  await lambdaEvaluationLauncher('pipeline-evaluator', invoke()).launch({ promptId: 'system', runId: '20261207100000-abc' });
  expect(events).toEqual([]);
  release();
  await lambda.drained();
  expect(events).toEqual([{ promptEvaluation: { promptId: 'system', runId: '20261207100000-abc' } }]);
});

it('fails when Lambda does not queue it', async () => {
  await expect(lambdaEvaluationLauncher('no-such-function', invoke()).launch({ promptId: 'system', runId: 'r' })).rejects.toThrow(/not found|ResourceNotFound/i);
});
