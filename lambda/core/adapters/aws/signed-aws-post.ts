import { partition } from '@aws-sdk/core/client';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { DEFAULT_MAX_ATTEMPTS, isServerError, isThrottlingError, isTransientError, StandardRetryStrategy } from '@smithy/core/retry';
import { Hash } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';
import type { RetryErrorType, StandardRetryToken } from '@smithy/types';
import { PipelineError } from '../../domain/errors';
import { type AwsCredentials, credentialProvider } from './aws-identity';
import type { RequestTimeouts } from './request-timeouts';

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
  /** Whether the signer escapes the path once more, as every service but S3 expects. Default true. */
  readonly uriEscapePath?: boolean;
  /** The code and message of an error answer that is not JSON (S3's REST-XML `<Error>`). Default: none, the status names the error. */
  readonly errorOfBody?: (text: string) => { readonly code?: string; readonly message?: string };
}

export interface AwsCallOptions {
  /** Default: `AWS_REGION`. */
  readonly region?: string;
  /** Base URL of the API (a local server). Default: the service's endpoint variable, else `AWS_ENDPOINT_URL`, else the region's endpoint. */
  readonly endpoint?: string;
  /** Default: the AWS SDK's default chain (in the Lambda bundles: the role's credentials in the environment). */
  readonly credentials?: AwsCredentials;
  /** Attempts in all, as the SDK's `maxAttempts`. Default: `AWS_MAX_ATTEMPTS`, else 3. */
  readonly maxAttempts?: number;
  /** Bounds on each attempt (`maxAttempts` among them) for a caller that cannot wait for the function's timeout. Default: none. */
  readonly timeouts?: RequestTimeouts;
  readonly env?: NodeJS.ProcessEnv;
}

export interface AwsAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly payload: Uint8Array;
  /** Attempts the call took, the first included (as the SDK's `$metadata.attempts`). */
  readonly attempts: number;
}

/** A request to the service: a `POST` with a body, or (REST APIs) any method on a resource path with query parameters. */
export interface AwsRequest {
  /** Default `POST`. */
  readonly method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly query?: Readonly<Record<string, string>>;
  readonly headers: Record<string, string>;
  /** Only with `POST` or `PUT`. */
  readonly body?: Uint8Array;
}

/** A URL that lets its holder make one `GET` without credentials until it expires; `query` is signed with it. */
export type PresignedAwsGet = (path: string, expiresInSeconds: number, query?: Readonly<Record<string, string>>) => Promise<string>;

/** One request to the service: retried, and rejected with an {@link AwsApiError} for an error answer. */
export type SignedAwsPost = (path: string, request: AwsRequest, abortSignal?: AbortSignal) => Promise<AwsAnswer>;

/** An error answer of an AWS API, named as the AWS SDK names it (`TooManyRequestsException`, …). */
export class AwsApiError extends PipelineError {
  override readonly code = 'aws_api_error';
  readonly $metadata: { readonly httpStatusCode: number; readonly attempts?: number };
  /** As the SDK sets it for an error it has no model of: by the status. */
  readonly $fault: 'client' | 'server';

