// `npx cdk-whatsapp-agent-pipeline eval <dir> --function|--stack` (docs/EVALUATION.md#against-a-deployed-stack):
// the CLI invokes a deployed pipeline's evaluator function with the caller's credentials. Here the
// evaluator is the real composition on DynamoDB Local with the fake Converse model, served by the
// fake Lambda on 127.0.0.1 and signing its own calls as the evaluator's role (the permission check
// holds each against the synthesized role); the CLI runs as the command line does.
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DEFAULT_SYSTEM_PROMPT, STACK_OUTPUTS } from '../../lib/contract';
import type { EvaluatorEvent } from '../../lib/contract/evaluator-event';
import { composeEvaluator } from '../../lambda/composition/evaluator';
import { readEvaluatorSettings } from '../../lambda/composition/read-settings';
import { BedrockEvaluationJudge } from '../../lambda/core/adapters/agent/bedrock-evaluation-judge';
import { FakeLambda, type LocalFunctionHandler } from '../../local/fake-aws/fake-lambda';
import { fakeJudgeModel } from '../../local/fake-bedrock/fake-judge-model';
import { FakeBedrockRuntime } from '../../local/fake-bedrock/fake-bedrock-runtime';
import { FakeConverseModel } from '../../local/fake-bedrock/fake-converse-model';
import { instructedToolCall } from '../../local/fake-bedrock/instructed-tool-calls';
import { LOCAL_JUDGE_MODEL_ID } from '../../local/runtime/local-evaluator';
import { localPlan } from '../../local/runtime/local-plan';
import { createTestTable, tableRepositories, type TestTable } from '../support/dynamo-table';
import { startFakeCloudFormation, type FakeCloudFormation } from '../support/fake-cloudformation';
import { permissionCheck, principalPorts } from '../support/permissions/function-principals';

const root = join(__dirname, '..', '..');
const SHIPPED = join(root, 'evaluation', 'scenarios');
const EVALUATOR = 'agent-pipeline-prod-evaluator';
const REFUSING = 'refusing-evaluator';
const FAILING = 'failing-evaluator';
/** The deployment the evaluator belongs to: the operator plane brings it. */
const VARIANT = { channel: 'cloud-api', operatorPlane: true, crmSync: 'off' } as const;

let workDir: string;
let table: TestTable;
let model: FakeBedrockRuntime;
let lambda: FakeLambda;
let cloudFormation: FakeCloudFormation;
/** What the evaluator was invoked with, newest last. */
const events: EvaluatorEvent[] = [];

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'eval-deployed-'));
  table = await createTestTable('evaluator');
  const { converse } = new FakeConverseModel({ toolCall: instructedToolCall });
  model = await FakeBedrockRuntime.start({ converse, permissions: permissionCheck() });
  const plan = localPlan({ bedrockAgent: { converse }, adminPhoneNumbers: ['5511900000000'] }, {}, {
    tableName: table.name,
    turnQueueUrl: 'http://127.0.0.1:9/turns.fifo',
    deadLetterQueueUrl: 'http://127.0.0.1:9/dead-letters.fifo',
    whatsAppApiBaseUrl: 'http://127.0.0.1:9',
    whatsAppBusinessAccountId: '0',
  });
  // The rubric's judge is the deterministic fake, as in a local run.
  const judge = new BedrockEvaluationJudge({ modelId: LOCAL_JUDGE_MODEL_ID, converse: fakeJudgeModel });
  const evaluator = composeEvaluator(readEvaluatorSettings(plan.evaluator!), { ...principalPorts('evaluator', VARIANT), bedrockEndpoint: model.endpoint, judge, turnSettings: { promptCacheMs: 0 } });
  const functions = new Map<string, LocalFunctionHandler>([
    [EVALUATOR, async (event) => {
      events.push(event as EvaluatorEvent);
      return evaluator(event as EvaluatorEvent);
    }],
    [REFUSING, async () => ({ problems: "scenario 1: scenario 'greets': turns[0].expect.sentiment is not a field of the format (docs/EVALUATION.md)" })],
    [FAILING, async () => {
      throw new Error('Task timed out after 900.00 seconds');
    }],
  ]);
  lambda = await FakeLambda.start({ functions });
  cloudFormation = await startFakeCloudFormation({ 'WhatsAppAgent-prod': { [`Agent${STACK_OUTPUTS.deadLetterQueueUrl}`]: 'https://sqs/dlq', [`Agent${STACK_OUTPUTS.evaluatorFunctionName}`]: EVALUATOR }, 'NoPlane-prod': { [`Agent${STACK_OUTPUTS.deadLetterQueueUrl}`]: 'https://sqs/dlq' } });
}, 60_000);

