import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GraphApiWhatsAppSender, type GraphApiSenderOptions } from '../../../../lambda/core/adapters/whatsapp/graph-api-sender';
import { StaticCredentialsProvider } from '../../../../lambda/core/adapters/secrets/static-credentials-provider';
import { WHATSAPP_TEXT_LIMIT } from '../../../../lambda/core/adapters/whatsapp/whatsapp-text';
import type { WhatsAppCredentials, WhatsAppCredentialsProvider } from '../../../../lambda/core/ports/credentials';
import { MediaStoreError } from '../../../../lambda/core/ports/media-store';
import type { OutboundMediaMessage, OutboundTextMessage } from '../../../../lambda/core/ports/whatsapp-sender';
import { mediaMessagePayload } from '../../../../lambda/core/adapters/whatsapp/outbound-messages';
import { FakeGraphApi } from '../../../../local/fake-whatsapp/fake-graph-api';
import { PACE_REFUSALS } from '../../../../local/fake-whatsapp/fake-pace-refusals';
import { PACING_BACKOFF_MS } from '../../../../lambda/core/adapters/whatsapp/paced-parts';
import { sendError } from '../../../support/whatsapp-send-error';
import { fixture, fixtureText } from '../../../support/fixtures';
import { BUSINESS_TEMPLATES, bodyValues, OFFER_TEMPLATE } from '../../../support/message-templates';
import { fillTemplateParameters } from '../../../../lambda/core/domain/template-parameters';
import { templateFromMeta } from '../../../../lambda/core/domain/whatsapp-template';
import { templateMessagePayload } from '../../../../lambda/core/adapters/whatsapp/outbound-messages';

const BUSINESS_NUMBER_ID = '106540352242922';
const toPhone: OutboundTextMessage = {
  businessPhoneNumberId: BUSINESS_NUMBER_ID,
  customerId: '5511987654321',
  customerIdKind: 'phone',
  text: 'Olá! Podemos ajudar com o seu exame.',
};

let api: FakeGraphApi;
const ORIGINAL_TOKEN = 'token-in-the-secret';

beforeAll(async () => {
  api = await FakeGraphApi.start({ accessToken: ORIGINAL_TOKEN });
});
afterEach(() => {
  api.reset();
  api.setAccessToken(ORIGINAL_TOKEN);
});
afterAll(() => api.close());

function credentials(accessToken = ORIGINAL_TOKEN): WhatsAppCredentials {
  return { appSecret: 'app-secret', verifyToken: 'verify-token', accessToken };
}

function sender(options: Partial<GraphApiSenderOptions> = {}): GraphApiWhatsAppSender {
  return new GraphApiWhatsAppSender({
    baseUrl: api.baseUrl,
    credentials: new StaticCredentialsProvider(credentials()),
    ...options,
  });
}

describe('sending a text', () => {
  it('posts a text message to a phone with `to` and returns the id Meta answered', async () => {
    const result = await sender().sendText(toPhone);

    const [accepted] = api.sent();
    expect(api.sent()).toHaveLength(1);
    expect(accepted).toMatchObject({
      businessPhoneNumberId: BUSINESS_NUMBER_ID,
      recipient: '5511987654321',
      recipientKind: 'phone',
      text: toPhone.text,
      previewUrl: false,
    });
    expect(accepted.contextMessageId).toBeUndefined();
    expect(result).toEqual({ providerMessageId: accepted.providerMessageId, providerMessageIds: [accepted.providerMessageId] });
    expect(result.providerMessageId).toMatch(/^wamid\./);
  });

  it('addresses a business-scoped user id with `recipient` instead of `to`', async () => {
    await sender().sendText({ ...toPhone, customerId: 'BR.13491208655302741918', customerIdKind: 'user_id' });

    expect(api.sent()[0]).toMatchObject({ recipient: 'BR.13491208655302741918', recipientKind: 'user_id' });
  });

  it('reads the message id from a recorded Meta success answer', async () => {
    api.answerNext(1, { httpStatus: 200, body: fixtureText('graph-api', 'send-text-success') });

    const result = await sender().sendText(toPhone);

    expect(result.providerMessageId).toBe('wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBI3N0EyQkJBQ0JCRjM5QjA0REIA');
  });

  it('marks a customer message as read with a typing indicator', async () => {
    await sender().markAsRead({ businessPhoneNumberId: BUSINESS_NUMBER_ID, messageId: 'wamid.customer-question', showTypingIndicator: true });

    expect(api.readReceipts()).toEqual([
      expect.objectContaining({ businessPhoneNumberId: BUSINESS_NUMBER_ID, messageId: 'wamid.customer-question', typingIndicator: true }),
    ]);
    expect(api.sent()).toHaveLength(0);
  });
});

