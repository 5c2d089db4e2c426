import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hash } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';

/** A request as the local AWS API received it. */
export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
}

/** How the local API answers one request; a request with no answer queued is left hanging. */
export type Answer = (request: ReceivedRequest, response: ServerResponse) => void;

export interface LocalAwsApi {
  /** `http://127.0.0.1:{port}`, once the server listens. */
  readonly baseUrl: string;
  /** What arrived during the current test, in order. */
  readonly received: ReceivedRequest[];
  /** The answers for the current test's next requests, taken in order. */
  readonly answers: Answer[];
}

/**
 * An AWS API served on 127.0.0.1 for the adapters that call one with a signed `fetch`: it records
 * every request and answers each with the next queued answer. Started once per file; what it
 * received and the queued answers are cleared before each test.
 */
export function useLocalAwsApi(): LocalAwsApi {
  let server: Server | undefined;
  let baseUrl: string | undefined;
  const received: ReceivedRequest[] = [];
  const answers: Answer[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const entry = { method: request.method!, path: request.url!, headers: request.headers, body: Buffer.concat(chunks) };
        received.push(entry);
        answers.shift()?.(entry, response);
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  beforeEach(() => {
    received.length = 0;
    answers.length = 0;
  });

  return {
    get baseUrl() {
      if (baseUrl === undefined) throw new Error('The local AWS API listens only once the tests run');
      return baseUrl;
    },
    received,
    answers,
  };
}

/** A JSON answer with the request id header AWS APIs send. */
export const jsonAnswer =
  (status: number, body: string, headers: Record<string, string> = {}): Answer =>
  (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json', 'x-amzn-requestid': 'local-request-1', ...headers });
    response.end(body);
  };

/** Recomputes the SigV4 signature of what arrived, as the service does: a request changed after signing fails here. */
export async function expectValidSignature(request: ReceivedRequest, signing: { readonly service: string; readonly region: string; readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string } }): Promise<void> {
  const authorization = String(request.headers.authorization);
  expect(authorization).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${signing.credentials.accessKeyId}/\\d{8}/${signing.region}/${signing.service}/aws4_request, SignedHeaders=[^,]+, `));
  const signedHeaders = /SignedHeaders=([^,]+)/.exec(authorization)![1].split(';');
  const amzDate = String(request.headers['x-amz-date']);
  const signingDate = new Date(`${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`);
  const headers = Object.fromEntries(signedHeaders.map((name) => [name, String(request.headers[name])]));
  const verifier = new SignatureV4({ ...signing, sha256: Hash.bind(null, 'sha256'), uriEscapePath: true });
  const [path, query = ''] = request.path.split('?');
  const expected = await verifier.sign(
    { method: request.method, protocol: 'http:', hostname: '127.0.0.1', path, query: Object.fromEntries(new URLSearchParams(query)), headers, body: request.body },
    { signingDate },
  );
  expect(authorization).toBe(expected.headers.authorization);
}
