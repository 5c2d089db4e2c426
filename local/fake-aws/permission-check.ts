import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

/** A signed request as a local stand-in for an AWS service received it. */
export interface ReceivedAwsRequest {
  /** The service's signing name (`secretsmanager`, `social-messaging`). */
  readonly service: string;
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/**
 * Whether IAM would let the caller make the request: the refusal's message (AWS's "User: … is not
 * authorized to perform: …"), or `undefined` when it is allowed. The local stand-ins answer a
 * refusal as the service does, with `AccessDeniedException`. Without a check they allow everything,
 * as DynamoDB Local and the SQS emulator do.
 */
export type AwsPermissionCheck = (request: ReceivedAwsRequest) => Promise<string | undefined>;

/**
 * What a REST stand-in (Lambda, Bedrock Runtime) answers before serving a request, as the service
 * would: an unsigned request as `UnrecognizedClientException`, one `permissions` refuses as
 * `AccessDeniedException`, both HTTP 403; `undefined` when it may be served.
 */
export async function restRefusal(
  service: string,
  request: IncomingMessage,
  body: string,
  permissions: AwsPermissionCheck | undefined,
): Promise<{ readonly type: string; readonly message: string } | undefined> {
  if (!request.headers.authorization?.startsWith('AWS4-HMAC-SHA256 ')) return { type: 'UnrecognizedClientException', message: 'The request was not signed with AWS credentials' };
  const refusal = await permissions?.({ service, method: request.method ?? 'POST', path: request.url ?? '/', headers: request.headers, body });
  return refusal === undefined ? undefined : { type: 'AccessDeniedException', message: refusal };
}
