import { FakeGraphApi } from '../../local/fake-whatsapp/fake-graph-api';

const TOKEN = 'fake-token';
let api: FakeGraphApi;

beforeAll(async () => {
  api = await FakeGraphApi.start({ accessToken: TOKEN });
});
afterEach(() => api.reset());
afterAll(() => api.close());

const validText = {
  messaging_product: 'whatsapp',
  recipient_type: 'individual',
  to: '5511987654321',
  type: 'text',
  text: { body: 'Olá!', preview_url: false },
};

function post(body: unknown, token = TOKEN, businessPhoneNumberId = '106540352242922'): Promise<Response> {
  return fetch(`${api.baseUrl}/${businessPhoneNumberId}/messages`, {
    method: 'POST',
    headers: { 'authorization': `Bearer ${token}`, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function graphError(response: Response): Promise<{ message: string; type: string; code: number; error_subcode?: number; fbtrace_id: string }> {
  const body = (await response.json()) as { error: { message: string; type: string; code: number; fbtrace_id: string } };
  expect(body.error).toEqual(
    expect.objectContaining({ message: expect.any(String), type: 'OAuthException', code: expect.any(Number), fbtrace_id: expect.any(String) }),
  );
  return body.error;
}

it('listens on 127.0.0.1 under the API version path', () => {
  expect(api.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v23\.0$/);
});

it('accepts a text message, answers like Meta and records it', async () => {
  const response = await post({ ...validText, context: { message_id: 'wamid.question' } });

  expect(response.status).toBe(200);
  const body = (await response.json()) as { messaging_product: string; contacts: unknown[]; messages: Array<{ id: string }> };
  expect(body.messaging_product).toBe('whatsapp');
  expect(body.contacts).toEqual([{ input: '5511987654321', wa_id: '5511987654321' }]);
  expect(api.sent()).toEqual([
    {
      businessPhoneNumberId: '106540352242922',
      recipient: '5511987654321',
      recipientKind: 'phone',
      text: 'Olá!',
      previewUrl: false,
      contextMessageId: 'wamid.question',
      providerMessageId: body.messages[0].id,
      receivedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    },
  ]);
  expect(body.messages[0].id).toMatch(/^wamid\.[\w-]{20,}$/);
});

it('accepts a business-scoped user id in `recipient`', async () => {
  const { to: _phone, ...withoutTo } = validText;
  const response = await post({ ...withoutTo, recipient: 'US.13491208655302741918' });

  expect(response.status).toBe(200);
  expect(api.sent()[0]).toMatchObject({ recipient: 'US.13491208655302741918', recipientKind: 'user_id' });
});

it('rejects a missing or wrong bearer token with code 190 and records nothing', async () => {
  const response = await post(validText, 'someone-else');

  expect(response.status).toBe(401);
  expect((await graphError(response)).code).toBe(190);
  expect(api.sent()).toHaveLength(0);
});

it('accepts the new token after a rotation and rejects the old one', async () => {
  api.setAccessToken('rotated');
  try {
    expect((await post(validText, TOKEN)).status).toBe(401);
    expect((await post(validText, 'rotated')).status).toBe(200);
  } finally {
    api.setAccessToken(TOKEN);
  }
});

it.each([
  { problem: 'a body that is not JSON', body: '{"messaging_product":', code: 100 },
  { problem: 'a wrong messaging_product', body: { ...validText, messaging_product: 'sms' }, code: 100 },
  { problem: 'both to and recipient', body: { ...validText, recipient: 'US.13491208655302741918' }, code: 100 },
  { problem: 'neither to nor recipient', body: { ...validText, to: undefined }, code: 100 },
  { problem: 'a phone that is not a number', body: { ...validText, to: 'maria' }, code: 100 },
  { problem: 'an empty text body', body: { ...validText, text: { body: '' } }, code: 100 },
  { problem: 'a text body over 4096 characters', body: { ...validText, text: { body: 'x'.repeat(4097) } }, code: 100 },
  { problem: 'a non-boolean preview_url', body: { ...validText, text: { body: 'Olá', preview_url: 'no' } }, code: 100 },
  { problem: 'a context without message_id', body: { ...validText, context: {} }, code: 100 },
  { problem: 'an unsupported message type', body: { ...validText, type: 'sticker' }, code: 131051 },
])('rejects $problem with HTTP 400 and Meta error code $code', async ({ body, code }) => {
  const response = await post(body);

  expect(response.status).toBe(400);
  expect((await graphError(response)).code).toBe(code);
  expect(api.sent()).toHaveLength(0);
});

it('fails the next sends as told, then recovers', async () => {
  api.failNext(2, { httpStatus: 400, code: 131047, message: '(#131047) Re-engagement message', subcode: 2494010, details: 'Outside the window' });

  const first = await post(validText);
  const second = await post(validText);
  const third = await post(validText);

  expect([first.status, second.status, third.status]).toEqual([400, 400, 200]);
  expect(await graphError(first)).toMatchObject({ code: 131047, error_subcode: 2494010, message: '(#131047) Re-engagement message' });
  expect(api.sent()).toHaveLength(1);
});

it('records a delayed send when it arrives and answers later', async () => {
  api.delayNext(1, 200);

  const pending = post(validText);
  await api.waitForSent(1);
  expect(api.sent()).toHaveLength(1);

  const response = await pending;
  expect(response.status).toBe(200);
});

it('closing while a delayed answer waits cancels it: nothing of the server outlives close()', async () => {
  const own = await FakeGraphApi.start({ accessToken: TOKEN });
  own.delayNext(1, 60_000);
  const activeTimers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
  const timersBefore = activeTimers();
  const pending = fetch(`${own.baseUrl}/106540352242922/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(validText),
  });
  await own.waitForSent(1);
  expect(activeTimers()).toBe(timersBefore + 1);

  await own.close();

  await expect(pending).rejects.toThrow();
  expect(activeTimers()).toBe(timersBefore);
});

it('accepts then drops the connection without an answer', async () => {
  api.acceptThenDropConnection(1);

  await expect(post(validText)).rejects.toThrow();
  expect(api.sent()).toHaveLength(1);
  expect((await post(validText)).status).toBe(200);
});

it('replays a raw answer, recording the message only when the answer is a success', async () => {
  api.answerNext(1, { httpStatus: 503, body: 'Service Unavailable', contentType: 'text/plain' });
  api.answerNext(1, { httpStatus: 200, body: 'not json' });

  const unavailable = await post(validText);
  const garbled = await post(validText);

  expect([unavailable.status, await unavailable.text()]).toEqual([503, 'Service Unavailable']);
  expect([garbled.status, await garbled.text()]).toEqual([200, 'not json']);
  expect(api.sent()).toHaveLength(1);
});

it('does not let failure injection hit read receipts', async () => {
  api.failNext(1, { httpStatus: 500, code: 131000 });

  const receipt = await post({ messaging_product: 'whatsapp', status: 'read', message_id: 'wamid.question' });
  const text = await post(validText);

  expect(receipt.status).toBe(200);
  expect(await receipt.json()).toEqual({ success: true });
  expect(text.status).toBe(500);
  expect(api.readReceipts()).toEqual([expect.objectContaining({ messageId: 'wamid.question', typingIndicator: false })]);
});

it('counts every request and forgets everything on reset', async () => {
  api.failNext(5, { httpStatus: 500, code: 131000 });
  await post(validText, 'wrong');
  expect(api.requestCount).toBe(1);

  api.reset();

  expect(api.requestCount).toBe(0);
  expect((await post(validText)).status).toBe(200);
});

it('gives up waiting for messages that never come', async () => {
  await expect(api.waitForSent(1, 20)).rejects.toThrow('0 of 1 messages');
});

it('answers an unknown route with a Graph error', async () => {
  const response = await fetch(`${api.baseUrl}/106540352242922/stickers`, { method: 'POST', body: '{}' });

  expect(response.status).toBe(400);
  expect((await graphError(response)).code).toBe(100);
});

it('tells a listener of each accepted text as it is recorded, until it stops listening', async () => {
  const heard: string[] = [];
  const stop = api.onSent((message) => heard.push(message.text));
  await post({ messaging_product: 'whatsapp', status: 'read', message_id: 'wamid.question' });
  api.failNext(1, { httpStatus: 500, code: 131000 });
  await post({ ...validText, text: { body: 'refused' } });
  await post({ ...validText, text: { body: 'first' } });
  stop();
  await post({ ...validText, text: { body: 'after' } });
  expect(heard).toEqual(['first']);
  expect(api.sent()).toHaveLength(2);
});