describe('Meta error answers', () => {
  it.each([
    { fixtureName: 'error-131047-reengagement', httpStatus: 400, code: 131047, category: 'recipient', retryable: false },
    { fixtureName: 'error-131026-undeliverable', httpStatus: 400, code: 131026, category: 'recipient', retryable: false },
    { fixtureName: 'error-130429-rate-limit', httpStatus: 400, code: 130429, category: 'rate_limit', retryable: true },
    { fixtureName: 'error-131000-something-went-wrong', httpStatus: 500, code: 131000, category: 'provider_unavailable', retryable: true },
  ])('maps the recorded $code answer to $category (retryable: $retryable)', async ({ fixtureName, httpStatus, code, category, retryable }) => {
    // Every attempt gets the recorded answer: a pace refusal (130429) is tried again after the backoff.
    api.answerNext(PACING_BACKOFF_MS.length + 1, { httpStatus, body: fixtureText('graph-api', fixtureName) });
    const recorded = fixture<{ error: { fbtrace_id: string } }>('graph-api', fixtureName);

    const error = await sendError(sender({ sleep: async () => undefined }).sendText(toPhone));

    expect(error).toMatchObject({ metaCode: code, httpStatus, category, retryable, outcomeUnknown: false, partsDelivered: 0 });
    expect(error.fbtraceId).toBe(recorded.error.fbtrace_id);
    expect(error.message).not.toContain(toPhone.text);
  });

  it("sends again after Meta's backoff when Meta refuses the pace (131056): delivered once, a second later", async () => {
    const waits: number[] = [];
    api.paceRefusals.refuse(toPhone.customerId, 'pairRate');

    const result = await sender({ sleep: async (ms) => void waits.push(ms) }).sendText(toPhone);

    expect(waits).toEqual([PACING_BACKOFF_MS[0]]);
    expect(api.sent().map((message) => message.providerMessageId)).toEqual([result.providerMessageId]);
  });

  it('a split reply refused for its pace after its first part: the part WhatsApp accepted is not sent again', async () => {
    const waits: number[] = [];
    api.delayNext(1, 0);
    api.failNext(1, PACE_REFUSALS.pairRate);
    const text = `${'a'.repeat(WHATSAPP_TEXT_LIMIT - 10)}\n\n${'b'.repeat(100)}`;

    const result = await sender({ sleep: async (ms) => void waits.push(ms) }).sendText({ ...toPhone, text });

    expect(waits).toEqual([PACING_BACKOFF_MS[0]]);
    expect(api.sent().map((message) => message.text[0])).toEqual(['a', 'b']);
    expect(result.providerMessageIds).toEqual(api.sent().map((message) => message.providerMessageId));
  });

  it.each([
    ['pairRate', 131056],
    ['throughput', 130429],
  ] as const)('leaves a send still refused for its pace (%s) after the backoff to the queue: retryable, with the parts delivered', async (refusal, metaCode) => {
    const waits: number[] = [];
    api.paceRefusals.refuse(toPhone.customerId, refusal, PACING_BACKOFF_MS.length + 1);

    const error = await sendError(sender({ sleep: async (ms) => void waits.push(ms) }).sendText(toPhone));

    expect(error).toMatchObject({ metaCode, category: 'rate_limit', retryable: true, outcomeUnknown: false, partsDelivered: 0 });
    expect(waits).toEqual(PACING_BACKOFF_MS);
    expect(api.sent()).toEqual([]);
  });

  it("never waits on a refusal that is not about the pace (Meta's overload, 131016): the queue retries it", async () => {
    const waits: number[] = [];
    api.failNext(1, { httpStatus: 503, code: 131016, message: '(#131016) Service unavailable' });

    const error = await sendError(sender({ sleep: async (ms) => void waits.push(ms) }).sendText(toPhone));

    expect(error).toMatchObject({ metaCode: 131016, retryable: true });
    expect(waits).toEqual([]);
  });

  it('treats a 5xx without a Graph error body as retryable', async () => {
    api.answerNext(1, { httpStatus: 502, body: '<html>Bad Gateway</html>', contentType: 'text/html' });

    const error = await sendError(sender().sendText(toPhone));

    expect(error).toMatchObject({ httpStatus: 502, metaCode: undefined, category: 'provider_unavailable', retryable: true, outcomeUnknown: false });
  });

  it('treats an invalid parameter (100) as permanent', async () => {
    const error = await sendError(sender().sendText({ ...toPhone, customerId: 'not-a-phone' }));

    expect(error).toMatchObject({ httpStatus: 400, metaCode: 100, category: 'request', retryable: false });
    expect(api.sent()).toHaveLength(0);
  });
});

