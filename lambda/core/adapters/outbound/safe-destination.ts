import { PipelineError } from '../../domain/errors';

/**
 * Where a credential may travel (docs/PERMISSIONS.md#where-credentials-go): one rule for every
 * request that carries Meta's access token or app secret, or fetches a file a service named — the
 * Graph API sender, media download and template sync, Transcribe's transcript, and the
 * `meta-setup` command. https only, to the hosts the rule lists; a redirect is never followed (its
 * `Location` could name any host). Plain http to this machine's loopback is allowed for the local
 * fakes, never inside Lambda, where loopback is the Lambda runtime API.
 */
export interface DestinationRule {
  /** What the destination is, for the error message (`the Graph API`, `a media download`…). */
  readonly purpose: string;
  /** Hosts allowed exactly (lower case). */
  readonly hosts: readonly string[];
  /** Hosts allowed by their ending (`.amazonaws.com`). */
  readonly hostSuffixes?: readonly string[];
}

/** Meta's Graph API, where every Cloud API call goes. */
export const META_GRAPH_HOSTS: readonly string[] = ['graph.facebook.com'];
/** Where the Graph API's media metadata points the download (`url`, Meta's "Retrieve media URL"). */
export const META_MEDIA_HOSTS: readonly string[] = ['lookaside.fbsbx.com'];
/** AWS's own endpoints, where a service's presigned file (Transcribe's transcript) lives. */
export const AWS_HOST_SUFFIXES: readonly string[] = ['.amazonaws.com', '.amazonaws.com.cn'];

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** A destination the rule refuses: nothing was sent there. Never worth a retry. */
export class UnsafeDestinationError extends PipelineError {
  override readonly name = 'UnsafeDestinationError';
  override readonly code = 'unsafe_destination';
  override readonly retryable = false;
}

/** The hosts of `rule` and the host of a root URL a deployment configured (`whatsAppApiBaseUrl`), which it chose to trust. */
export function withConfiguredHost(rule: DestinationRule, configuredUrl: string): DestinationRule {
  const host = hostOf(configuredUrl);
  return host === undefined || rule.hosts.includes(host) ? rule : { ...rule, hosts: [...rule.hosts, host] };
}

/** `url` parsed, when `rule` lets a credential go there; otherwise throws {@link UnsafeDestinationError} saying why. */
export function safeDestination(url: string | URL, rule: DestinationRule, env: NodeJS.ProcessEnv = process.env): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UnsafeDestinationError(`${rule.purpose}: not a URL`);
  }
  const host = parsed.hostname.toLowerCase();
  if (LOOPBACK_HOSTS.has(host) && (parsed.protocol === 'http:' || parsed.protocol === 'https:')) {
    if (env.AWS_LAMBDA_RUNTIME_API !== undefined) throw new UnsafeDestinationError(`${rule.purpose}: loopback inside Lambda is the runtime API, never a destination`);
    return parsed;
  }
  if (parsed.protocol !== 'https:') throw new UnsafeDestinationError(`${rule.purpose}: only https (plain http only to this machine's loopback, outside Lambda)`);
  if (parsed.username !== '' || parsed.password !== '') throw new UnsafeDestinationError(`${rule.purpose}: a URL with credentials in it`);
  const allowed = rule.hosts.includes(host) || (rule.hostSuffixes ?? []).some((suffix) => host.endsWith(suffix));
  if (!allowed) throw new UnsafeDestinationError(`${rule.purpose}: ${host} is not one of ${[...rule.hosts, ...(rule.hostSuffixes ?? []).map((suffix) => `*${suffix}`)].join(', ')}`);
  return parsed;
}

/**
 * `fetch` of a destination `rule` allows, never following a redirect: an answer 3xx is refused
 * (the request went only to the allowed host; where it points is not asked).
 */
export async function fetchSafely(url: string | URL, rule: DestinationRule, init: RequestInit = {}, env: NodeJS.ProcessEnv = process.env): Promise<Response> {
  const response = await fetch(safeDestination(url, rule, env), { ...init, redirect: 'manual' });
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    throw new UnsafeDestinationError(`${rule.purpose}: answered a redirect (HTTP ${response.status}), which is not followed`);
  }
  return response;
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}