afterAll(async () => {
  await Promise.all([model?.close(), lambda?.close(), cloudFormation?.stop(), table?.drop()]);
  rmSync(workDir, { recursive: true, force: true });
});

/** The command line, with the caller's own credentials and Lambda and CloudFormation on 127.0.0.1. */
const runCli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
    const callerEnv = { ...process.env, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'caller', AWS_SECRET_ACCESS_KEY: 'caller', AWS_ENDPOINT_URL_LAMBDA: lambda.endpoint, AWS_ENDPOINT_URL_CLOUDFORMATION: cloudFormation.endpoint, ...env };
    execFile(process.execPath, [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(root, 'bin', 'cli.ts'), 'eval', ...args], { encoding: 'utf8', env: callerEnv }, (error, stdout, stderr) =>
      resolve({ status: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr }),
    );
  });

test('--function: the deployed evaluator plays the shipped suite; the same table, JUnit XML and exit code 0 as locally', async () => {
  const junit = join(workDir, 'deployed.xml');
  const run = await runCli([SHIPPED, '--function', EVALUATOR, '--junit', junit, '--concurrency', '2']);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  expect(run.stdout).toMatch(/^PASS {4}asks-for-a-person +2 +[\d,]+ +US\$\d\.\d{4} +[\d.]+ s$/m);
  expect(run.stdout).toMatch(/^3 scenarios: 3 passed, 0 failed$/m);
  expect(run.stdout).toMatch(/^estimated cost US\$0\.\d{4} at the packaged model prices$/m);
  expect(readFileSync(junit, 'utf8')).toMatch(/<testsuite name="eval scenarios" tests="3" failures="0" errors="0"/);
  // The files as read, `--concurrency` of them per invocation, one invocation after the other, no draft:
  // no answer waits for more than its slowest scenario.
  const played = events.slice(-2) as { suite: { scenarios: { name: string }[]; concurrency: number; draft?: unknown } }[];
  expect(played.map(({ suite }) => suite.scenarios.map((scenario) => scenario.name))).toEqual([['asks-for-a-person', 'records-registration'], ['tap-and-photo']]);
  expect(played.every(({ suite }) => suite.concurrency === 2 && suite.draft === undefined)).toBe(true);
});

test("--stack finds the evaluator in the stack's outputs; a pipeline without the operator plane has none", async () => {
  const invoked = lambda.invocations;
  const run = await runCli([SHIPPED, '--stack', 'WhatsAppAgent-prod']);
  expect(run.status).toBe(0);
  expect(lambda.invocations).toBe(invoked + 1);
  const none = await runCli([SHIPPED, '--stack', 'NoPlane-prod']);
  expect(none.status).toBe(2);
  expect(none.stderr).toMatch(/^The pipeline of stack NoPlane-prod has no evaluator: the operator plane \(adminPhoneNumbers\) brings it/);
});

test('--draft evaluates a prompt draft: one without the handoff instruction fails the scenario of the customer who asks for a person, exit code 1', async () => {
  const withoutHandoff = DEFAULT_SYSTEM_PROMPT.replace(/Hand the conversation to a human[^.]*\./, '').trim();
  await tableRepositories(table.name).resources.putNextVersion({ resourceType: 'prompt_draft', resourceId: 'system', content: withoutHandoff, author: '5511900000000', active: true });
  const junit = join(workDir, 'draft.xml');
  const run = await runCli([SHIPPED, '--function', EVALUATOR, '--draft', '1', '--junit', junit]);
  expect(events.at(-1)).toMatchObject({ suite: { draft: { promptId: 'system', version: 1 } } });
  expect(run.status).toBe(1);
  expect(run.stdout).toMatch(/^FAIL {4}asks-for-a-person /m);
  expect(run.stdout).toContain('- toolsCalled: request_human_handoff was not called');
  expect(readFileSync(junit, 'utf8')).toMatch(/<testsuite name="eval scenarios" tests="3" failures="1"/);
});

