// What the command-line tool says when a command fails: one line that names what happened and
// what to do, and an exit code per kind of failure, so a script can tell "try again later" from
// "fix the setup". The classes follow the AWS SDK's own error names and Node's network codes;
// whether an error is throttling comes from the SDK's retry classification.
import { isThrottlingError } from '@smithy/core/retry';
import { ErasureIncompleteError } from '../lambda/core/application/privacy/customer-data-rights';

/** The exit codes of every command, in the order `--help` and docs/CLI.md list them. */
export const EXIT_CODES = {
  done: 0,
  failed: 1,
  usage: 2,
  unfinished: 3,
  credentials: 4,
  accessDenied: 5,
  notFound: 6,
  region: 7,
  busy: 8,
  unreachable: 9,
} as const;
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** What each exit code means, as `--help` and docs/CLI.md say it. */
export const EXIT_CODE_MEANINGS: Readonly<Record<ExitCode, string>> = {
  0: 'done (for redrive without --apply: the dry run)',
  1: 'failed: Meta refused a check (meta-setup), a scenario failed (eval), or an error the tool does not recognise (--debug prints its stack)',
  2: 'the command line is wrong: an unknown command or option, a missing or malformed value',
  3: 'not finished: records wait for a confirmation (redrive), items remain (backfill-shards), the erasure was not confirmed or must run again (erase-customer)',
  4: 'no AWS credentials were found, or AWS refused them (expired, invalid)',
  5: 'access denied: the identity lacks a permission the command needs',
  6: 'not found: no such stack, table, queue, bucket or secret in that account and Region',
  7: 'no AWS Region is set, or the one given is not an AWS Region',
  8: 'AWS kept throttling the requests, or answered with a server error, after retries: run the command again later',
  9: 'no network: AWS (or the endpoint set in AWS_ENDPOINT_URL_*) could not be reached',
};

/** The exit code table for a command's `--help`. */
export function exitCodesHelp(): string {
  return Object.entries(EXIT_CODE_MEANINGS)
    .map(([code, meaning]) => `  ${code.padStart(2)}  ${meaning}`)
    .join('\n');
}

export interface ExplainedFailure {
  readonly exitCode: ExitCode;
  /** One line: what happened and what to do. */
  readonly message: string;
}

/** Credentials AWS received and refused (expired, unknown, badly signed). */
const REFUSED_CREDENTIALS = new Set([
  'ExpiredToken',
  'ExpiredTokenException',
  'InvalidClientTokenId',
  'InvalidAccessKeyId',
  'UnrecognizedClientException',
  'SignatureDoesNotMatch',
  'InvalidSignatureException',
  'IncompleteSignature',
  'MissingAuthenticationToken',
  'AuthFailure',
  'TokenRefreshRequired',
]);
const ACCESS_DENIED = new Set(['AccessDenied', 'AccessDeniedException', 'UnauthorizedOperation', 'AuthorizationError', 'Forbidden']);
const NOT_FOUND = new Set(['ResourceNotFoundException', 'QueueDoesNotExist', 'AWS.SimpleQueueService.NonExistentQueue', 'NoSuchBucket', 'NotFoundException']);
/** Node's codes for a connection that could not be made or was cut. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE']);
/** The options that name a resource, for "check …" in a not-found message. */
const RESOURCE_OPTIONS = ['--stack', '--pipeline', '--table', '--queue-url', '--dlq-url', '--media-bucket', '--secret'];

interface ErrorFacts {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
  readonly hostname?: string;
  readonly address?: string;
  readonly port?: number;
  readonly $fault?: string;
  readonly $metadata?: { readonly httpStatusCode?: number };
  readonly cause?: unknown;
}

