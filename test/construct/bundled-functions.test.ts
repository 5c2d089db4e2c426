import { spawn } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { CRM_TARGET_KINDS, RUNTIME_ENV } from '../../lib/contract';
import { createDynamoRepositories, type DynamoRepositories } from '../../lambda/core/adapters/dynamodb/dynamo-repositories';
import { CrmSyncStatus } from '../../lambda/core/domain/crm-sync';
import { newCustomer } from '../support/ids';
import { newSession } from '../support/domain-records';
import { waitUntil } from '../support/waiting';
import { createTestTable, type TestTable } from '../support/dynamo-table';
import { stagedFunction, testPlan } from '../support/deployment-settings';

// The CRM sync worker's asset as the construct stages it, run with plain node as Lambda runs it: its DynamoDB
// client talks to DynamoDB Local without the event-stream code the bundle leaves out, with the
// environment-only credentials, and its CRM function is invoked with the signed `Invoke` call
// (served on 127.0.0.1 as the Lambda API answers).

const CRM_FUNCTION = 'arn:aws:lambda:us-east-1:123456789012:function:crm-bridge';
// Tracing on, as the construct deploys by default: the bundle traces only where Lambda runs it.
const PLAN = testPlan('bundled', 'http://127.0.0.1:9/turns.fifo', {
  crmSync: { kind: CRM_TARGET_KINDS.function, functionName: CRM_FUNCTION },
  observability: { serviceName: 'bundled', metricsNamespace: 'bundled', logLevel: 'SILENT', tracing: true },
});
const WORKER = stagedFunction('crm-sync', PLAN);
const BUNDLE = join(WORKER.folder, 'index.js');

let table: TestTable;
let repositories: DynamoRepositories;
let lambdaApi: Server;
const invocations: { path: string; authorization?: string; event: { sessionId?: string } }[] = [];

beforeAll(async () => {
  table = await createTestTable('bundled');
  // The projection rows in the layout the worker is told.
  repositories = createDynamoRepositories({ tableName: table.name, crmSyncEnabled: true, keyLayout: PLAN['crm-sync']!.document.keyLayout });
  lambdaApi = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      invocations.push({ path: request.url!, authorization: request.headers.authorization, event: JSON.parse(body) });
      response.writeHead(200, { 'content-type': 'application/json', 'x-amz-executed-version': '$LATEST' });
      response.end(JSON.stringify({ status: 'accepted', contactId: 'contact-1', dealId: 'deal-1' }));
    });
  });
  await new Promise<void>((resolve) => lambdaApi.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  lambdaApi.closeAllConnections();
  await new Promise((resolve) => lambdaApi.close(resolve));
  await table.drop();
});

/** Runs the handler once; prints its report and the files of the bundle's folder it loaded. */
function runBundle(env: Record<string, string>): Promise<{ report: unknown; loadedFiles: string[] }> {
  const script = `require(${JSON.stringify(BUNDLE)}).handler().then((report) => process.stdout.write(JSON.stringify({
  report,
  loadedFiles: Object.keys(require.cache).filter((file) => file.startsWith(${JSON.stringify(dirname(BUNDLE))})).map((file) => file.slice(${dirname(BUNDLE).length + 1})).sort(),
})))`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(stdout)) : reject(new Error(`the bundle failed (${code}): ${stderr}`))));
  });
}

function crmSyncEnvironment(): Record<string, string> {
  return {
    ...WORKER.environment,
    [RUNTIME_ENV.tableName]: table.name,
    AWS_ENDPOINT_URL_LAMBDA: `http://127.0.0.1:${(lambdaApi.address() as AddressInfo).port}`,
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    POWERTOOLS_METRICS_DISABLED: 'true',
  };
}

test('the crm-sync bundle publishes a due projection through DynamoDB Local and a signed Invoke of the CRM function', async () => {
  const session = newSession(newCustomer(), { state: 'QUALIFYING', segment: 'PESQUISA' });
  await repositories.sessions.put(session);

  const { report, loadedFiles } = await runBundle(crmSyncEnvironment());

  expect(report).toMatchObject({ sent: 1 });
  // Outside Lambda nothing traces: the tracer and the X-Ray SDK beside the handler are never loaded.
  expect(loadedFiles).toEqual(['index.js']);
  expect(invocations).toHaveLength(1);
  expect(invocations[0].path).toBe(`/2015-03-31/functions/${encodeURIComponent(CRM_FUNCTION)}/invocations`);
  expect(invocations[0].authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=local\/\d{8}\/us-east-1\/lambda\/aws4_request, /);
  expect(invocations[0].event.sessionId).toBe(session.sessionId);
  expect((await repositories.crmSync.get(session.sessionId))?.status).toBe(CrmSyncStatus.SYNCED);
});

describe('with tracing on, as Lambda runs it', () => {
  let daemon: Socket;
  const documents: { name: string; namespace?: string; trace_id: string }[] = [];

  beforeAll(async () => {
    // Stands in for the X-Ray daemon: the SDK sends each closed subsegment as one UDP datagram (a JSON header line, then the document).
    daemon = createSocket('udp4', (datagram) => documents.push(JSON.parse(datagram.toString('utf8').split('\n')[1])));
    await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
  });

  afterAll(() => new Promise<void>((resolve) => daemon.close(resolve)));

  test('the bundle loads the tracer beside it and records the invocation, its DynamoDB calls and the Invoke as subsegments', async () => {
    const session = newSession(newCustomer(), { state: 'QUALIFYING', segment: 'PESQUISA' });
    await repositories.sessions.put(session);
    const traceId = '1-5759e988-bd862e3fe1be46a994272793';

    const { report, loadedFiles } = await runBundle({
      ...crmSyncEnvironment(),
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
      LAMBDA_TASK_ROOT: dirname(BUNDLE),
      _X_AMZN_TRACE_ID: `Root=${traceId};Parent=53995c3f42cd8ad8;Sampled=1`,
      AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${daemon.address().port}`,
    });

    expect(report).toMatchObject({ sent: 1 });
    expect(loadedFiles).toEqual(['index.js', 'tracer.js']);
    await waitUntil(() => documents.some(({ name }) => name === '## crm-sync'), 5_000, 'the invocation subsegment');
    expect(documents.every((document) => document.trace_id === traceId)).toBe(true);
    // The table's calls and the Invoke are signed fetches: Powertools records each under the host it called.
    const remote = documents.filter((document) => document.name === '127.0.0.1' && document.namespace === 'remote');
    expect(remote.map((document) => (document as { http?: { request?: { method?: string } } }).http?.request?.method)).toEqual(expect.arrayContaining(['POST', 'POST', 'POST']));
    expect(remote.length).toBeGreaterThanOrEqual(3);
  });
});
