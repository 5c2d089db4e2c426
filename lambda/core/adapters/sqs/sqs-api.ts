/**
 * The turn queue's API as the functions call it: the four SQS operations they use, sent as SQS's
 * documented JSON protocol (`X-Amz-Target: AmazonSQS.<Operation>`) on {@link signedAwsPost}
 * instead of the SDK's SQS client, which carried the SDK's schema and serde machinery into every
 * function that dispatches a turn (docs/PERFORMANCE.md). It keeps the SDK's credentials, endpoint,
 * retry strategy and error names. It does not check the MD5 digests SQS returns, as the SDK's
 * client does: the bodies travel over TLS, and a dispatch message is one the sender wrote.
 */
import type {
  ChangeMessageVisibilityCommandInput,
  DeleteMessageCommandInput,
  ReceiveMessageCommandInput,
  ReceiveMessageCommandOutput,
  SendMessageCommandInput,
  SendMessageCommandOutput,
} from '@aws-sdk/client-sqs';
import { type AwsCallOptions, signedAwsPost, type SignedAwsPost } from '../aws/signed-aws-post';

/** Each operation the functions call, with the SDK's input and output shapes. */
export interface SqsOperations {
  SendMessage: [SendMessageCommandInput, Omit<SendMessageCommandOutput, '$metadata'>];
  ReceiveMessage: [ReceiveMessageCommandInput, Omit<ReceiveMessageCommandOutput, '$metadata'>];
  DeleteMessage: [DeleteMessageCommandInput, object];
  ChangeMessageVisibility: [ChangeMessageVisibilityCommandInput, object];
}

export type SqsOperation = keyof SqsOperations;

/** The queues' API: what the dispatcher and the dead-letter queue call. */
export interface SqsApi {
  call<Operation extends SqsOperation>(operation: Operation, input: SqsOperations[Operation][0]): Promise<SqsOperations[Operation][1]>;
}

const SQS = { endpointPrefix: 'sqs', signingName: 'sqs', endpointVariable: 'AWS_ENDPOINT_URL_SQS' };

/** SQS over SigV4-signed JSON requests; `options` as for any {@link signedAwsPost} service. */
export class SignedSqs implements SqsApi {
  private readonly post: SignedAwsPost;

  constructor(options: AwsCallOptions = {}) {
    this.post = signedAwsPost(SQS, options);
  }

  async call<Operation extends SqsOperation>(operation: Operation, input: SqsOperations[Operation][0]): Promise<SqsOperations[Operation][1]> {
    const headers = { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `AmazonSQS.${operation}` };
    const answer = await this.post('/', { headers, body: new TextEncoder().encode(JSON.stringify(input)) });
    const text = new TextDecoder().decode(answer.payload);
    return (text === '' ? {} : JSON.parse(text)) as SqsOperations[Operation][1];
  }
}
