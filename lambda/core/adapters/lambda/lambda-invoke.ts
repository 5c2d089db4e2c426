import { partition } from '@aws-sdk/core/client';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { DEFAULT_MAX_ATTEMPTS, isServerError, isThrottlingError, isTransientError, StandardRetryStrategy } from '@smithy/core/retry';
import { Hash } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentityProvider, RetryErrorType, StandardRetryToken } from '@smithy/types';

/** What a synchronous `Invoke` sends: the fields of the API's request the pipeline uses. */
export interface LambdaInvokeInput {
  /** Name, ARN or qualified ARN (alias or version) of the function. */
  readonly FunctionName: string;
  /** Default `RequestResponse`. */
  readonly InvocationType?: 'RequestResponse' | 'Event' | 'DryRun';
  readonly Payload?: Uint8Array;
}

/** The part of an `Invoke` result the pipeline reads (the API's names). */
export interface LambdaInvocationResult {
  readonly StatusCode?: number;
  /** Set when the function raised: `Unhandled` (the payload then carries `errorType` and `errorMessage`). */
  readonly FunctionError?: string;
  readonly Payload?: Uint8Array;
}

/** One invocation; injected so tests replay recorded response shapes. */
export type LambdaInvoke = (input: LambdaInvokeInput, options: { readonly abortSignal: AbortSignal }) => Promise<LambdaInvocationResult>;

/** An error answer of the Lambda API, named as the AWS SDK names it (`TooManyRequestsException`, …). */
export class LambdaApiError extends Error {
  readonly $metadata: { readonly httpStatusCode: number };

  constructor(name: string, message: string, httpStatusCode: number) {
    super(message);
    this.name = name;
    this.$metadata = { httpStatusCode };
  }
}

export interface LambdaInvokeOptions {
  /** Default: `AWS_REGION`. */
  readonly region?: string;
  /** Base URL of the Lambda API (a local server). Default: `AWS_ENDPOINT_URL_LAMBDA`, else `AWS_ENDPOINT_URL`, else the region's endpoint. */
  readonly endpoint?: string;
  /** Default: the AWS SDK's default chain (in the Lambda bundles: the role's credentials in the environment). */
  readonly credentials?: AwsCredentialIdentityProvider;
  /** Attempts in all, as the SDK's `maxAttempts`. Default: `AWS_MAX_ATTEMPTS`, else 3. */
  readonly maxAttempts?: number;
  readonly env?: NodeJS.ProcessEnv;
}

const API_VERSION_PATH = '/2015-03-31/functions';

/**
 * `Invoke` as one SigV4-signed `POST` sent with the runtime's `fetch`, in place of the whole Lambda
 * client (about 74 KiB of every bundle that calls it, for its one command). It keeps what the
 * client does for this call: the SDK's credentials, the region's endpoint (FIPS and dual-stack
 * variants, `AWS_ENDPOINT_URL_LAMBDA`), the SDK's standard retry strategy with its error
 * classification (throttling, 5xx and connection failures are retried with backoff), error names
 * from `x-amzn-ErrorType`, and the function's error in `X-Amz-Function-Error`. With tracing on,
 * Powertools' tracer records the call as a subsegment of the request's host (it traces `fetch`).
 */
