import type { IncomingHttpHeaders } from 'node:http';

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
