// Connect Meta: `npx cdk-whatsapp-agent-pipeline meta-setup --stack <stack> --app-id … --waba-id …
// --phone-number-id …` asks for the app secret and the access token (no echo),
// checks both and the phone number with Meta, writes the WhatsApp secret, and subscribes the app to
// the number's webhooks. Nothing is written unless Meta accepted what was typed.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { GetSecretValueCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { PIPELINE_DEFAULTS, STACK_OUTPUTS, WHATSAPP_SECRET_FIELDS, WHATSAPP_SECRET_OPTIONAL_FIELDS, WHATSAPP_SECRET_PLACEHOLDER } from '../lib/contract';
import { type CliCommand, type CommandOutput, processOutput, runCommand, UsageError } from './cli-command';
import { safeDestination, UnsafeDestinationError } from '../lambda/core/adapters/outbound/safe-destination';
import { GraphApiCallError, META_SETUP_GRAPH_API, MetaSetupGraph, type TokenInfo } from './meta-setup-graph';
import { readSecretValues } from './meta-setup-input';
import { pipelineOutputs, readStackOutputs } from './pipeline-stack';

const USAGE = `Usage:
  npx cdk-whatsapp-agent-pipeline meta-setup --stack <stack name> [--pipeline <id>] --app-id <id>
      --waba-id <id> --phone-number-id <id> [--region <region>]
  npx cdk-whatsapp-agent-pipeline meta-setup --secret <arn or name> [--webhook-url <url>] --app-id <id>
      --waba-id <id> --phone-number-id <id> [--region <region>]

Asks for the Meta app secret and the access token (typed without echo, or piped on stdin, one a
line: app secret first), then:
  1. checks with Meta that the app secret belongs to --app-id and that the token is valid, belongs
     to the app, may send messages and manage the WhatsApp Business Account (WABA);
  2. checks that the token can reach --phone-number-id, and shows its number and verified name;
  3. writes the WhatsApp secret: the app secret and the token, next to the verify token it
     already holds (a new one when it holds none); replacing an app secret keeps the old one as
     previousAppSecret, so warm functions still accept Meta's requests meanwhile;
  4. subscribes the app to the WABA's webhooks;
  5. sets the app's webhook callback to the webhook URL, for the "messages" field (Meta calls the
     webhook to verify it, so deploy first).
Nothing is written when a check fails.

Options:
  --stack <name>           the deployed stack: the secret and the webhook URL come from its outputs
  --pipeline <id>          the pipeline's construct id, when the stack holds several
  --secret <arn or name>   name the WhatsApp secret instead (the stack's <id>WhatsAppSecretArn output)
  --app-id <id>            the Meta app (App settings → Basic → App ID)
  --waba-id <id>           the WhatsApp Business Account (WhatsApp → API Setup)
  --phone-number-id <id>   the business number's id (WhatsApp → API Setup), one of phoneNumberIds
  --webhook-url <url>      with --secret: the stack's <id>WebhookUrl output (without it, step 5 is
                           left to the Meta app's dashboard)
  --region <region>        the stack's and the secret's Region (default: AWS_REGION or the profile's)
  --graph-api-url <url>    the Graph API root (default ${PIPELINE_DEFAULTS.whatsAppApiBaseUrl}); https on
                           graph.facebook.com only (plain http only to this machine, for a local
                           fake), and a redirect is never followed: the secret and token go there
  -h, --help

Credentials come from the usual AWS settings (AWS_PROFILE, AWS_REGION, ...); the identity needs
secretsmanager:GetSecretValue and secretsmanager:PutSecretValue on the secret (and, with a
customer managed key, kms:Decrypt and kms:GenerateDataKey on it).`;

/** What the pipeline needs the token for: sending messages, and subscribing the app to the account. */
const REQUIRED_PERMISSIONS = ['whatsapp_business_messaging', 'whatsapp_business_management'] as const;
/** The webhook fields the pipeline consumes. */
const WEBHOOK_FIELDS = ['messages'] as const;
const ID_PATTERN = /^\d{5,20}$/;