test('invalid scenario files are refused before anything is invoked, exit code 2', async () => {
  const suite = mkdtempSync(join(workDir, 'invalid-'));
  writeFileSync(join(suite, 'greets.json'), JSON.stringify({ formatVersion: 1, name: 'greets', turns: [{ customer: { text: 'Oi' }, expect: { reply: { startsWith: 'Olá' } } }] }));
  const invoked = lambda.invocations;
  const run = await runCli([suite, '--function', EVALUATOR]);
  expect(run.status).toBe(2);
  expect(run.stderr).toMatch(/^Invalid scenario files; nothing ran:\n.*greets\.json: scenario 'greets': turns\[0\]\.expect\.reply\.startsWith is not a field of the format/);
  expect(lambda.invocations).toBe(invoked);
});

test('an evaluator that refuses the suite is a usage failure (exit code 2, its problems printed); one that fails is the run’s (exit code 1)', async () => {
  const refused = await runCli([SHIPPED, '--function', REFUSING]);
  expect(refused.status).toBe(2);
  expect(refused.stderr.trim()).toBe("The evaluator refused the suite; nothing ran:\nscenario 1: scenario 'greets': turns[0].expect.sentiment is not a field of the format (docs/EVALUATION.md)");
  const failed = await runCli([SHIPPED, '--function', FAILING]);
  expect(failed.status).toBe(1);
  expect(failed.stderr.trim()).toBe(`The evaluator ${FAILING} failed (Error: Task timed out after 900.00 seconds); its log group has the details.`);
  expect(failed.stdout).toBe('');
});

test('a function that does not exist, and an endpoint nothing answers, exit with their codes', async () => {
  const missing = await runCli([SHIPPED, '--function', 'no-such-evaluator']);
  expect(missing.status).toBe(6);
  expect(missing.stderr).toMatch(/^AWS found nothing by the name given \(ResourceNotFoundException: Function not found: no-such-evaluator\)/);
  // A port just freed: nothing answers there (fetch refuses the well-known closed ports, 9 among them).
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((closed) => server.close(closed));
  const unreachable = await runCli([SHIPPED, '--function', EVALUATOR], { AWS_ENDPOINT_URL_LAMBDA: `http://127.0.0.1:${port}`, AWS_MAX_ATTEMPTS: '1' });
  expect(unreachable.status).toBe(9);
  expect(unreachable.stderr).toMatch(new RegExp(`^Could not reach 127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\)`));
});

test('local options are refused against a deployed stack and deployed ones locally, naming the option', async () => {
  const prompt = join(workDir, 'prompt.txt');
  writeFileSync(prompt, 'Answer briefly.');
  expect(await runCli([SHIPPED, '--function', EVALUATOR, '--prompt', prompt])).toMatchObject({ status: 2, stderr: expect.stringMatching(/^--prompt is for a run on this machine; the deployed evaluator uses the deployment's\./) });
  expect(await runCli([SHIPPED, '--draft', '2'])).toMatchObject({ status: 2, stderr: expect.stringMatching(/^--draft is for a deployed stack: name it with --stack or --function\./) });
  expect(await runCli([SHIPPED, '--function', EVALUATOR, '--prompt-id', 'system.cadastro'])).toMatchObject({ status: 2, stderr: expect.stringMatching(/^--prompt-id names the prompt of a draft: give --draft <version> too\./) });
  expect(await runCli([SHIPPED, '--function', EVALUATOR, '--stack', 'WhatsAppAgent-prod'])).toMatchObject({ status: 2, stderr: expect.stringMatching(/^Give either --function or --stack, not both\./) });
});
