import { randomUUID } from 'node:crypto';
import { Agent, createServer, type IncomingHttpHeaders, type IncomingMessage, request as forward, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReceivedAwsRequest } from '../../../local/fake-aws/permission-check';
import { readBody, readBodyBytes } from '../../../local/fake-aws/request-body';
import { escapeXml } from '../../../lambda/core/adapters/aws/xml-reader';
import { parsePrincipalAccessKeyId, type PrincipalIdentity } from '../../../local/runtime/function-principals';
import { SUITE_TOKEN_PREFIX } from './function-principals';
import { agentServiceCall } from './agent-iam-requests';
import { endUserMessagingCall, type EvaluatedService, s3Call } from './iam-requests';
import { knowledgeBaseCall } from './knowledge-base-requests';
import type { PermissionEvaluator } from './permission-evaluator';

/**
 * Who signed a request: a pipeline principal (with the suite its session token names), or anybody
 * else. A presigned URL (`url`) carries the signature in its query instead of the headers.
 */
export function signer(headers: IncomingHttpHeaders, url = '/'): { readonly identity: PrincipalIdentity; readonly suite?: string } | undefined {
  const query = new URL(url, 'http://127.0.0.1').searchParams;
  const accessKeyId = /Credential=([^/,\s]+)\//.exec(String(headers.authorization ?? ''))?.[1] ?? query.get('X-Amz-Credential')?.split('/')[0];
  const identity = accessKeyId === undefined ? undefined : parsePrincipalAccessKeyId(accessKeyId);
  if (identity === undefined) return undefined;
  const token = headers['x-amz-security-token'] ?? query.get('X-Amz-Security-Token') ?? undefined;
  return { identity, suite: typeof token === 'string' && token.startsWith(SUITE_TOKEN_PREFIX) ? token.slice(SUITE_TOKEN_PREFIX.length) : undefined };
}

/** The operation of a JSON-protocol request (`X-Amz-Target: DynamoDB_20120810.GetItem` → `GetItem`). */
function operationOf(headers: IncomingHttpHeaders): string {
  return String(headers['x-amz-target'] ?? '').split('.').pop() ?? '';
}

export interface EnforcingProxy {
  /** What the SDK is pointed at instead of DynamoDB Local and the SQS emulator (which serves S3 too). */
  readonly dynamoDbEndpoint: string;
  readonly sqsEndpoint: string;
  readonly s3Endpoint: string;
  /** Where the local stand-ins of the other services ask for a decision (`POST` a {@link ReceivedAwsRequest}). */
  readonly checkEndpoint: string;
  close(): Promise<void>;
}

/**
 * Servers on 127.0.0.1 in front of DynamoDB Local and the SQS emulator (its SQS and its S3). A
 * request signed by a pipeline principal — an S3 link by the principal that presigned it — is
 * checked against that principal's role: denied, it is answered as AWS answers (the JSON
 * protocols' HTTP 400 `AccessDeniedException`, S3's HTTP 403 `AccessDenied`, AWS's message) and
 * never reaches the emulator; allowed, and any request of anybody else (test code, inspectors,
 * fixtures), it is forwarded as it came. A fourth server answers the other services' stand-ins
 * with the same evaluator.
 */
export async function startEnforcingProxy(upstreams: { readonly dynamoDb: string; readonly sqs: string }, evaluator: PermissionEvaluator): Promise<EnforcingProxy> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const proxy = (service: EvaluatedService, upstream: string) =>
    createServer((incoming, response) => {
      void (async () => {
        const body = await readBodyBytes(incoming);
        const caller = signer(incoming.headers, incoming.url);
        const refusal = caller && (await evaluator.check({ ...caller, service, ...callOf(service, incoming, body) }));
        if (refusal !== undefined) {
          accessDenied(response, service, refusal);
          return;
        }
        const target = new URL(upstream);
        // The body is sent whole: the emulator need not ask for it.
        const { expect: _continue, ...headers } = incoming.headers;
        const outgoing = forward({ host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers, agent }, (answer) => {
          const overrides = service === 's3' && answer.statusCode === 200 ? s3ResponseOverrides(incoming.url ?? '/') : {};
          response.writeHead(answer.statusCode ?? 502, { ...answer.headers, ...overrides });
          answer.pipe(response);
        });
        outgoing.on('error', () => response.destroy());
        outgoing.end(body);
      })().catch((error: unknown) => {
        // Answered as the service answers an error, so the SDK names it instead of failing to parse a plain body.
        if (response.headersSent) response.destroy();
        else awsError(response, service, { status: 400, code: 'PermissionCheckUnavailable', message: `The permission check failed: ${error instanceof Error ? error.message : String(error)}` });
      });
    });
  const checks = createServer((incoming, response) => {
    void (async () => {
      const received = JSON.parse(await readBody(incoming)) as ReceivedAwsRequest;
      const caller = signer(received.headers, received.path);
      const call = standInCall(received);
      const refusal = caller && (await evaluator.check({ ...caller, service: received.service as EvaluatedService, ...call }));
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ refusal }));
    })().catch((error: unknown) => {
      response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(String(error));
    });
  });
  const servers = [proxy('dynamodb', upstreams.dynamoDb), proxy('sqs', upstreams.sqs), proxy('s3', upstreams.sqs), checks];
  const [dynamoDbEndpoint, sqsEndpoint, s3Endpoint, checkEndpoint] = await Promise.all(servers.map(listen));
  return {
    dynamoDbEndpoint,
    sqsEndpoint,
    s3Endpoint,
    checkEndpoint,
    close: async () => {
      agent.destroy();
      await Promise.all(servers.map((server) => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve)))));
    },
  };
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });
}