/** A check Meta failed: reported as it stands, exit code 1. */
class MetaSetupRefused extends Error {}

/** The command: argv in, exit code out (0 connected, 1 refused or failed, 2 wrong usage). */
export function metaSetup(argv: readonly string[], output: CommandOutput = processOutput, input: NodeJS.ReadStream = process.stdin): Promise<number> {
  return runCommand(USAGE, argv, output, async () => {
    const options = parseOptions(argv);
    if (options === undefined) {
      output.out(USAGE);
      return 0;
    }
    try {
      await connect(options, output, input);
      return 0;
    } catch (error) {
      if (!(error instanceof MetaSetupRefused)) throw error;
      output.err(error.message);
      return 1;
    }
  });
}

interface MetaSetupOptions {
  /** The stack to read the secret and the webhook URL from, or them named. */
  readonly target: { readonly stack: string; readonly pipeline?: string } | PipelineEndpoints;
  readonly appId: string;
  readonly businessAccountId: string;
  readonly phoneNumberId: string;
  readonly region?: string;
  readonly graphApiUrl: string;
}

/** What connecting the app writes and points Meta at. */
interface PipelineEndpoints {
  readonly secretId: string;
  readonly webhookUrl?: string;
}

function parseOptions(argv: readonly string[]): MetaSetupOptions | undefined {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      'stack': { type: 'string' },
      'pipeline': { type: 'string' },
      'secret': { type: 'string' },
      'app-id': { type: 'string' },
      'waba-id': { type: 'string' },
      'phone-number-id': { type: 'string' },
      'webhook-url': { type: 'string' },
      'region': { type: 'string' },
      'graph-api-url': { type: 'string' },
      'help': { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return undefined;
  if (values.stack !== undefined && (values.secret !== undefined || values['webhook-url'] !== undefined)) {
    throw new UsageError('Give either --stack or --secret (and --webhook-url), not both: with --stack they come from its outputs.');
  }
  const missing = [...(values.stack === undefined ? (['secret'] as const) : []), ...(['app-id', 'waba-id', 'phone-number-id'] as const)].filter((name) => !values[name]);
  if (missing.length > 0) throw new UsageError(`Missing ${missing.map((name) => (name === 'secret' ? '--stack (or --secret)' : `--${name}`)).join(', ')}.`);
  for (const name of ['app-id', 'waba-id', 'phone-number-id'] as const) {
    if (!ID_PATTERN.test(values[name]!)) throw new UsageError(`--${name} must be Meta's numeric id (digits only), got "${values[name]}".`);
  }
  const webhookUrl = values['webhook-url'];
  if (webhookUrl !== undefined) assertCallbackUrl(webhookUrl);
  const graphApiUrl = values['graph-api-url'] ?? PIPELINE_DEFAULTS.whatsAppApiBaseUrl;
  // The app secret and the token go there: the rule every Cloud API adapter follows, checked before either is asked for.
  try {
    safeDestination(graphApiUrl, META_SETUP_GRAPH_API);
  } catch (error) {
    if (error instanceof UnsafeDestinationError) throw new UsageError(`--graph-api-url: ${error.message}.`);
    throw error;
  }
  return {
    target: values.stack === undefined ? { secretId: values.secret!, webhookUrl } : { stack: values.stack, pipeline: values.pipeline },
    appId: values['app-id']!,
    businessAccountId: values['waba-id']!,
    phoneNumberId: values['phone-number-id']!,
    region: values.region,
    graphApiUrl,
  };
}

/** Meta calls only https callbacks; plain http is for a webhook on this machine (the local runtime, tests). */
function assertCallbackUrl(webhookUrl: string): void {
  let url: URL;
  try {
    url = new URL(webhookUrl);
  } catch {
    throw new UsageError(`--webhook-url must be a URL (the stack's WebhookUrl output), got "${webhookUrl}".`);
  }
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(loopback && url.protocol === 'http:')) throw new UsageError(`--webhook-url must be an https URL: Meta calls no other, got "${webhookUrl}".`);
}