describe('a rejected access token (190)', () => {
  it('is an authentication failure, retryable so the reply survives until an operator rotates the token', async () => {
    api.setAccessToken('a-token-the-secret-does-not-have-yet');

    const error = await sendError(sender().sendText(toPhone));

    expect(error).toMatchObject({ httpStatus: 401, metaCode: 190, category: 'authentication', retryable: true });
    expect(api.requestCount).toBe(1);
  });

  it('maps the recorded expired-token answer with its subcode', async () => {
    api.answerNext(1, { httpStatus: 401, body: fixtureText('graph-api', 'error-190-token-expired') });

    const error = await sendError(sender().sendText(toPhone));

    expect(error).toMatchObject({ metaCode: 190, subcode: 463, category: 'authentication', retryable: true });
  });

  it('re-reads the secret once and resends when the token was rotated', async () => {
    api.setAccessToken('rotated-token');
    const reads: Array<boolean | undefined> = [];
    const rotating: WhatsAppCredentialsProvider = {
      async get(options) {
        reads.push(options?.forceRefresh);
        return credentials(options?.forceRefresh ? 'rotated-token' : ORIGINAL_TOKEN);
      },
    };

    await sender({ credentials: rotating }).sendText(toPhone);

    expect(reads).toEqual([undefined, true]);
    expect(api.requestCount).toBe(2);
    expect(api.sent()).toHaveLength(1);
  });
});

describe('unknown outcomes', () => {
  it('reports a timeout as retryable with an unknown outcome (Meta may have accepted it)', async () => {
    api.delayNext(1, 1_000);

    const error = await sendError(sender({ requestTimeoutMs: 50 }).sendText(toPhone));

    expect(error).toMatchObject({ category: 'transport', retryable: true, outcomeUnknown: true });
    expect(api.sent()).toHaveLength(1);
  });

  it('reports a connection dropped after the request was written as an unknown outcome', async () => {
    api.acceptThenDropConnection(1);

    const error = await sendError(sender().sendText(toPhone));

    expect(error).toMatchObject({ category: 'transport', retryable: true, outcomeUnknown: true });
    expect(api.sent()).toHaveLength(1);
  });

  it('reports a success answer without a readable body as an unknown outcome', async () => {
    api.answerNext(1, { httpStatus: 200, body: '{"messaging_product":"whatsapp","messages":[' });

    const error = await sendError(sender().sendText(toPhone));

    expect(error).toMatchObject({ category: 'transport', retryable: true, outcomeUnknown: true, httpStatus: 200 });
  });

  it('knows a refused connection never delivered anything', async () => {
    const closed = await FakeGraphApi.start();
    const baseUrl = closed.baseUrl;
    await closed.close();

    const error = await sendError(sender({ baseUrl }).sendText(toPhone));

    expect(error).toMatchObject({ category: 'transport', retryable: true, outcomeUnknown: false });
  });
});

describe('a reply longer than one WhatsApp message', () => {
  const sentence = 'Nosso laboratório realiza o exame em até cinco dias úteis após a coleta. ';
  const longText = sentence.repeat(Math.ceil((2.5 * WHATSAPP_TEXT_LIMIT) / sentence.length)).trim();

  it('is delivered as several messages in order', async () => {
    const result = await sender().sendText({ ...toPhone, text: longText });

    const sent = api.sent();
    expect(sent).toHaveLength(3);
    expect(sent.map((message) => message.text).join(' ')).toBe(longText);
    expect(sent.every((message) => message.text.length <= WHATSAPP_TEXT_LIMIT)).toBe(true);
    expect(result.providerMessageIds).toEqual(sent.map((message) => message.providerMessageId));
    expect(result.providerMessageId).toBe(sent[0].providerMessageId);
  });

  it('reports how many parts were delivered when a later part fails', async () => {
    api.delayNext(1, 0);
    api.failNext(1, { httpStatus: 400, code: 131047, message: '(#131047) Re-engagement message' });

    const error = await sendError(sender().sendText({ ...toPhone, text: longText }));

    expect(error).toMatchObject({ metaCode: 131047, partsDelivered: 1 });
    expect(api.sent()).toHaveLength(1);
  });

  it('is capped at the configured number of messages, the last one marked as truncated', async () => {
    await sender({ maxMessagesPerReply: 2 }).sendText({ ...toPhone, text: longText });

    const sent = api.sent();
    expect(sent).toHaveLength(2);
    expect(sent[1].text.endsWith('[…]')).toBe(true);
    expect(sent[1].text.length).toBeLessThanOrEqual(WHATSAPP_TEXT_LIMIT);
  });
});

