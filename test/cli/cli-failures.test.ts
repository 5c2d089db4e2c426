// The packed command-line tool (assets/cli/index.js, what `npx cdk-whatsapp-agent-pipeline` runs)
// as a process, meeting each failure a user can cause or meet: one line that says what happened and
// what to do, the documented exit code, and the stack only with --debug. Nothing leaves this
// machine: AWS is a closed port on 127.0.0.1, a fake that answers AWS's error shapes, or DynamoDB
// Local; the instance metadata service is switched off. Needs `npm run build` first.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EXIT_CODES } from '../../bin/cli-failure';
import { freePort } from '../../local/servers/local-servers';
import { startFakeAwsError, type AwsErrorAnswer } from '../support/fake-aws-error';
import { startFakeCloudFormation } from '../support/fake-cloudformation';
import { repoRoot } from '../support/packed-package';
import { LOCAL_SERVER_ENDPOINT_VARIABLES } from '../support/permissions/function-principals';

jest.setTimeout(60_000);

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

let home: string;
let tool: string;
let closedEndpoint: string;

beforeAll(async () => {
  const built = path.join(repoRoot, 'assets', 'cli', 'index.js');
  if (!existsSync(built)) throw new Error('assets/cli/index.js is missing: run `npm run build` before this test (`npm test` does).');
  // The file alone, in an empty folder, as the package ships it.
  home = mkdtempSync(path.join(tmpdir(), 'cli-failures-'));
  tool = path.join(home, 'cli.js');
  copyFileSync(built, tool);
  closedEndpoint = `http://127.0.0.1:${await freePort()}`;
});

afterAll(() => rmSync(home, { recursive: true, force: true }));

