import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { RUNTIME_ENV } from '../../lib/contract';
import { parseScenarios } from '../../lambda/core/application/evaluation/scenario-format';
import { handlerInputs, onDemandSplit } from '../support/bundle-outputs';
import { stagedFunction, testPlan } from '../support/deployment-settings';
import { createTestTable, tableRepositories, type TestTable } from '../support/dynamo-table';
import { newOperatorPhone } from '../support/ids';
import { loginToken } from '../support/operator-instances';

// The scenario format's checker (Ajv and the format's JSON Schema) is a file of its own beside the
// operator's handler, `scenario-format.js` (scripts/bundle-lambdas.mjs): the operator reaches
// scenario-format.ts only through the `require` of scenario-format-on-demand.ts, so a console call
// that checks no scenario loads the handler's files without it. The evaluator checks every suite it
// plays and keeps it in its handler.

/** What checking a scenario needs and nothing else of the operator does. */
const CHECKER_MODULES = ['lambda/core/application/evaluation/scenario-format.ts', 'evaluation/scenario.schema.json', 'node_modules/ajv/dist/ajv.js', 'node_modules/ajv/dist/core.js', 'node_modules/ajv/dist/compile/index.js'];
const SHIPPED_SCENARIO = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'evaluation', 'scenarios', 'asks-for-a-person.json'), 'utf8')) as Record<string, unknown>;

test("the operator's handler files hold no Ajv, no schema and no checker: scenario-format.js does, with no module in both", () => {
  const { outputs, handlerFiles, handlerInputs, onDemandInputs } = onDemandSplit('operator', 'scenario-format.js');
  expect(handlerFiles).not.toContain('scenario-format.js');
  expect([...handlerInputs].filter((input) => input.includes('node_modules/ajv/') || input.includes('node_modules/fast-deep-equal/') || input.endsWith('.schema.json'))).toEqual([]);
  for (const module of CHECKER_MODULES) expect(onDemandInputs).toContain(module);
  expect([...onDemandInputs].filter((input) => input.startsWith('node_modules/ajv/')).length).toBeGreaterThan(50);
  expect([...onDemandInputs].filter((input) => handlerInputs.has(input))).toEqual([]);
  // The error the suite recognises is one class, in a file both load.
  expect(handlerInputs).toContain('lambda/core/ports/evaluation.ts');
  expect(outputs.get('index.js')!.imports).toContainEqual(expect.objectContaining({ path: './scenario-format.js', kind: 'require-call', external: true }));
});

test('the evaluator, which checks every suite it plays, keeps the checker in its handler', () => {
  const evaluator = handlerInputs('evaluator');
  for (const module of CHECKER_MODULES) expect(evaluator).toContain(module);
});

describe('the staged operator', () => {
  let table: TestTable;
  beforeAll(async () => {
    table = await createTestTable('scenario-format-file');
  });
  afterAll(async () => {
    await table?.drop();
  });

  test('answers a first call without scenario-format.js, loads it with the first scenario an admin saves, and refuses one off the format with the checker\'s own words', async () => {
    const admin = newOperatorPhone();
    const plan = testPlan(table.name, 'http://127.0.0.1:9/000000000000/turns.fifo', { operatorPlane: { adminPhoneNumbers: [admin], consoleUrl: 'http://127.0.0.1:9', evaluatorFunctionName: 'scenario-format-evaluator' } });
    const operator = stagedFunction('operator', plan);
    const repositories = tableRepositories(table.name, plan.operator!.document.keyLayout);
    const broken = { ...SHIPPED_SCENARIO, formatVersion: 2, turns: [{ customer: { text: 'oi' }, expect: { reply: { startsWith: 'x' } } }] };

    const run = await runOperator(operator.folder, { ...operator.environment, [RUNTIME_ENV.tableName]: table.name, LOGIN_TOKEN: await loginToken(repositories, admin) }, { broken, valid: SHIPPED_SCENARIO });

    expect(run.first).toEqual({ status: 401, loaded: expect.arrayContaining(['index.js']) });
    expect(run.first.loaded).not.toContain('scenario-format.js');
    // Signing in and listing the empty suite check no scenario.
    expect(run.listed).toEqual({ status: 200, loaded: run.first.loaded });
    expect(run.refused.status).toBe(400);
    expect(run.refused.message).toBe(refusalOf('broken', broken));
    // The checker adds itself only: what it shares with the handler is the handler's loaded copy.
    expect(run.refused.loaded).toEqual([...run.first.loaded, 'scenario-format.js'].sort());
    expect(await repositories.resources.getCurrent('evaluation_scenario', 'broken')).toBeUndefined();
    expect(run.saved).toEqual({ status: 200, loaded: run.refused.loaded });
    expect((await repositories.resources.getCurrent('evaluation_scenario', 'asks-for-a-person'))?.version).toBe(1);
  });
});