describe('guards on what reaches the URL', () => {
  it('refuses a business phone number id that is not a Meta id, without any request', async () => {
    const error = await sendError(sender().sendText({ ...toPhone, businessPhoneNumberId: '../me/accounts' }));

    expect(error).toMatchObject({ category: 'request', retryable: false, outcomeUnknown: false });
    expect(api.requestCount).toBe(0);
  });

  it.each(['http://graph.facebook.com/v23.0', 'ftp://graph.facebook.com', 'http://127.0.0.1.example.com/v23.0'])(
    'refuses the base URL %s: the access token never travels in clear text',
    (baseUrl) => {
      expect(() => sender({ baseUrl })).toThrow('must start with https://');
    },
  );

  it('follows no redirect: the message and the token never reach where it points, and nothing was sent', async () => {
    const redirecting = createServer((request, response) => response.writeHead(307, { location: `${api.baseUrl}${request.url}` }).end());
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    try {
      const error = await sendError(sender({ baseUrl: `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}` }).sendText(toPhone));
      expect(error).toMatchObject({ category: 'request', retryable: false, outcomeUnknown: false, partsDelivered: 0 });
      expect(api.requestCount).toBe(0);
    } finally {
      await new Promise((resolve) => redirecting.close(resolve));
    }
  });
});

describe('sending a template', () => {
  const template = { businessPhoneNumberId: BUSINESS_NUMBER_ID, customerId: toPhone.customerId, customerIdKind: 'phone' as const, templateName: 'retomar_conversa', languageCode: 'pt_BR' };
  beforeEach(() => api.setTemplates(BUSINESS_TEMPLATES));

  it('sends the template with its body values and returns the id Meta answered', async () => {
    const result = await sender().sendTemplate({ ...template, parameters: bodyValues(['Ana', 'o exame']) });

    const [accepted] = api.sent();
    expect(accepted).toMatchObject({ template: { name: 'retomar_conversa', language: 'pt_BR', parameters: [{ type: 'text', text: 'Ana' }, { type: 'text', text: 'o exame' }] } });
    expect(result).toEqual({ providerMessageId: accepted.providerMessageId, providerMessageIds: [accepted.providerMessageId] });
  });

  it('names the values of a template with named parameters', async () => {
    await sender().sendTemplate({ ...template, templateName: 'aviso_atendimento', parameters: bodyValues(['Ana'], ['cliente']) });
    expect(api.sent()[0].text).toBe('Novo atendimento aguardando: Ana. Abra o console para responder.');
  });

  it('sends every component a template takes: the header image, the body, a URL suffix and a coupon code', async () => {
    api.setTemplates([OFFER_TEMPLATE]);
    const offer = templateFromMeta(OFFER_TEMPLATE, '2026-03-10T12:00:00.000000Z')!;
    const filled = fillTemplateParameters(offer, { body: ['Ana'], header: 'https://loja.example/banner.jpg', buttons: [{ index: 0, value: 'verao' }, { index: 1, value: 'VERAO25' }] });
    if (!('filled' in filled)) throw new Error(filled.problem);

    await sender().sendTemplate({ ...template, templateName: offer.name, parameters: filled.filled });

    expect(templateMessagePayload({ ...template, templateName: offer.name, parameters: filled.filled })).toMatchObject({
      template: {
        components: [
          { type: 'header', parameters: [{ type: 'image', image: { link: 'https://loja.example/banner.jpg' } }] },
          { type: 'body', parameters: [{ type: 'text', text: 'Ana' }] },
          { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'verao' }] },
          { type: 'button', sub_type: 'copy_code', index: '1', parameters: [{ type: 'coupon_code', coupon_code: 'VERAO25' }] },
        ],
      },
    });
    expect(api.sent()).toEqual([expect.objectContaining({ text: 'Olá Ana, sua oferta chegou!', template: expect.objectContaining({ header: { type: 'image', link: 'https://loja.example/banner.jpg' } }) })]);
  });

  it("reports Meta's template refusals as permanent request errors", async () => {
    const unknown = await sendError(sender().sendTemplate({ ...template, templateName: 'nao_existe', parameters: bodyValues([]) }));
    expect(unknown).toMatchObject({ category: 'request', retryable: false, metaCode: 132001, outcomeUnknown: false });
    const wrongCount = await sendError(sender().sendTemplate({ ...template, parameters: bodyValues(['Ana']) }));
    expect(wrongCount).toMatchObject({ category: 'request', retryable: false, metaCode: 132000 });
  });
});

