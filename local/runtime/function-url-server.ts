import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** A function behind a Function URL (payload format 2.0). */
export type FunctionUrlHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * Lambda's synchronous invocation payload limit. The Function URL front door refuses a request whose
 * event would exceed it with 413, before the function runs.
 */
export const FUNCTION_URL_MAX_PAYLOAD_BYTES = 6 * 1024 * 1024;

/**
 * Content types a Function URL passes as text; every other body — a missing content type and
 * `application/x-www-form-urlencoded` included — reaches the function base64-encoded with
 * `isBase64Encoded: true` (payload format 2.0 as observed on AWS).
 */
const TEXT_CONTENT_TYPE = /^\s*(text\/[^;\s]+|application\/(json|xml|javascript))\s*(;|$)/i;

/** A function served over HTTP on 127.0.0.1 as its Function URL would serve it. */
export interface FunctionUrlServer {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  close(): Promise<void>;
}

export interface FunctionUrlServerOptions {
  /** Default 0 (a free port). */
  readonly port?: number;
  /** Called when the function throws; the caller still gets the front door's 502. */
  readonly onFunctionError?: (error: unknown) => void;
}

/**
 * Serves a payload-format-2.0 handler on 127.0.0.1 with a Function URL's translation: the raw body
 * (base64 when not textual), lower-cased headers with repeated values joined by commas, cookies
 * split out, `queryStringParameters` with repeated keys joined by commas, the request context, and
 * on the way back status, headers, cookies and a base64 body decoded. A thrown function becomes
 * 502, an oversized request 413 without invoking the function — as the real front door answers.
 */
export async function startFunctionUrlServer(handler: FunctionUrlHandler, options: FunctionUrlServerOptions = {}): Promise<FunctionUrlServer> {
  const server = createServer((request, response) => {
    serve(handler, request, response, options).catch((error: unknown) => {
      options.onFunctionError?.(error);
      if (!response.headersSent) sendFrontDoorError(response, 500, 'Internal Server Error');
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, close: () => closeServer(server) };
}

async function serve(handler: FunctionUrlHandler, request: IncomingMessage, response: ServerResponse, options: FunctionUrlServerOptions): Promise<void> {
  const declaredLength = Number(request.headers['content-length'] ?? 0);
  if (declaredLength > FUNCTION_URL_MAX_PAYLOAD_BYTES) {
    refuseTooLarge(request, response);
    return;
  }
  const body = await readBody(request, FUNCTION_URL_MAX_PAYLOAD_BYTES);
  if (body === undefined) {
    refuseTooLarge(request, response);
    return;
  }
  const event = toEvent(request, body);
  if (Buffer.byteLength(JSON.stringify(event)) > FUNCTION_URL_MAX_PAYLOAD_BYTES) {
    refuseTooLarge(request, response);
    return;
  }

  let result: APIGatewayProxyStructuredResultV2;
  try {
    result = await handler(event);
  } catch (error) {
    options.onFunctionError?.(error);
    sendFrontDoorError(response, 502, 'Internal Server Error');
    return;
  }
  writeResult(response, result);
}

function toEvent(request: IncomingMessage, body: Buffer): APIGatewayProxyEventV2 {
  const target = request.url ?? '/';
  const queryStart = target.indexOf('?');
  const rawPath = queryStart === -1 ? target : target.slice(0, queryStart);
  const rawQueryString = queryStart === -1 ? '' : target.slice(queryStart + 1);
  const port = request.socket.localPort;
  const sourceIp = request.socket.remoteAddress ?? '127.0.0.1';
  const now = new Date();
  const urlId = 'local';

  const headers: Record<string, string> = {};
  let cookies: string[] | undefined;
  for (const [name, values] of Object.entries(request.headersDistinct)) {
    if (values === undefined) continue;
    if (name === 'cookie') {
      cookies = values.flatMap((value) => value.split(';')).map((cookie) => cookie.trim()).filter((cookie) => cookie !== '');
      continue;
    }
    headers[name] = values.join(',');
  }
  Object.assign(headers, {
    'x-forwarded-for': sourceIp,
    'x-forwarded-proto': 'http',
    'x-forwarded-port': String(port),
    'x-amzn-trace-id': `Root=1-${Math.floor(now.getTime() / 1000).toString(16)}-${randomBytes(12).toString('hex')}`,
  });

  const isText = body.length === 0 || TEXT_CONTENT_TYPE.test(headers['content-type'] ?? '');
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString,
    ...(cookies && cookies.length > 0 ? { cookies } : {}),
    headers,
    ...queryParameters(rawQueryString),
    requestContext: {
      accountId: 'anonymous',
      apiId: urlId,
      domainName: headers.host ?? `127.0.0.1:${port}`,
      domainPrefix: urlId,
      http: {
        method: request.method ?? 'GET',
        path: rawPath,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: clfTime(now),
      timeEpoch: now.getTime(),
    },
    ...(body.length > 0 ? { body: isText ? body.toString('utf8') : body.toString('base64') } : {}),
    isBase64Encoded: !isText,
  };
}

/** Function URLs decode each key and value and join a repeated key's values with commas. */
function queryParameters(rawQueryString: string): Pick<APIGatewayProxyEventV2, 'queryStringParameters'> {
  if (rawQueryString === '') return {};
  const joined: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(rawQueryString)) {
    joined[key] = key in joined ? `${joined[key]},${value}` : value;
  }
  return { queryStringParameters: joined };
}

function writeResult(response: ServerResponse, result: APIGatewayProxyStructuredResultV2): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name.toLowerCase()] = String(value);
  if (result.cookies && result.cookies.length > 0) headers['set-cookie'] = result.cookies;
  const body = result.body === undefined ? Buffer.alloc(0) : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8');
  headers['content-length'] = String(body.length);
  response.writeHead(result.statusCode ?? 200, headers);
  response.end(body);
}

/** Reads the body, or returns undefined as soon as it exceeds `limit` bytes. */
async function readBody(request: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function refuseTooLarge(request: IncomingMessage, response: ServerResponse): void {
  // Close the connection rather than draining megabytes the function will never see.
  response.setHeader('connection', 'close');
  sendFrontDoorError(response, 413, `Request must be smaller than ${FUNCTION_URL_MAX_PAYLOAD_BYTES} bytes for the InvokeFunction operation`);
  response.once('finish', () => request.destroy());
}

function sendFrontDoorError(response: ServerResponse, statusCode: number, message: string): void {
  const body = JSON.stringify({ Message: message });
  response.writeHead(statusCode, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'x-amzn-errortype': statusCode === 413 ? 'RequestTooLargeException' : 'ServiceException' });
  response.end(body);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `12/Mar/2020:19:03:58 +0000`, the request context's `time` format. */
function clfTime(date: Date): string {
  const month = MONTHS[date.getUTCMonth()];
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${pad(date.getUTCDate())}/${month}/${date.getUTCFullYear()}:${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`;
}

async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
}
