import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';
import { signMetaPayload } from '../../lambda/core/adapters/whatsapp/webhook-signature';

export const TEST_CREDENTIALS = { appSecret: 'test-app-secret', verifyToken: 'test-verify-token', accessToken: 'test-access-token' } as const;

/** A Function URL (payload v2) event, as Lambda delivers Meta's requests. */
export function functionUrlEvent(method: 'GET' | 'POST' | 'PUT', options: { body?: string; headers?: Record<string, string>; query?: Record<string, string>; base64?: boolean } = {}): APIGatewayProxyEventV2 {
  const query = options.query ?? {};
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: '/',
    rawQueryString: new URLSearchParams(query).toString(),
    queryStringParameters: Object.keys(query).length > 0 ? query : undefined,
    headers: { 'content-type': 'application/json', ...options.headers },
    requestContext: {
      accountId: 'anonymous',
      apiId: 'test',
      domainName: 'test.lambda-url.us-east-1.on.aws',
      domainPrefix: 'test',
      http: { method, path: '/', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'facebookexternalua' },
      requestId: 'test-request',
      routeKey: '$default',
      stage: '$default',
      time: '30/Nov/2026:12:00:00 +0000',
      timeEpoch: 0,
    },
    body: options.body === undefined ? undefined : options.base64 ? Buffer.from(options.body).toString('base64') : options.body,
    isBase64Encoded: options.base64 ?? false,
  };
}

/** A POST signed with the test app secret, as Meta sends it. */
export function signedPost(body: string, options: { base64?: boolean; secret?: string } = {}): APIGatewayProxyEventV2 {
  return functionUrlEvent('POST', { body, base64: options.base64, headers: { 'x-hub-signature-256': signMetaPayload(body, options.secret ?? TEST_CREDENTIALS.appSecret) } });
}

/**
 * An API Gateway REST API proxy event (`WebhookFrontDoor.apiGateway()`), as Lambda delivers Meta's
 * requests through it: headers in the case Meta sent them, and, since the API treats every media
 * type as binary, the body base64-encoded.
 */
export function restApiEvent(method: 'GET' | 'POST' | 'PUT', options: { body?: string; headers?: Record<string, string>; query?: Record<string, string> } = {}): APIGatewayProxyEvent {
  const headers = { 'Content-Type': 'application/json', 'User-Agent': 'facebookexternalua', ...options.headers };
  const query = options.query && Object.keys(options.query).length > 0 ? options.query : null;
  return {
    resource: '/',
    path: '/',
    httpMethod: method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    queryStringParameters: query,
    multiValueQueryStringParameters: query && Object.fromEntries(Object.entries(query).map(([name, value]) => [name, [value]])),
    pathParameters: null,
    stageVariables: null,
    requestContext: { httpMethod: method, path: '/prod/', stage: 'prod', requestId: 'test-request', resourcePath: '/' } as APIGatewayProxyEvent['requestContext'],
    body: options.body === undefined ? null : Buffer.from(options.body).toString('base64'),
    isBase64Encoded: options.body !== undefined,
  };
}

/** A REST API POST signed with the test app secret, its signature header spelled as Meta sends it. */
export function signedRestApiPost(body: string): APIGatewayProxyEvent {
  return restApiEvent('POST', { body, headers: { 'X-Hub-Signature-256': signMetaPayload(body, TEST_CREDENTIALS.appSecret) } });
}

/** A one-message text notification from `customerId`, shaped like Meta's, sent now unless told otherwise. */
export function textNotification(customerId: string, messageId: string, text: string, timestamp = Math.floor(Date.now() / 1000)): string {
  return messageNotification(customerId, { id: messageId, timestamp: String(timestamp), type: 'text', text: { body: text } });
}

/**
 * What a person of the business wrote to `customerId` from the WhatsApp Business app on this
 * (coexistence) number, as Meta notifies it: the `smb_message_echoes` field, `from` the business's
 * display number `to` the customer.
 */
export function businessEchoNotification(customerId: string, messageId: string, text: string, timestamp = Math.floor(Date.now() / 1000)): string {
  const echo = { from: '15550783881', to: customerId, id: messageId, timestamp: String(timestamp), type: 'text', text: { body: text } };
  const value = { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550783881', phone_number_id: '106540352242922' }, message_echoes: [echo] };
  return JSON.stringify({ object: 'whatsapp_business_account', entry: [{ id: '102290129340398', changes: [{ field: 'smb_message_echoes', value }] }] });
}

/** A one-message notification from `customerId` of any type: `message` is Meta's `messages[]` element without `from`. */
export function messageNotification(customerId: string, message: Record<string, unknown>): string {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: '106540352242922' },
              contacts: [{ profile: { name: 'Test Customer' }, wa_id: customerId }],
              messages: [{ from: customerId, ...message }],
            },
          },
        ],
      },
    ],
  });
}