describe('sending an attachment', () => {
  const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 250]);
  const objects = new Map([['media/pseudonym/op-1', PNG]]);
  const bucket = { get: async (objectKey: string) => objects.get(objectKey) ?? Promise.reject(new MediaStoreError('NoSuchKey', false)) };
  const image: OutboundMediaMessage = { businessPhoneNumberId: BUSINESS_NUMBER_ID, customerId: toPhone.customerId, customerIdKind: 'phone', kind: 'image', objectKey: 'media/pseudonym/op-1', mimeType: 'image/png', callbackData: 'ref-1' };

  it('uploads the object as multipart form data (messaging_product, type, file), then sends a message naming the upload', async () => {
    const result = await sender({ media: bucket }).sendMedia(image);

    const [upload] = api.uploads();
    expect(upload).toMatchObject({ businessPhoneNumberId: BUSINESS_NUMBER_ID, mimeType: 'image/png' });
    expect(Buffer.from(upload.bytes).equals(Buffer.from(PNG))).toBe(true);
    const [accepted] = api.sent();
    expect(accepted).toMatchObject({ recipient: toPhone.customerId, media: { kind: 'image', mediaId: upload.mediaId }, callbackData: 'ref-1' });
    expect(result).toEqual({ providerMessageId: accepted.providerMessageId, providerMessageIds: [accepted.providerMessageId] });
  });

  it('sends a document with its file name and caption, as Meta documents the document object', () => {
    expect(mediaMessagePayload({ ...image, kind: 'document', mimeType: 'application/pdf', fileName: 'receita.pdf', caption: 'Sua receita' }, '1013859600285441')).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: toPhone.customerId,
      type: 'document',
      document: { id: '1013859600285441', caption: 'Sua receita', filename: 'receita.pdf' },
      biz_opaque_callback_data: 'ref-1',
    });
    expect(mediaMessagePayload({ ...image, fileName: 'foto.png' }, '42')).toMatchObject({ type: 'image', image: { id: '42' } });
  });

  it('reports a refused upload as Meta answered it, with nothing sent', async () => {
    const refused = await sendError(sender({ media: bucket, credentials: new StaticCredentialsProvider(credentials('revoked')) }).sendMedia(image));
    expect(refused).toMatchObject({ category: 'authentication', metaCode: 190, outcomeUnknown: false, partsDelivered: 0 });
    const wrongType = await sendError(sender({ media: bucket }).sendMedia({ ...image, mimeType: 'image/gif' }));
    expect(wrongType).toMatchObject({ category: 'request', retryable: false, metaCode: 100 });
    expect(api.sent()).toHaveLength(0);
  });

  it("maps a refusal of the media message like a text's (a closed window is permanent)", async () => {
    api.failNext(1, { httpStatus: 400, code: 131047, message: '(#131047) Re-engagement message' });
    expect(await sendError(sender({ media: bucket }).sendMedia(image))).toMatchObject({ category: 'recipient', retryable: false, metaCode: 131047 });
  });

  it('refuses without a request when the object cannot be read, or there is no bucket', async () => {
    expect(await sendError(sender({ media: bucket }).sendMedia({ ...image, objectKey: 'media/pseudonym/gone' }))).toMatchObject({ category: 'transport', retryable: false, outcomeUnknown: false });
    expect(await sendError(sender().sendMedia(image))).toMatchObject({ category: 'request', retryable: false });
    expect(api.uploads()).toHaveLength(0);
  });
});
