import { request as httpRequest } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { FUNCTION_URL_MAX_PAYLOAD_BYTES, startFunctionUrlServer, type FunctionUrlServer } from '../../local/runtime/function-url-server';

let server: FunctionUrlServer;
let events: APIGatewayProxyEventV2[];
let answer: APIGatewayProxyStructuredResultV2 | Error;

beforeAll(async () => {
  server = await startFunctionUrlServer(async (event) => {
    events.push(event);
    if (answer instanceof Error) throw answer;
    return answer;
  });
});
beforeEach(() => {
  events = [];
  answer = { statusCode: 200, body: 'ok' };
});
afterAll(() => server.close());

it('listens on loopback only', () => {
  expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
});

it('builds a payload-format 2.0 event with the raw path and query, joined repeated keys and lower-cased headers', async () => {
  await fetch(`${server.url}webhook/meta?hub.mode=subscribe&tag=a&tag=b%20c&empty=`, { headers: { 'X-Custom-Header': 'Value', 'User-Agent': 'probe/1.0' } });

  const [event] = events;
  expect(event).toMatchObject({
    version: '2.0',
    routeKey: '$default',
    rawPath: '/webhook/meta',
    rawQueryString: 'hub.mode=subscribe&tag=a&tag=b%20c&empty=',
    queryStringParameters: { 'hub.mode': 'subscribe', 'tag': 'a,b c', 'empty': '' },
    isBase64Encoded: false,
    requestContext: {
      accountId: 'anonymous',
      http: { method: 'GET', path: '/webhook/meta', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'probe/1.0' },
      routeKey: '$default',
      stage: '$default',
    },
  });
  expect(event.body).toBeUndefined();
  expect(event.headers['x-custom-header']).toBe('Value');
  expect(event.headers['X-Custom-Header']).toBeUndefined();
  expect(event.headers['x-forwarded-for']).toBe('127.0.0.1');
  expect(event.requestContext.requestId).toMatch(/^[0-9a-f-]{36}$/);
  expect(event.requestContext.time).toMatch(/^\d{2}\/[A-Z][a-z]{2}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000$/);
  expect(Math.abs(event.requestContext.timeEpoch - Date.now())).toBeLessThan(60_000);
});

it('omits queryStringParameters without a query and splits cookies out of the headers', async () => {
  await fetch(server.url, { headers: { cookie: 'a=1; b=2' } });
  expect(events[0].queryStringParameters).toBeUndefined();
  expect(events[0].cookies).toEqual(['a=1', 'b=2']);
  expect(events[0].headers.cookie).toBeUndefined();
});

it('passes a JSON body as the exact text received', async () => {
  const raw = '{"b": 1,\n "a": "olá"}';
  await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8' }, body: raw });
  expect(events[0]).toMatchObject({ body: raw, isBase64Encoded: false });
});

it.each([
  { label: 'application/octet-stream', contentType: 'application/octet-stream' },
  { label: 'application/x-www-form-urlencoded', contentType: 'application/x-www-form-urlencoded' },
  { label: 'no content type', contentType: undefined },
])('base64-encodes a body with $label', async ({ contentType }) => {
  const bytes = Buffer.from([0x00, 0xff, 0x80, 0x0a, 0x61]);
  await rawPost(bytes, contentType);
  expect(events[0].isBase64Encoded).toBe(true);
  expect(Buffer.from(events[0].body!, 'base64')).toEqual(bytes);
});

it('maps the result back: status, headers, cookies and a base64 body', async () => {
  answer = { statusCode: 201, headers: { 'X-Answer': 'yes', 'content-type': 'application/octet-stream' }, cookies: ['s=1; Path=/', 't=2'], body: Buffer.from([1, 2, 3]).toString('base64'), isBase64Encoded: true };
  const response = await fetch(server.url);
  expect(response.status).toBe(201);
  expect(response.headers.get('x-answer')).toBe('yes');
  expect(response.headers.getSetCookie()).toEqual(['s=1; Path=/', 't=2']);
  expect(Buffer.from(await response.arrayBuffer())).toEqual(Buffer.from([1, 2, 3]));
});

it('answers 502 when the function throws, like the real front door', async () => {
  answer = new Error('boom');
  const response = await fetch(server.url);
  expect(response.status).toBe(502);
  expect(await response.text()).not.toContain('boom');
});

it('refuses a request over 6 MB with 413 without invoking the function', async () => {
  const response = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(FUNCTION_URL_MAX_PAYLOAD_BYTES + 1) });
  expect(response.status).toBe(413);
  expect(events).toHaveLength(0);
});

it('refuses a body under 6 MB whose base64 event would exceed the invocation limit', async () => {
  const status = await rawPost(Buffer.alloc(5 * 1024 * 1024, 1), 'application/octet-stream');
  expect(status).toBe(413);
  expect(events).toHaveLength(0);
});

/** fetch always sends a content type for a body; this sends exactly the given headers. */
function rawPost(body: Buffer, contentType: string | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(server.url, { method: 'POST', headers: { 'content-length': body.length, ...(contentType ? { 'content-type': contentType } : {}) } }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode!));
    });
    request.on('error', reject);
    request.end(body);
  });
}
