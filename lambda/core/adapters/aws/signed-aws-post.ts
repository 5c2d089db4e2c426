import { partition } from '@aws-sdk/core/client';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { DEFAULT_MAX_ATTEMPTS, isServerError, isThrottlingError, isTransientError, StandardRetryStrategy } from '@smithy/core/retry';
import { Hash } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentityProvider, RetryErrorType, StandardRetryToken } from '@smithy/types';
import { PipelineError } from '../../domain/errors';

/** An AWS API called without its SDK client. */
export interface AwsService {
  /** First label of the regional endpoint (`lambda`, `bedrock-runtime`). */
  readonly endpointPrefix: string;
  /** The SigV4 signing name (`lambda`, `bedrock`). */
  readonly signingName: string;
  /** The SDK's service-specific endpoint variable (`AWS_ENDPOINT_URL_LAMBDA`). */
  readonly endpointVariable: string;
  /** A bearer token the SDK client prefers to SigV4 when it is set (`AWS_BEARER_TOKEN_BEDROCK`). */
  readonly bearerTokenVariable?: string;
}

export interface AwsCallOptions {
  /** Default: `AWS_REGION`. */
  readonly region?: string;
  /** Base URL of the API (a local server). Default: the service's endpoint variable, else `AWS_ENDPOINT_URL`, else the region's endpoint. */
  readonly endpoint?: string;
  /** Default: the AWS SDK's default chain (in the Lambda bundles: the role's credentials in the environment). */
  readonly credentials?: AwsCredentialIdentityProvider;
  /** Attempts in all, as the SDK's `maxAttempts`. Default: `AWS_MAX_ATTEMPTS`, else 3. */
  readonly maxAttempts?: number;
  readonly env?: NodeJS.ProcessEnv;
}

export interface AwsAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly payload: Uint8Array;
}

/** A request to the service: a `POST` with a body, or (REST-JSON read operations) a `GET` with query parameters. */
export interface AwsRequest {
  /** Default `POST`. */
  readonly method?: 'GET' | 'POST';
  readonly query?: Readonly<Record<string, string>>;
  readonly headers: Record<string, string>;
  /** Only with `POST`. */
  readonly body?: Uint8Array;
}

/** One request to the service: retried, and rejected with an {@link AwsApiError} for an error answer. */
export type SignedAwsPost = (path: string, request: AwsRequest, abortSignal?: AbortSignal) => Promise<AwsAnswer>;

/** An error answer of an AWS API, named as the AWS SDK names it (`TooManyRequestsException`, …). */
export class AwsApiError extends PipelineError {
  override readonly code = 'aws_api_error';
  readonly $metadata: { readonly httpStatusCode: number };
  /** As the SDK sets it for an error it has no model of: by the status. */
  readonly $fault: 'client' | 'server';

  constructor(name: string, message: string, httpStatusCode: number) {
    super(message);
    this.name = name;
    this.$metadata = { httpStatusCode };
    this.$fault = httpStatusCode >= 500 ? 'server' : 'client';
  }

  /** As the SDK's retry strategy classifies it: throttling, transient and server errors are retried. */
  override get retryable(): boolean {
    return retryErrorType(this) !== 'CLIENT_ERROR';
  }
}

/**
 * A SigV4-signed `POST` (or REST `GET`) sent with the runtime's `fetch`, in place of a whole SDK client bundled for
 * one command. It keeps what the client does for such a call: the SDK's credentials, the region's
 * endpoint from the SDK's partition data (FIPS and dual-stack variants, endpoint variables), the
 * SDK's standard retry strategy with its error classification (throttling, 5xx and connection
 * failures retried with backoff and the retry quota), and error names from `x-amzn-ErrorType`.
 * With tracing on, Powertools' tracer records `fetch` calls as subsegments of the request's host.
 */