export function lambdaInvoke(options: LambdaInvokeOptions = {}): LambdaInvoke {
  const env = options.env ?? process.env;
  const region = options.region ?? env.AWS_REGION;
  // As the SDK client does, a missing region fails the call, not the composition (which tests and tools build without one).
  if (!region) return () => Promise.reject(new Error('Invoking a Lambda function needs a region: set AWS_REGION'));
  const endpoint = new URL(options.endpoint ?? env.AWS_ENDPOINT_URL_LAMBDA ?? env.AWS_ENDPOINT_URL ?? lambdaEndpoint(region, env));
  const signer = new SignatureV4({ service: 'lambda', region, credentials: options.credentials ?? defaultProvider(), sha256: Hash.bind(null, 'sha256'), uriEscapePath: true });
  const retries = new StandardRetryStrategy(options.maxAttempts ?? (Number(env.AWS_MAX_ATTEMPTS) || DEFAULT_MAX_ATTEMPTS));

  async function attempt(input: LambdaInvokeInput, abortSignal: AbortSignal): Promise<LambdaInvocationResult> {
    const path = `${endpoint.pathname.replace(/\/$/, '')}${API_VERSION_PATH}/${encodePathSegment(input.FunctionName)}/invocations`;
    const body = input.Payload ?? new Uint8Array();
    const request = await signer.sign({
      method: 'POST',
      protocol: endpoint.protocol,
      hostname: endpoint.hostname,
      port: endpoint.port === '' ? undefined : Number(endpoint.port),
      path,
      query: {},
      headers: { host: endpoint.host, 'content-type': 'application/octet-stream', 'x-amz-invocation-type': input.InvocationType ?? 'RequestResponse' },
      body,
    });
    const response = await fetch(`${endpoint.origin}${path}`, { method: 'POST', headers: request.headers, body, signal: abortSignal });
    const payload = new Uint8Array(await response.arrayBuffer());
    if (response.status >= 300) throw apiError(response, payload);
    const functionError = response.headers.get('x-amz-function-error');
    return { StatusCode: response.status, Payload: payload, ...(functionError !== null && { FunctionError: functionError }) };
  }

  return async (input, { abortSignal }) => {
    let token: StandardRetryToken = await retries.acquireInitialRetryToken('lambda');
    for (;;) {
      try {
        const result = await attempt(input, abortSignal);
        retries.recordSuccess(token);
        return result;
      } catch (error) {
        if (abortSignal.aborted) throw error;
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

/** The Lambda endpoint of a region, as the client's endpoint rules build it. */
export function lambdaEndpoint(region: string, env: NodeJS.ProcessEnv): string {
  const { dnsSuffix, dualStackDnsSuffix } = partition(region);
  const fips = env.AWS_USE_FIPS_ENDPOINT === 'true';
  const dualStack = env.AWS_USE_DUALSTACK_ENDPOINT === 'true';
  return `https://lambda${fips ? '-fips' : ''}.${region}.${dualStack ? dualStackDnsSuffix : dnsSuffix}`;
}

/** As the SDK encodes a path label: `encodeURIComponent` plus the characters it leaves alone. */
function encodePathSegment(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The error the SDK would raise for this answer: named by `x-amzn-ErrorType` (or the body's `code`/`__type`), with the body's message. */
function apiError(response: Response, payload: Uint8Array): LambdaApiError {
  let body: { code?: unknown; __type?: unknown; message?: unknown; Message?: unknown } = {};
  try {
    body = JSON.parse(new TextDecoder().decode(payload)) as typeof body;
  } catch {
    // Not JSON (a proxy's page): the status names it.
  }
  const code = response.headers.get('x-amzn-errortype') ?? (typeof body.code === 'string' ? body.code : undefined) ?? (typeof body.__type === 'string' ? body.__type : undefined);
  // `Name:http://internal.amazon.com/…` in the header, `namespace#Name` in a body.
  const name = code?.split(':')[0].split('#').pop() || 'UnknownError';
  const message = typeof body.message === 'string' ? body.message : typeof body.Message === 'string' ? body.Message : `Lambda answered HTTP ${response.status}`;
  return new LambdaApiError(name, message, response.status);
}

/** The SDK retry middleware's classification of a failed attempt. */
function retryErrorType(failure: Error): RetryErrorType {
  const error = failure as Parameters<typeof isTransientError>[0];
  if (isThrottlingError(error)) return 'THROTTLING';
  if (isTransientError(error)) return 'TRANSIENT';
  if (isServerError(error)) return 'SERVER_ERROR';
  return 'CLIENT_ERROR';
}