/** The operation and input of a request a local stand-in received: the REST services' route, else the JSON protocols' target, with the body. */
function standInCall(received: ReceivedAwsRequest): { readonly operation: string; readonly body: Record<string, unknown> } {
  const body = parseJson(received.body);
  if (received.service === 'social-messaging') return endUserMessagingCall(received.path, body);
  // Bedrock's signing name serves the model's runtime and the knowledge base's (Agent Runtime): told apart by the route.
  const retrieve = received.service === 'bedrock' ? knowledgeBaseCall(received.path) : undefined;
  if (retrieve?.operation === 'Retrieve') return retrieve;
  if (received.service === 'lambda' || received.service === 'bedrock') return agentServiceCall(received.service, received.path, body);
  return { operation: operationOf(received.headers), body };
}

/** The operation and input of a request: the JSON protocols' target and body, S3's REST route. */
function callOf(service: EvaluatedService, incoming: IncomingMessage, body: Buffer): { readonly operation: string; readonly body: Record<string, unknown> } {
  if (service === 's3') {
    return s3Call(incoming.method ?? 'GET', incoming.url ?? '/', incoming.method === 'POST' ? body.toString('utf8') : '');
  }
  return { operation: operationOf(incoming.headers), body: parseJson(body.toString('utf8')) };
}

/**
 * What S3 does with a signed GET's `response-content-disposition` and `response-content-type` (a
 * presigned link's): it answers with them in place of the object's own headers. The SQS emulator's
 * S3 does not, so its stand-in here does, and the links are tried as AWS would answer them.
 */
function s3ResponseOverrides(url: string): Record<string, string> {
  const query = new URL(url, 'http://127.0.0.1').searchParams;
  const overrides: Record<string, string> = {};
  const disposition = query.get('response-content-disposition');
  const type = query.get('response-content-type');
  if (disposition !== null) overrides['content-disposition'] = disposition;
  if (type !== null) overrides['content-type'] = type;
  return overrides;
}

function parseJson(body: string): Record<string, unknown> {
  try {
    return (JSON.parse(body || '{}') as Record<string, unknown>) ?? {};
  } catch {
    return {};
  }
}

/** AWS's answer to a refused request: S3's XML error, or the JSON protocols' exception. */
function accessDenied(response: ServerResponse, service: EvaluatedService, message: string): void {
  awsError(response, service, { status: service === 's3' ? 403 : 400, code: 'AccessDenied', message });
}

/** An error as the service words one: S3's XML, or the JSON protocols' exception (SQS's query code beside it). */
function awsError(response: ServerResponse, service: EvaluatedService, error: { readonly status: number; readonly code: string; readonly message: string }): void {
  if (service === 's3') {
    const requestId = randomUUID();
    response.writeHead(error.status, { 'content-type': 'application/xml', 'x-amz-request-id': requestId });
    response.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${error.code}</Code><Message>${escapeXml(error.message)}</Message><RequestId>${requestId}</RequestId></Error>`);
    return;
  }
  const exception = error.code === 'AccessDenied' ? 'AccessDeniedException' : error.code;
  response.writeHead(error.status, {
    'content-type': 'application/x-amz-json-1.0',
    'x-amzn-requestid': randomUUID(),
    ...(service === 'sqs' ? { 'x-amzn-query-error': `${error.code};Sender` } : {}),
  });
  response.end(JSON.stringify({ __type: `com.amazon.coral.service#${exception}`, message: error.message }));
}