/** What the checker says of `scenario`, saved as `id`, run from the sources. */
function refusalOf(id: string, scenario: unknown): string {
  try {
    parseScenarios([{ file: id, text: JSON.stringify(scenario, null, 2) }]);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${id} passes the format`);
}

interface Answered {
  readonly status: number;
  readonly loaded: string[];
  readonly message?: string;
}

/**
 * The staged operator's handler, run with plain node as Lambda runs it, on Function URL events: a
 * call without a session, a sign-in and the suite's list, a scenario off the format, a valid one;
 * after each, its answer and the files of its folder loaded so far.
 */
function runOperator(asset: string, env: Record<string, string>, scenarios: { readonly broken: unknown; readonly valid: unknown }): Promise<{ first: Answered; listed: Answered; refused: Answered; saved: Answered }> {
  const script = `const loaded = () => Object.keys(require.cache).filter((file) => file.startsWith(${JSON.stringify(asset)})).map((file) => file.slice(${asset.length + 1})).sort();
const { handler } = require(${JSON.stringify(path.join(asset, 'index.js'))});
const scenarios = ${JSON.stringify(scenarios)};
const context = { getRemainingTimeInMillis: () => 30000, functionName: 'operator', awsRequestId: 'scenario-format' };
let session = {};
const call = async (method, rawPath, body) => {
  const headers = { host: '127.0.0.1:9', origin: 'http://127.0.0.1:9', 'content-type': 'application/json', ...(session.csrf && method !== 'GET' ? { 'x-csrf-token': session.csrf } : {}) };
  const answer = await handler({ version: '2.0', routeKey: '$default', rawPath, rawQueryString: '', headers, ...(session.cookie ? { cookies: [session.cookie] } : {}),
    requestContext: { domainName: '127.0.0.1:9', http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'node' }, requestId: rawPath, routeKey: '$default', stage: '$default', timeEpoch: Date.now() },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }), isBase64Encoded: false }, context);
  return { answer, body: answer.body ? JSON.parse(answer.body) : undefined };
};
const answered = ({ answer, body }) => ({ status: answer.statusCode, loaded: loaded(), ...(answer.statusCode >= 400 && answer.statusCode !== 401 ? { message: body.message } : {}) });
(async () => {
  const first = answered(await call('GET', '/api/conversations'));
  const signIn = await call('POST', '/api/session', { token: process.env.LOGIN_TOKEN });
  const setCookie = signIn.answer.cookies?.[0] ?? signIn.answer.headers['set-cookie'];
  session = { cookie: setCookie.split(';')[0], csrf: signIn.body.csrfToken };
  const listed = answered(await call('GET', '/api/admin/scenarios'));
  const refused = answered(await call('PUT', '/api/admin/scenarios/broken', { scenario: scenarios.broken, expectedVersion: 0 }));
  const saved = answered(await call('PUT', '/api/admin/scenarios/asks-for-a-person', { scenario: scenarios.valid, expectedVersion: 0 }));
  process.stdout.write(JSON.stringify({ first, listed, refused, saved }));
})();`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], {
      env: { ...process.env, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local', ...env, POWERTOOLS_LOG_LEVEL: 'SILENT', POWERTOOLS_METRICS_DISABLED: 'true', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(stdout)) : reject(new Error(`the operator failed (${code}): ${stderr}`))));
  });
}