/** The tool with nothing of this machine's AWS settings: no profile, no credentials, no Region unless given. */
function cli(args: readonly string[], env: Record<string, string> = {}, nodeOptions: readonly string[] = []): Promise<Run> {
  const child = spawn(process.execPath, [...nodeOptions, tool, ...args], {
    cwd: home,
    env: {
      PATH: path.dirname(process.execPath),
      HOME: home,
      AWS_CONFIG_FILE: path.join(home, 'no-config'),
      AWS_SHARED_CREDENTIALS_FILE: path.join(home, 'no-credentials'),
      // The credential chain's last resort would ask 169.254.169.254.
      AWS_EC2_METADATA_DISABLED: 'true',
      // Anything not pointed elsewhere below finds nobody.
      AWS_ENDPOINT_URL: closedEndpoint,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

const CREDENTIALS = { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret' };
const IN_REGION = { ...CREDENTIALS, AWS_REGION: 'us-east-1' };

/** The run failed with `exitCode` and said so in exactly one line on stderr, matching `message`. */
function expectOneLineFailure(run: Run, exitCode: number, message: RegExp): void {
  expect({ status: run.status, stdout: run.stdout, lines: run.stderr.trimEnd().split('\n') }).toEqual({ status: exitCode, stdout: '', lines: [expect.stringMatching(message)] });
}

/** A fake AWS answering every request with `answer`, for the command's run. */
async function against(answer: AwsErrorAnswer, run: (endpoint: string) => Promise<Run>): Promise<{ run: Run; requests: number }> {
  const fake = await startFakeAwsError(answer);
  try {
    return { run: await run(fake.endpoint), requests: fake.requests() };
  } finally {
    await fake.stop();
  }
}

test('no credentials: exit 4, and how to sign in', async () => {
  const run = await cli(['redrive', '--stack', 'Prod', '--region', 'us-east-1']);
  expectOneLineFailure(run, EXIT_CODES.credentials, /^No AWS credentials were found: sign in \(aws sso login, or aws configure\) and choose the profile with AWS_PROFILE/);
});

test('credentials AWS refuses: exit 4, with what AWS said', async () => {
  const { run } = await against({ status: 403, code: 'ExpiredToken', message: 'The security token included in the request is expired' }, (endpoint) =>
    cli(['redrive', '--stack', 'Prod'], { ...IN_REGION, AWS_ENDPOINT_URL: endpoint }),
  );
  expectOneLineFailure(run, EXIT_CODES.credentials, /^AWS refused these credentials \(ExpiredToken: The security token included in the request is expired\): .*sign in again/);
});

test('no Region, or one AWS does not have: exit 7, before any request', async () => {
  const fake = await startFakeAwsError({ status: 400, code: 'ShouldNotBeAsked', message: 'no request was expected' });
  try {
    const missing = await cli(['export-customer', '--table', 'Agent', '--customer', '5511912345678'], { ...CREDENTIALS, AWS_ENDPOINT_URL: fake.endpoint });
    expectOneLineFailure(missing, EXIT_CODES.region, /^No AWS Region is set: pass --region <region> \(the stack's Region\) or set AWS_REGION/);
    const misspelled = await cli(['redrive', '--stack', 'Prod', '--region', 'us-east-9'], { ...CREDENTIALS, AWS_ENDPOINT_URL: fake.endpoint });
    expectOneLineFailure(misspelled, EXIT_CODES.region, /^'us-east-9' is not an AWS Region: check --region or AWS_REGION/);
    expect(fake.requests()).toBe(0);
  } finally {
    await fake.stop();
  }
});

test('a stack CloudFormation does not know: exit 6, naming the stack and the Region', async () => {
  const cloudFormation = await startFakeCloudFormation({});
  try {
    const run = await cli(['erase-customer', '--stack', 'Nope', '--customer', '5511912345678', '--yes'], { ...IN_REGION, AWS_ENDPOINT_URL_CLOUDFORMATION: cloudFormation.endpoint });
    expectOneLineFailure(run, EXIT_CODES.notFound, /^Stack Nope does not exist in Region us-east-1 for these credentials: check --stack, and --region/);
    expect(cloudFormation.requestedStacks).toEqual(['Nope']);
  } finally {
    await cloudFormation.stop();
  }
});

test('a table DynamoDB does not have: exit 6, naming what was given', async () => {
  const dynamoDbLocal = process.env[LOCAL_SERVER_ENDPOINT_VARIABLES.dynamoDb]!;
  const run = await cli(['export-customer', '--table', 'NoSuchTable', '--customer', '5511912345678'], { ...IN_REGION, AWS_ENDPOINT_URL_DYNAMODB: dynamoDbLocal });
  expectOneLineFailure(run, EXIT_CODES.notFound, /^AWS found nothing by the name given \(ResourceNotFoundException: .*\): check --table 'NoSuchTable' and --region \(us-east-1\)\.$/);
});

test('access denied: exit 5, with the permission AWS names', async () => {
  const message = 'User: arn:aws:iam::123456789012:user/ops is not authorized to perform: cloudformation:DescribeStacks on resource: arn:aws:cloudformation:us-east-1:123456789012:stack/Prod/*';
  const { run } = await against({ status: 403, code: 'AccessDenied', message }, (endpoint) => cli(['backfill-shards', '--stack', 'Prod'], { ...IN_REGION, AWS_ENDPOINT_URL: endpoint }));
  expectOneLineFailure(run, EXIT_CODES.accessDenied, /^AWS denied the request \(AccessDenied: User: .* is not authorized to perform: cloudformation:DescribeStacks .*\): give this identity the permission it names/);
});

test('throttled after the SDK\'s retries: exit 8, and to run it again later', async () => {
  const { run, requests } = await against({ status: 400, code: 'Throttling', message: 'Rate exceeded' }, (endpoint) => cli(['redrive', '--stack', 'Prod'], { ...IN_REGION, AWS_ENDPOINT_URL: endpoint }));
  expectOneLineFailure(run, EXIT_CODES.busy, /^AWS kept throttling the requests after retries \(Throttling: Rate exceeded\): wait a minute and run the command again\.$/);
  expect(requests).toBeGreaterThan(1);
});

test('no network: exit 9, naming what could not be reached', async () => {
  const run = await cli(['export-customer', '--table', 'Agent', '--customer', '5511912345678'], IN_REGION);
  expectOneLineFailure(run, EXIT_CODES.unreachable, new RegExp(`^Could not reach ${new URL(closedEndpoint).host} \\(ECONNREFUSED\\): check the network connection`));
});

test('an answer the tool does not recognise: exit 1, pointing at --debug', async () => {
  const { run } = await against({ status: 400, code: 'SomethingNew', message: 'A failure nobody planned for' }, (endpoint) => cli(['redrive', '--stack', 'Prod'], { ...IN_REGION, AWS_ENDPOINT_URL: endpoint }));
  expectOneLineFailure(run, EXIT_CODES.failed, /^SomethingNew: A failure nobody planned for — an error the tool does not recognise: run the command again with --debug/);
});

test('--debug, anywhere on the line, adds the stack under the same line and keeps the exit code', async () => {
  const plain = await cli(['export-customer', '--table', 'Agent', '--customer', '5511912345678'], IN_REGION);
  const debug = await cli(['export-customer', '--debug', '--table', 'Agent', '--customer', '5511912345678'], IN_REGION);
  expect(debug.status).toBe(plain.status);
  const [first, ...rest] = debug.stderr.trimEnd().split('\n');
  expect(first).toBe(plain.stderr.trimEnd());
  expect(rest.join('\n')).toMatch(/ECONNREFUSED[\s\S]*\n\s+at /);
  expect(plain.stderr).not.toMatch(/\n\s+at /);
});

test('the SDK\'s notice about older Node.js releases never reaches the output', async () => {
  // Node.js 20 as the SDK sees it: the notice it prints there.
  const olderNode = path.join(home, 'as-node-20.cjs');
  writeFileSync(olderNode, "Object.defineProperty(process, 'version', { value: 'v20.19.0' });\n");
  const sdkAlone = await new Promise<string>((resolve) => {
    const child = spawn(process.execPath, ['-r', olderNode, '-e', "new (require('@aws-sdk/client-cloudformation').CloudFormationClient)({ region: 'us-east-1' })"], {
      cwd: repoRoot,
      env: { PATH: path.dirname(process.execPath) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', () => resolve(stderr));
  });
  expect(sdkAlone).toContain('NodeVersionSupportWarning');
  const run = await cli(['export-customer', '--table', 'Agent', '--customer', '5511912345678'], IN_REGION, ['-r', olderNode]);
  expectOneLineFailure(run, EXIT_CODES.unreachable, /^Could not reach /);
});

test('wrong usage: exit 2 with the usage, before any AWS call', async () => {
  for (const args of [['toString'], ['redrive', '--environment', 'prod'], ['redrive'], ['export-customer', '--table', 'Agent']]) {
    const run = await cli(args, IN_REGION);
    expect({ args, status: run.status }).toEqual({ args, status: EXIT_CODES.usage });
    expect(run.stderr).toMatch(/Usage:/);
  }
});