/** The secret and the webhook URL: named, or the stack's outputs of the pipeline. */
async function endpointsOf(options: MetaSetupOptions): Promise<PipelineEndpoints> {
  if (!('stack' in options.target)) return options.target;
  const { stack, pipeline } = options.target;
  const outputs = pipelineOutputs(stack, await readStackOutputs(stack, options.region), pipeline);
  if (outputs.has(STACK_OUTPUTS.eventTopicArn)) throw new UsageError(`The pipeline of stack ${stack} uses AWS End User Messaging Social: there is no Meta app to connect (docs/END-USER-MESSAGING.md).`);
  return { secretId: outputs.output(STACK_OUTPUTS.whatsAppSecretArn), webhookUrl: outputs.output(STACK_OUTPUTS.webhookUrl) };
}

async function connect(options: MetaSetupOptions, output: CommandOutput, input: NodeJS.ReadStream): Promise<void> {
  const { secretId, webhookUrl } = await endpointsOf(options);
  const [appSecret, accessToken] = await readSecretValues(['Meta app secret: ', 'Access token: '], input);
  const secrets = new SecretsManagerClient({ region: options.region });
  try {
    // Read first: a wrong secret or a missing permission stops the command before anything changes.
    const current = await secrets.send(new GetSecretValueCommand({ SecretId: secretId }));
    const graph = new MetaSetupGraph(options.graphApiUrl, options.appId, appSecret);

    output.out(`Checking the app secret and the access token of app ${options.appId} with Meta…`);
    const token = await refusedAs(() => graph.inspectToken(accessToken), (error) =>
      error.code === 190 || error.code === 101
        ? `Meta refused the app secret for app ${options.appId} (${error.message}): check --app-id and the app secret (App settings → Basic). Nothing was written.`
        : undefined,
    );
    output.out(`  ${describeToken(checkToken(token, options), output)}`);

    output.out(`Checking phone number id ${options.phoneNumberId}…`);
    const phone = await refusedAs(() => graph.phoneNumber(options.phoneNumberId, accessToken), (error) =>
      error.code === 100 || error.code === 190
        ? `Meta does not let this token read phone number id ${options.phoneNumberId} (${error.message}): check --phone-number-id on WhatsApp → API Setup. Nothing was written.`
        : undefined,
    );
    output.out(`  ${phone.displayPhoneNumber} · ${phone.verifiedName}`);

    const { document, verifyToken, notes } = updatedSecret(current.SecretString, appSecret, accessToken);
    await secrets.send(new PutSecretValueCommand({ SecretId: current.ARN ?? secretId, SecretString: JSON.stringify(document) }));
    output.out(`Wrote the WhatsApp secret ${current.ARN ?? secretId} (${notes.join('; ')}).`);

    output.out(`Subscribing app ${options.appId} to the webhooks of WhatsApp Business Account ${options.businessAccountId}…`);
    await refusedAs(() => graph.subscribeToBusinessAccount(options.businessAccountId, accessToken), (error) =>
      `Meta refused to subscribe the app to WABA ${options.businessAccountId} (${error.message}). The secret is written; check --waba-id and run the command again.`,
    );

    if (webhookUrl === undefined) {
      output.out(`Done. Set the webhook in the Meta app (WhatsApp → Configuration): callback URL = the stack's WebhookUrl, verify token = the secret's ${WHATSAPP_SECRET_FIELDS.verifyToken}, field "messages" — or run this again with --webhook-url.`);
      return;
    }
    output.out(`Setting the app's webhook callback to ${webhookUrl} (fields ${WEBHOOK_FIELDS.join(', ')}); Meta verifies it now…`);
    await refusedAs(() => graph.setWebhookCallback(webhookUrl, verifyToken, WEBHOOK_FIELDS), (error) =>
      `Meta did not accept the webhook callback (${error.message}). The secret is written and the app subscribed; ` +
      "check that the stack is deployed and the webhook URL is its WebhookUrl output, then run the command again.",
    );
    output.out(`Done: ${phone.displayPhoneNumber} delivers its messages to the pipeline. Write to it from WhatsApp to try.`);
  } finally {
    secrets.destroy();
  }
}

