// An AWS endpoint on 127.0.0.1 that answers every request with one error, in the shape of the
// protocol the request speaks: the query protocol's XML (CloudFormation) or the JSON protocols'
// `__type` (DynamoDB, SQS, Secrets Manager). What the command-line tool reads of a refusal is what
// the SDK makes of these bytes.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AwsErrorAnswer {
  readonly status: number;
  /** The error code AWS names, e.g. `AccessDenied`, `Throttling`, `ExpiredToken`. */
  readonly code: string;
  readonly message: string;
}

export interface FakeAwsError {
  /** For AWS_ENDPOINT_URL (every service) or one service's AWS_ENDPOINT_URL_<SERVICE>. */
  readonly endpoint: string;
  /** How many requests it answered (the SDK retries what it deems retryable). */
  requests(): number;
  stop(): Promise<void>;
}

export async function startFakeAwsError(answer: AwsErrorAnswer): Promise<FakeAwsError> {
  let requests = 0;
  const server = createServer((request, response) => {
    requests += 1;
    request.resume();
    request.on('end', () => {
      const json = request.headers['x-amz-target'] !== undefined;
      response.writeHead(answer.status, {
        'content-type': json ? 'application/x-amz-json-1.0' : 'text/xml',
        'x-amzn-requestid': `fake-${requests}`,
        ...(json ? { 'x-amzn-errortype': answer.code } : {}),
      });
      response.end(
        json
          ? JSON.stringify({ __type: answer.code, message: answer.message })
          : `<ErrorResponse><Error><Type>Sender</Type><Code>${answer.code}</Code><Message>${answer.message}</Message></Error><RequestId>fake-${requests}</RequestId></ErrorResponse>`,
      );
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