/** `error` as one line that says what happened and what to do, with the exit code of its kind. */
export function explainFailure(error: unknown, argv: readonly string[]): ExplainedFailure {
  const facts = factsOf(error);
  const said = `${facts.name}: ${facts.message}`;
  const explained = (exitCode: ExitCode, message: string): ExplainedFailure => ({ exitCode, message: oneLine(message) });
  if (error instanceof ErasureIncompleteError) return explained(EXIT_CODES.unfinished, `${facts.message} Run the command again once the customer's new messages stop.`);
  if (facts.name === 'CredentialsProviderError' || facts.name === 'TokenProviderError') {
    return facts.message === 'Could not load credentials from any providers'
      ? explained(EXIT_CODES.credentials, 'No AWS credentials were found: sign in (aws sso login, or aws configure) and choose the profile with AWS_PROFILE, or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.')
      : explained(EXIT_CODES.credentials, `The AWS credentials could not be loaded (${facts.message}): check AWS_PROFILE, or sign in again (aws sso login).`);
  }
  if (REFUSED_CREDENTIALS.has(facts.name)) {
    return explained(EXIT_CODES.credentials, `AWS refused these credentials (${said}): they are expired or not valid; sign in again (aws sso login) or check AWS_PROFILE.`);
  }
  if (ACCESS_DENIED.has(facts.name) || (facts.$metadata?.httpStatusCode === 403 && facts.$fault === 'client')) {
    return explained(EXIT_CODES.accessDenied, `AWS denied the request (${said}): give this identity the permission it names (docs/CLI.md lists what each command needs), or use another profile.`);
  }
  if (NOT_FOUND.has(facts.name)) {
    const given = namedResources(argv);
    return explained(EXIT_CODES.notFound, `AWS found nothing by the name given (${said}): check ${given === '' ? 'the names given' : given} and --region${regionOf(argv)}.`);
  }
  if (/^Region is missing|^Invalid region/i.test(facts.message)) {
    return explained(EXIT_CODES.region, `No usable AWS Region (${facts.message}): pass --region <region>, the stack's Region, or set AWS_REGION.`);
  }
  if (isThrottlingError(facts as Parameters<typeof isThrottlingError>[0])) {
    return explained(EXIT_CODES.busy, `AWS kept throttling the requests after retries (${said}): wait a minute and run the command again.`);
  }
  if (facts.$fault === 'server') {
    return explained(EXIT_CODES.busy, `AWS answered with a server error after retries (${said}): run the command again in a few minutes.`);
  }
  const network = networkFacts(facts);
  if (network !== undefined) {
    const host = network.hostname ?? (network.address === undefined ? 'AWS' : `${network.address}${network.port === undefined ? '' : `:${network.port}`}`);
    return explained(
      EXIT_CODES.unreachable,
      `Could not reach ${host} (${network.code}): check the network connection (and any proxy or VPN), the Region, or the endpoint set in AWS_ENDPOINT_URL_*.`,
    );
  }
  return explained(EXIT_CODES.failed, `${said} — an error the tool does not recognise: run the command again with --debug for its stack, and report it if it persists.`);
}

function factsOf(error: unknown): ErrorFacts {
  if (error instanceof Error) return error as Error & ErrorFacts;
  return { name: 'Error', message: String(error) };
}

/** The Node network error of `facts`, or of what it wraps (fetch's TypeError carries it as its cause). */
function networkFacts(facts: ErrorFacts, depth = 0): (ErrorFacts & { readonly code: string }) | undefined {
  if (facts.code !== undefined && NETWORK_CODES.has(facts.code)) return facts as ErrorFacts & { code: string };
  if (facts.name === 'TimeoutError') return { ...facts, code: 'timed out' };
  return facts.cause !== undefined && depth < 5 ? networkFacts(factsOf(facts.cause), depth + 1) : undefined;
}

/** The resource options given on the command line, with their values: `--table 'Nope'`. */
function namedResources(argv: readonly string[]): string {
  const named: string[] = [];
  argv.forEach((argument, index) => {
    const [option, inline] = argument.split(/=(.*)/s, 2);
    if (!RESOURCE_OPTIONS.includes(option)) return;
    const value = inline ?? argv[index + 1];
    named.push(value === undefined ? option : `${option} '${value}'`);
  });
  return named.join(', ');
}

/** ` (us-east-1)`: the Region the command line or the environment gives, when one does. */
function regionOf(argv: readonly string[]): string {
  const index = argv.indexOf('--region');
  const region = (index >= 0 ? argv[index + 1] : undefined) ?? argv.find((argument) => argument.startsWith('--region='))?.slice('--region='.length) ?? process.env.AWS_REGION;
  return region === undefined ? '' : ` (${region})`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
