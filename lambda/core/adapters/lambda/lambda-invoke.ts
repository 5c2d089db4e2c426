import { type AwsCallOptions, encodePathSegment, signedAwsPost } from '../aws/signed-aws-post';

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

const LAMBDA = { endpointPrefix: 'lambda', signingName: 'lambda', endpointVariable: 'AWS_ENDPOINT_URL_LAMBDA' };

/**
 * `Invoke` as one signed `POST /2015-03-31/functions/{name}/invocations` (see signed-aws-post.ts),
 * in place of the whole Lambda client (about 74 KiB of every bundle that calls it, for its one
 * command). The function's error comes back in `X-Amz-Function-Error`, with status 200.
 */
export function lambdaInvoke(options: AwsCallOptions = {}): LambdaInvoke {
  const post = signedAwsPost(LAMBDA, options);
  return async (input, { abortSignal }) => {
    const headers = { 'content-type': 'application/octet-stream', 'x-amz-invocation-type': input.InvocationType ?? 'RequestResponse' };
    const answer = await post(`/2015-03-31/functions/${encodePathSegment(input.FunctionName)}/invocations`, { headers, body: input.Payload ?? new Uint8Array() }, abortSignal);
    const functionError = answer.headers.get('x-amz-function-error');
    return { StatusCode: answer.status, Payload: answer.payload, ...(functionError !== null && { FunctionError: functionError }) };
  };
}
