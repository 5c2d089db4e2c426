// `meta-setup` as the operator runs it: a process, the credentials piped on stdin, against the fake
// Graph API and the fake Secrets Manager on 127.0.0.1 — and a webhook that answers Meta's
// verification handshake with the verify token the secret holds.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { WHATSAPP_SECRET_PLACEHOLDER } from '../../lib/contract';
import { FakeSecretsManager } from '../../local/fake-aws/fake-secrets-manager';
import { DEFAULT_BUSINESS, FakeGraphApi } from '../../local/fake-whatsapp/fake-graph-api';
import { startFakeCloudFormation } from '../support/fake-cloudformation';

jest.setTimeout(60_000);

const root = join(__dirname, '..', '..');
const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:agent-whatsapp-AbCdEf';
const GENERATED_VERIFY_TOKEN = 'verify-token-the-construct-generated-0123456789ab';
const ACCESS_TOKEN = 'EAAG-system-user-token';
const PHONE_NUMBER_ID = Object.keys(DEFAULT_BUSINESS.phoneNumbers)[0];
const unfilledSecret = JSON.stringify({ appSecret: WHATSAPP_SECRET_PLACEHOLDER, verifyToken: GENERATED_VERIFY_TOKEN, accessToken: WHATSAPP_SECRET_PLACEHOLDER });

let graph: FakeGraphApi;
let secrets: FakeSecretsManager;
let webhook: Server;
let webhookUrl: string;