  /** `body`: the error answer's JSON, for a service whose errors carry more than a message (DynamoDB's cancellation reasons). */
  constructor(
    name: string,
    message: string,
    httpStatusCode: number,
    readonly body: Readonly<Record<string, unknown>> = {},
  ) {
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
 * A SigV4-signed `POST` (or REST request of any method) sent with the runtime's `fetch`, in place of a whole SDK client bundled for
 * one command. It keeps what the client does for such a call: the SDK's credentials, the region's
 * endpoint from the SDK's partition data (FIPS and dual-stack variants, endpoint variables), the
 * SDK's standard retry strategy with its error classification (throttling, 5xx and connection
 * failures retried with backoff and the retry quota), and error names from `x-amzn-ErrorType`.
 * With tracing on, Powertools' tracer records `fetch` calls as subsegments of the request's host.
 */
export function signedAwsPost(service: AwsService, options: AwsCallOptions = {}): SignedAwsPost {
  const target = signingTarget(service, options);
  // As an SDK client does, a missing region fails the call, not the composition (which tests and tools build without one).
  if (typeof target === 'string') return () => Promise.reject(new Error(target));
  const { env, endpoint, signer } = target;
  // The SDK prefers the bearer token whenever its variable is set.
  const bearerToken = service.bearerTokenVariable === undefined ? undefined : env[service.bearerTokenVariable];
  const timeouts = options.timeouts;
  const retries = new StandardRetryStrategy(options.maxAttempts ?? timeouts?.maxAttempts ?? (Number(env.AWS_MAX_ATTEMPTS) || DEFAULT_MAX_ATTEMPTS));

  async function attempt(path: string, { method = 'POST', query = {}, headers, body }: AwsRequest, abortSignal?: AbortSignal): Promise<Omit<AwsAnswer, 'attempts'>> {
    const fullPath = pathOn(endpoint, path);
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
    // A timed-out attempt fails as `TimeoutError`, which the retry strategy classifies as transient.
    const bounded = timeouts === undefined ? abortSignal : AbortSignal.any([AbortSignal.timeout(timeouts.requestTimeoutMs), ...(abortSignal === undefined ? [] : [abortSignal])]);
    const response = await fetch(`${endpoint.origin}${fullPath}${searchOf(query)}`, { method, headers: signed, body, signal: bounded });
    const payload = new Uint8Array(await response.arrayBuffer());
    if (response.status >= 300) throw apiError(service, response, payload);
    return { status: response.status, headers: response.headers, payload };
  }

  return async (path, request, abortSignal) => {
    let token: StandardRetryToken = await retries.acquireInitialRetryToken(service.endpointPrefix);
    for (let attempts = 1; ; attempts++) {
      try {
        const answer = await attempt(path, request, abortSignal);
        retries.recordSuccess(token);
        return { ...answer, attempts };
      } catch (error) {
        // As the SDK reports it on every failure, a refused connection's too.
        if (typeof error === 'object' && error !== null) Object.assign(error, { $metadata: { ...(error as { $metadata?: object }).$metadata, attempts } });
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

/**
 * Presigned `GET` URLs of the service (S3 objects): query-string SigV4 over an unsigned payload,
 * valid for `expiresInSeconds` from now, on the same endpoint and credentials as {@link signedAwsPost}.
 */
export function presignedAwsGet(service: AwsService, options: AwsCallOptions = {}): PresignedAwsGet {
  const target = signingTarget(service, options);
  if (typeof target === 'string') return () => Promise.reject(new Error(target));
  const { endpoint, signer } = target;
  return async (path, expiresInSeconds, query = {}) => {
    const fullPath = pathOn(endpoint, path);
    const presigned = await signer.presign(
      {
        method: 'GET',
        protocol: endpoint.protocol,
        hostname: endpoint.hostname,
        port: endpoint.port === '' ? undefined : Number(endpoint.port),
        path: fullPath,
        query: { ...query },
        headers: { host: endpoint.host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
      },
      // The payload hash is signed as UNSIGNED-PAYLOAD but neither sent nor signed as a header: the
      // link's holder sends no such header, and a query parameter of it would not be AWS's form.
      { expiresIn: expiresInSeconds, unhoistableHeaders: PAYLOAD_HASH_HEADER, unsignableHeaders: PAYLOAD_HASH_HEADER },
    );
    return `${endpoint.origin}${fullPath}${searchOf(presigned.query as Record<string, string>)}`;
  };
}

const PAYLOAD_HASH_HEADER = new Set(['x-amz-content-sha256']);

/** Where and as whom the service is called, or why it cannot be (no region). */
function signingTarget(service: AwsService, options: AwsCallOptions): { env: NodeJS.ProcessEnv; endpoint: URL; signer: SignatureV4 } | string {
  const env = options.env ?? process.env;
  const region = options.region ?? env.AWS_REGION;
  if (!region) return `Calling ${service.endpointPrefix} needs a region: set AWS_REGION`;
  const endpoint = new URL(options.endpoint ?? env[service.endpointVariable] ?? env.AWS_ENDPOINT_URL ?? serviceEndpoint(service.endpointPrefix, region, env));
  const signer = new SignatureV4({ service: service.signingName, region, credentials: credentialProvider(options.credentials) ?? defaultProvider(), sha256: Hash.bind(null, 'sha256'), uriEscapePath: service.uriEscapePath ?? true });
  return { env, endpoint, signer };
}

function pathOn(endpoint: URL, path: string): string {
  return `${endpoint.pathname.replace(/\/$/, '')}${path}`;
}

/** `?query` encoded as the signer canonicalises it (RFC 3986), so the signature covers the query as sent. */
function searchOf(query: Readonly<Record<string, string>>): string {
  const search = Object.entries(query).map(([name, value]) => `${encodePathSegment(name)}=${encodePathSegment(value)}`).join('&');
  return search === '' ? '' : `?${search}`;
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

/**
 * The error the SDK would raise for this answer: named by `x-amzn-ErrorType` (or the body's
 * `code`/`__type`, or what the service reads of a body that is not JSON), with the body's message.
 */
function apiError(service: AwsService, response: Response, payload: Uint8Array): AwsApiError {
  let body: { code?: unknown; __type?: unknown; message?: unknown; Message?: unknown } = {};
  const text = new TextDecoder().decode(payload);
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    body = service.errorOfBody?.(text) ?? {};
  }
  const code = response.headers.get('x-amzn-errortype') ?? (typeof body.code === 'string' ? body.code : undefined) ?? (typeof body.__type === 'string' ? body.__type : undefined);
  // `Name:http://internal.amazon.com/…` in the header, `namespace#Name` in a body.
  const name = code?.split(':')[0].split('#').pop() || 'UnknownError';
  const message = typeof body.message === 'string' ? body.message : typeof body.Message === 'string' ? body.Message : `${response.url} answered HTTP ${response.status}`;
  return new AwsApiError(name, message, response.status, body as Record<string, unknown>);
}

/** The SDK retry middleware's classification of a failed attempt. */
function retryErrorType(failure: Error): RetryErrorType {
  const error = failure as Parameters<typeof isTransientError>[0];
  if (isThrottlingError(error)) return 'THROTTLING';
  if (isTransientError(error)) return 'TRANSIENT';
  if (isServerError(error)) return 'SERVER_ERROR';
  return 'CLIENT_ERROR';
}