export function signedAwsPost(service: AwsService, options: AwsCallOptions = {}): SignedAwsPost {
  const env = options.env ?? process.env;
  const region = options.region ?? env.AWS_REGION;
  // As an SDK client does, a missing region fails the call, not the composition (which tests and tools build without one).
  if (!region) return () => Promise.reject(new Error(`Calling ${service.endpointPrefix} needs a region: set AWS_REGION`));
  const endpoint = new URL(options.endpoint ?? env[service.endpointVariable] ?? env.AWS_ENDPOINT_URL ?? serviceEndpoint(service.endpointPrefix, region, env));
  // The SDK prefers the bearer token whenever its variable is set.
  const bearerToken = service.bearerTokenVariable === undefined ? undefined : env[service.bearerTokenVariable];
  const signer = new SignatureV4({ service: service.signingName, region, credentials: options.credentials ?? defaultProvider(), sha256: Hash.bind(null, 'sha256'), uriEscapePath: true });
  const retries = new StandardRetryStrategy(options.maxAttempts ?? (Number(env.AWS_MAX_ATTEMPTS) || DEFAULT_MAX_ATTEMPTS));

  async function attempt(path: string, { method = 'POST', query = {}, headers, body }: AwsRequest, abortSignal?: AbortSignal): Promise<AwsAnswer> {
    const fullPath = `${endpoint.pathname.replace(/\/$/, '')}${path}`;
    // Encoded as the signer canonicalises it (RFC 3986), so the signature covers the query as sent.
    const search = Object.entries(query).map(([name, value]) => `${encodePathSegment(name)}=${encodePathSegment(value)}`).join('&');
    const unsigned = { host: endpoint.host, ...headers };
    const signed = bearerToken !== undefined
      ? { ...unsigned, authorization: `Bearer ${bearerToken}` }
      : (
          await signer.sign({
            method,
            protocol: endpoint.protocol,
            hostname: endpoint.hostname,
            port: endpoint.port === '' ? undefined : Number(endpoint.port),
            path: fullPath,
            query: { ...query },
            headers: unsigned,
            body,
          })
        ).headers;
    const response = await fetch(`${endpoint.origin}${fullPath}${search === '' ? '' : `?${search}`}`, { method, headers: signed, body, signal: abortSignal });
    const payload = new Uint8Array(await response.arrayBuffer());
    if (response.status >= 300) throw apiError(response, payload);
    return { status: response.status, headers: response.headers, payload };
  }

  return async (path, request, abortSignal) => {
    let token: StandardRetryToken = await retries.acquireInitialRetryToken(service.endpointPrefix);
    for (;;) {
      try {
        const answer = await attempt(path, request, abortSignal);
        retries.recordSuccess(token);
        return answer;
      } catch (error) {
        if (abortSignal?.aborted) throw error;
        try {
          // Waits the backoff delay, or refuses: not retryable, attempts spent, or the retry quota empty.
          token = await retries.refreshRetryTokenForRetry(token, { errorType: retryErrorType(error as Error) });
        } catch {
          throw error;
        }
      }
    }
  };
}

/** A service's regional endpoint, as the SDK clients' endpoint rules build it. */
export function serviceEndpoint(prefix: string, region: string, env: NodeJS.ProcessEnv): string {
  const { dnsSuffix, dualStackDnsSuffix } = partition(region);
  const fips = env.AWS_USE_FIPS_ENDPOINT === 'true';
  const dualStack = env.AWS_USE_DUALSTACK_ENDPOINT === 'true';
  return `https://${prefix}${fips ? '-fips' : ''}.${region}.${dualStack ? dualStackDnsSuffix : dnsSuffix}`;
}

/** As the SDK encodes a path label: `encodeURIComponent` plus the characters it leaves alone. */
export function encodePathSegment(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The error the SDK would raise for this answer: named by `x-amzn-ErrorType` (or the body's `code`/`__type`), with the body's message. */
function apiError(response: Response, payload: Uint8Array): AwsApiError {
  let body: { code?: unknown; __type?: unknown; message?: unknown; Message?: unknown } = {};
  try {
    body = JSON.parse(new TextDecoder().decode(payload)) as typeof body;
  } catch {
    // Not JSON (a proxy's page): the status names it.
  }
  const code = response.headers.get('x-amzn-errortype') ?? (typeof body.code === 'string' ? body.code : undefined) ?? (typeof body.__type === 'string' ? body.__type : undefined);
  // `Name:http://internal.amazon.com/…` in the header, `namespace#Name` in a body.
  const name = code?.split(':')[0].split('#').pop() || 'UnknownError';
  const message = typeof body.message === 'string' ? body.message : typeof body.Message === 'string' ? body.Message : `${response.url} answered HTTP ${response.status}`;
  return new AwsApiError(name, message, response.status);
}

/** The SDK retry middleware's classification of a failed attempt. */
function retryErrorType(failure: Error): RetryErrorType {
  const error = failure as Parameters<typeof isTransientError>[0];
  if (isThrottlingError(error)) return 'THROTTLING';
  if (isTransientError(error)) return 'TRANSIENT';
  if (isServerError(error)) return 'SERVER_ERROR';
  return 'CLIENT_ERROR';
}