beforeEach(async () => {
  graph = await FakeGraphApi.start({ accessToken: ACCESS_TOKEN });
  secrets = await FakeSecretsManager.start({ secrets: new Map([[SECRET_ARN, unfilledSecret]]) });
  // As the deployed webhook does: the challenge back only for the verify token in the secret.
  webhook = createServer((request, response) => {
    const query = new URL(request.url ?? '/', 'http://127.0.0.1').searchParams;
    const { verifyToken } = JSON.parse(secrets.secretString(SECRET_ARN)!) as { verifyToken: string };
    const verified = query.get('hub.mode') === 'subscribe' && query.get('hub.verify_token') === verifyToken;
    response.writeHead(verified ? 200 : 403).end(verified ? query.get('hub.challenge') : 'verification refused');
  });
  await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
  webhookUrl = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/`;
});

afterEach(async () => {
  webhook.closeAllConnections();
  await Promise.all([graph.close(), secrets.close(), new Promise((resolve) => webhook.close(resolve))]);
});

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The command as a process, `stdin` piped in, the SDK pointed at the fake Secrets Manager. */
function metaSetup(args: readonly string[], stdin: string, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const child = spawn(process.execPath, [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(root, 'bin', 'cli.ts'), 'meta-setup', ...args], {
    env: {
      ...process.env,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_SESSION_TOKEN: '',
      AWS_PROFILE: '',
      ...env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(stdin);
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

/** The options of a run naming the secret and the webhook; `without` leaves some out. */
const connectArgs = (overrides: Record<string, string> = {}, without: readonly string[] = []) =>
  Object.entries({
    '--secret': SECRET_ARN,
    '--app-id': DEFAULT_BUSINESS.appId,
    '--waba-id': DEFAULT_BUSINESS.businessAccountId,
    '--phone-number-id': PHONE_NUMBER_ID,
    '--webhook-url': webhookUrl,
    '--graph-api-url': graph.baseUrl,
    ...overrides,
  })
    .filter(([name]) => !without.includes(name))
    .flat();

const credentials = (appSecret = DEFAULT_BUSINESS.appSecret, accessToken = ACCESS_TOKEN) => `${appSecret}\n${accessToken}\n`;

test('checks the token and the number, writes the secret and subscribes the app and its webhook callback', async () => {
  const run = await metaSetup(connectArgs(), credentials());

  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  expect(JSON.parse(secrets.secretString(SECRET_ARN)!)).toEqual({ appSecret: DEFAULT_BUSINESS.appSecret, verifyToken: GENERATED_VERIFY_TOKEN, accessToken: ACCESS_TOKEN });
  expect(graph.subscribedApps()).toEqual([{ businessAccountId: DEFAULT_BUSINESS.businessAccountId, appId: DEFAULT_BUSINESS.appId, receivedAt: expect.any(String) }]);
  expect(graph.webhookCallbacks()).toEqual([
    { appId: DEFAULT_BUSINESS.appId, object: 'whatsapp_business_account', callbackUrl: webhookUrl, verifyToken: GENERATED_VERIFY_TOKEN, fields: ['messages'], receivedAt: expect.any(String) },
  ]);
  // What Meta says of the number, and never a credential.
  expect(run.stdout).toContain('+1 555-000-0000 · Local Test Business');
  expect(run.stdout).not.toContain(ACCESS_TOKEN);
  expect(run.stdout).not.toContain(DEFAULT_BUSINESS.appSecret);
  expect(run.stdout).not.toContain(GENERATED_VERIFY_TOKEN);
});

test('with --stack, the secret and the webhook URL come from the pipeline’s outputs', async () => {
  const outputs = (channel: Record<string, string>) => ({ AgentTableName: 'table', AgentTurnQueueUrl: 'https://q', AgentDeadLetterQueueUrl: 'https://dlq', ...channel });
  const cloudFormation = await startFakeCloudFormation({
    Prod: outputs({ AgentWhatsAppSecretArn: SECRET_ARN, AgentWebhookUrl: webhookUrl }),
    Social: outputs({ AgentEventTopicArn: 'arn:aws:sns:us-east-1:123456789012:events' }),
  });
  try {
    const env = { AWS_ENDPOINT_URL_CLOUDFORMATION: cloudFormation.endpoint };
    const stackArgs = (stack: string) => connectArgs({ '--stack': stack }, ['--secret', '--webhook-url']);
    const run = await metaSetup(stackArgs('Prod'), credentials(), env);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(JSON.parse(secrets.secretString(SECRET_ARN)!)).toMatchObject({ accessToken: ACCESS_TOKEN });
    expect(graph.webhookCallbacks()).toEqual([expect.objectContaining({ callbackUrl: webhookUrl, verifyToken: GENERATED_VERIFY_TOKEN })]);

    const social = await metaSetup(stackArgs('Social'), credentials(), env);
    expect(social.status).toBe(2);
    expect(social.stderr).toContain('The pipeline of stack Social uses AWS End User Messaging Social: there is no Meta app to connect');
    const both = await metaSetup([...connectArgs(), '--stack', 'Prod'], credentials(), env);
    expect(both.status).toBe(2);
    expect(both.stderr).toContain('Give either --stack or --secret (and --webhook-url), not both');
    expect(cloudFormation.requestedStacks).toEqual(['Prod', 'Social']);
  } finally {
    await cloudFormation.stop();
  }
});

test('a wrong access token is refused clearly, and nothing is written or subscribed', async () => {
  const run = await metaSetup(connectArgs(), credentials(DEFAULT_BUSINESS.appSecret, 'EAAG-expired-token'));

  expect(run.status).toBe(1);
  expect(run.stderr).toMatch(/^The access token is not valid \(Invalid OAuth access token\.\): generate a system user's token .* Nothing was written\.\n$/);
  expect(secrets.writeCount).toBe(0);
  expect(secrets.secretString(SECRET_ARN)).toBe(unfilledSecret);
  expect(graph.subscribedApps()).toEqual([]);
  expect(graph.webhookCallbacks()).toEqual([]);
});

test('an unknown phone number id is refused clearly, and nothing is written or subscribed', async () => {
  const run = await metaSetup(connectArgs({ '--phone-number-id': '109999999999999' }), credentials());

  expect(run.status).toBe(1);
  expect(run.stderr).toContain("Meta does not let this token read phone number id 109999999999999 (Unsupported get request. Object with ID '109999999999999' does not exist");
  expect(run.stderr).toContain('check --phone-number-id on WhatsApp → API Setup. Nothing was written.');
  expect(secrets.writeCount).toBe(0);
  expect(graph.subscribedApps()).toEqual([]);
});

test('a wrong app secret is refused before anything is written: it would refuse every webhook request', async () => {
  const run = await metaSetup(connectArgs(), credentials('not-the-app-secret'));

  expect(run.status).toBe(1);
  expect(run.stderr).toContain(`Meta refused the app secret for app ${DEFAULT_BUSINESS.appId} (Invalid OAuth access token signature.)`);
  expect(secrets.writeCount).toBe(0);
});

test('replacing a filled app secret keeps the old one as previousAppSecret; the verify token stays', async () => {
  const filled = JSON.stringify({ appSecret: 'the-old-app-secret', verifyToken: GENERATED_VERIFY_TOKEN, accessToken: 'old-token' });
  await secrets.close();
  secrets = await FakeSecretsManager.start({ secrets: new Map([[SECRET_ARN, filled]]) });

  const run = await metaSetup(connectArgs({ '--secret': 'agent-whatsapp-AbCdEf' }), credentials());

  expect(run.status).toBe(0);
  expect(JSON.parse(secrets.secretString(SECRET_ARN)!)).toEqual({
    appSecret: DEFAULT_BUSINESS.appSecret,
    previousAppSecret: 'the-old-app-secret',
    verifyToken: GENERATED_VERIFY_TOKEN,
    accessToken: ACCESS_TOKEN,
  });
  expect(run.stdout).toContain('the replaced app secret kept as previousAppSecret: remove it in an hour');
});

test('a webhook that fails Meta’s verification is reported; the secret is written and the app subscribed', async () => {
  const refusing = createServer((_request, response) => response.writeHead(403).end('verification refused'));
  await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
  try {
    const run = await metaSetup(connectArgs({ '--webhook-url': `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/` }), credentials());
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('Meta did not accept the webhook callback ((#2200) Callback verification failed with the following errors: HTTP Status Code = 403');
    expect(secrets.writeCount).toBe(1);
    expect(graph.subscribedApps()).toHaveLength(1);
    expect(graph.webhookCallbacks()).toEqual([]);
  } finally {
    refusing.closeAllConnections();
    await new Promise((resolve) => refusing.close(resolve));
  }
});

test('credentials never come from the command line; missing ids and a plain-http webhook are usage mistakes', async () => {
  const onArgv = await metaSetup([...connectArgs(), '--access-token', ACCESS_TOKEN], credentials());
  expect(onArgv.status).toBe(2);
  expect(onArgv.stderr).toContain("Unknown option '--access-token'");

  const missing = await metaSetup(['--secret', SECRET_ARN], credentials());
  expect(missing.status).toBe(2);
  expect(missing.stderr).toContain('Missing --app-id, --waba-id, --phone-number-id.');
  const noTarget = await metaSetup(['--app-id', DEFAULT_BUSINESS.appId], credentials());
  expect(noTarget.stderr).toContain('Missing --stack (or --secret), --waba-id, --phone-number-id.');

  const plainHttp = await metaSetup(connectArgs({ '--webhook-url': 'http://agent.example.com/' }), credentials());
  expect(plainHttp.status).toBe(2);
  expect(plainHttp.stderr).toContain('--webhook-url must be an https URL');

  const oneLine = await metaSetup(connectArgs(), `${DEFAULT_BUSINESS.appSecret}\n`);
  expect(oneLine.status).toBe(2);
  expect(oneLine.stderr).toContain('Expected 2 lines on stdin (Meta app secret, then Access token), got 1.');
  expect(secrets.writeCount).toBe(0);
});

test('the app secret and the token go only to Meta’s Graph API over https: any other host, plain http and a redirect are refused before they leave', async () => {
  for (const url of ['http://graph.facebook.com/v23.0', 'https://graph.example.com/v23.0', 'https://graph.facebook.com.example.com/v23.0', 'https://user:pass@graph.example.com/v23.0']) {
    const refused = await metaSetup(connectArgs({ '--graph-api-url': url }), credentials());
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/^--graph-api-url: the Graph API: /);
  }
  // A Graph API root on this machine that redirects elsewhere (here: to the fake Graph API itself): nothing reaches the target.
  const redirecting = createServer((request, response) => response.writeHead(307, { location: `${graph.baseUrl.replace(/\/v[\d.]+$/, '')}${request.url}` }).end());
  await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
  try {
    const run = await metaSetup(connectArgs({ '--graph-api-url': `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/v23.0` }), credentials());
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('answered a redirect (HTTP 307), which is not followed');
    expect(graph.requestCount).toBe(0);
  } finally {
    redirecting.closeAllConnections();
    await new Promise((resolve) => redirecting.close(resolve));
  }
  expect(secrets.writeCount).toBe(0);
});