/** Runs a Graph call; a Meta error becomes the refusal `explain` words (or, when it has none, Meta's own). */
async function refusedAs<T>(call: () => Promise<T>, explain: (error: GraphApiCallError) => string | undefined): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof GraphApiCallError)) throw error;
    throw new MetaSetupRefused(explain(error) ?? `Meta answered: ${error.message}. Nothing was written.`);
  }
}

function checkToken(token: TokenInfo, options: MetaSetupOptions): TokenInfo {
  const refuse = (why: string) => {
    throw new MetaSetupRefused(`${why} Nothing was written.`);
  };
  if (!token.isValid) refuse(`The access token is not valid (${token.problem ?? 'Meta gave no reason'}): generate a system user's token (README, Setting up Meta).`);
  if (token.appId !== options.appId) refuse(`The access token belongs to app ${token.appId ?? '?'}, not ${options.appId}: generate it for this app, or check --app-id.`);
  const lacking = REQUIRED_PERMISSIONS.filter((permission) => !token.scopes.includes(permission));
  if (lacking.length > 0) refuse(`The access token lacks the permission${lacking.length > 1 ? 's' : ''} ${lacking.join(', ')}: generate it again with both.`);
  // A token limited to some accounts must include this one.
  const accounts = token.targets.get('whatsapp_business_management');
  if (accounts !== undefined && accounts.length > 0 && !accounts.includes(options.businessAccountId)) {
    refuse(`The access token may manage WABA ${accounts.join(', ')}, not ${options.businessAccountId}: assign the account to the system user, or check --waba-id.`);
  }
  return token;
}

function describeToken(token: TokenInfo, output: CommandOutput): string {
  if (token.expiresAt !== undefined && token.expiresAt > 0) {
    output.err(`Warning: this token expires ${new Date(token.expiresAt * 1000).toISOString()}; the pipeline stops sending then. Use a system user's token that never expires.`);
  }
  const expiry = token.expiresAt === 0 ? 'never expires' : 'expires';
  return `valid ${token.type?.toLowerCase().replace('_', ' ') ?? ''} token of ${token.application ?? `app ${token.appId}`}, ${expiry}; ${token.scopes.join(', ')}`;
}

/**
 * The secret's new document: Meta's two values, the verify token it holds (the construct generated
 * one; Meta's webhook configuration may already use it), and what else it carries.
 */
function updatedSecret(current: string | undefined, appSecret: string, accessToken: string): { document: Record<string, unknown>; verifyToken: string; notes: string[] } {
  let existing: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(current ?? '{}');
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) existing = parsed as Record<string, unknown>;
  } catch {
    // Not a JSON document: replaced by one.
  }
  const usable = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '' && value !== WHATSAPP_SECRET_PLACEHOLDER;
  const notes: string[] = [];
  const oldAppSecret = existing[WHATSAPP_SECRET_FIELDS.appSecret];
  const rotated = usable(oldAppSecret) && oldAppSecret !== appSecret;
  if (rotated) notes.push(`the replaced app secret kept as ${WHATSAPP_SECRET_OPTIONAL_FIELDS.previousAppSecret}: remove it in an hour`);
  const kept = existing[WHATSAPP_SECRET_FIELDS.verifyToken];
  const verifyToken = usable(kept) ? kept : randomBytes(36).toString('base64url');
  notes.push(usable(kept) ? 'verify token kept' : 'a new verify token');
  const document = {
    ...existing,
    [WHATSAPP_SECRET_FIELDS.appSecret]: appSecret,
    [WHATSAPP_SECRET_FIELDS.verifyToken]: verifyToken,
    [WHATSAPP_SECRET_FIELDS.accessToken]: accessToken,
    ...(rotated ? { [WHATSAPP_SECRET_OPTIONAL_FIELDS.previousAppSecret]: oldAppSecret } : {}),
  };
  return { document, verifyToken, notes };
}

export const metaSetupCommand: CliCommand = {
  summary: 'connect a Meta app: check the token and number, write the secret, subscribe the webhook',
  run: (argv, output) => metaSetup(argv, output),
};
