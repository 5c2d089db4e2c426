/**
 * Bounds on every AWS SDK call of a function whose caller waits: the webhook answers Meta, which
 * retries a 5xx for days but gives up on a request that hangs. Without them the SDK waits on a
 * stalled connection until the function's own timeout (10.3 s measured with DynamoDB frozen).
 */
export interface RequestTimeouts {
  /** Time to open a connection. */
  readonly connectionTimeoutMs: number;
  /** Time without an answer, per attempt, once the request is written. */
  readonly requestTimeoutMs: number;
  /** Attempts per call, the first included (the SDK's retries of throttling and timeouts). */
  readonly maxAttempts: number;
}

/** The client configuration of `timeouts`, for any AWS SDK v3 client (DynamoDB, SQS). */
export function clientConfigOf(timeouts: RequestTimeouts | undefined): {
  maxAttempts?: number;
  requestHandler?: { connectionTimeout: number; requestTimeout: number; throwOnRequestTimeout: boolean };
} {
  if (timeouts === undefined) return {};
  // Without throwOnRequestTimeout the SDK only logs a warning past requestTimeout, and keeps waiting.
  return { maxAttempts: timeouts.maxAttempts, requestHandler: { connectionTimeout: timeouts.connectionTimeoutMs, requestTimeout: timeouts.requestTimeoutMs, throwOnRequestTimeout: true } };
}
