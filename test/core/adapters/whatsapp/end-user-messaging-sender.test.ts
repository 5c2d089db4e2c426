// The End User Messaging adapter against a fake of the service over real HTTP (the signed
// SendWhatsAppMessage call pointed at it), with the fake Graph API behind it as Meta: the same
// outcome table as the Graph API adapter, keyed on the service's documented exceptions.
import { AwsApiError } from '../../../../lambda/core/adapters/aws/signed-aws-post';
import { classifyEndUserMessagingError } from '../../../../lambda/core/adapters/whatsapp/end-user-messaging-errors';
import {
  EndUserMessagingWhatsAppSender,
  endUserMessagingPostMedia,
  endUserMessagingSend,
  type PostWhatsAppMessageMediaInput,
  type PostWhatsAppMessageMedia,
  type SendWhatsAppMessage,
} from '../../../../lambda/core/adapters/whatsapp/end-user-messaging-sender';
import { PACING_BACKOFF_MS } from '../../../../lambda/core/adapters/whatsapp/paced-parts';
import { WHATSAPP_TEXT_LIMIT } from '../../../../lambda/core/adapters/whatsapp/whatsapp-text';
import type { OutboundMediaMessage, OutboundTextMessage } from '../../../../lambda/core/ports/whatsapp-sender';
import { createMediaBucket } from '../../../../local/servers/local-resources';
import { FakeEndUserMessaging } from '../../../../local/fake-whatsapp/fake-end-user-messaging';
import { FakeGraphApi } from '../../../../local/fake-whatsapp/fake-graph-api';
import { BUSINESS_TEMPLATES, bodyValues } from '../../../support/message-templates';
import { sendError } from '../../../support/whatsapp-send-error';

const META_PHONE_NUMBER_ID = '106540352242922';
const ORIGINATION_ID = 'phone-number-id-976c72a700aac43eaf573ae050example';
const toPhone: OutboundTextMessage = { businessPhoneNumberId: META_PHONE_NUMBER_ID, customerId: '5511987654321', customerIdKind: 'phone', text: 'Olá! Podemos ajudar.' };

let meta: FakeGraphApi;
let service: FakeEndUserMessaging;
let send: SendWhatsAppMessage;

beforeAll(async () => {
  meta = await FakeGraphApi.start();
  service = await FakeEndUserMessaging.start({ meta, phoneNumbers: new Map([[ORIGINATION_ID, META_PHONE_NUMBER_ID]]) });
  send = endUserMessagingSend({ endpoint: service.endpoint, region: 'us-east-1', credentials: async () => ({ accessKeyId: 'local', secretAccessKey: 'local' }) });
});
afterEach(() => meta.reset());
afterAll(async () => {
  await service.close();
  await meta.close();
});

function sender(phoneNumbers = new Map([[META_PHONE_NUMBER_ID, ORIGINATION_ID]]), senderSend = send): EndUserMessagingWhatsAppSender {
  return new EndUserMessagingWhatsAppSender({ send: senderSend, phoneNumbers, metaApiVersion: 'v20.0' });
}

describe('sending through End User Messaging', () => {
  it('passes the Cloud API message through SendWhatsAppMessage from the linked number and returns its id', async () => {
    const result = await sender().sendText(toPhone);

    const [accepted] = meta.sent();
    expect(meta.sent()).toHaveLength(1);
    expect(accepted).toMatchObject({ businessPhoneNumberId: META_PHONE_NUMBER_ID, recipient: '5511987654321', recipientKind: 'phone', text: toPhone.text });
    expect(result).toEqual({ providerMessageId: accepted.providerMessageId, providerMessageIds: [accepted.providerMessageId] });
  });

  it('addresses a business-scoped user id with `recipient` and sends read receipts', async () => {
    await sender().sendText({ ...toPhone, customerId: 'BR.13491208655302741918', customerIdKind: 'user_id' });
    await sender().markAsRead({ businessPhoneNumberId: META_PHONE_NUMBER_ID, messageId: 'wamid.abc', showTypingIndicator: true });

    expect(meta.sent()[0]).toMatchObject({ recipient: 'BR.13491208655302741918', recipientKind: 'user_id' });
    expect(meta.readReceipts()).toEqual([expect.objectContaining({ businessPhoneNumberId: META_PHONE_NUMBER_ID, messageId: 'wamid.abc', typingIndicator: true })]);
  });

  it('splits a long reply and reports the parts delivered when a later part fails', async () => {
    meta.answerNext(1, { httpStatus: 200, body: JSON.stringify({ messages: [{ id: 'wamid.first' }] }) });
    meta.failNext(1, { httpStatus: 503, code: 131016, message: 'Service overloaded' });

    const failure = await sendError(sender().sendText({ ...toPhone, text: 'a'.repeat(WHATSAPP_TEXT_LIMIT + 10) }));

    expect(failure).toMatchObject({ category: 'provider_unavailable', retryable: true, partsDelivered: 1 });
  });

  it('passes a template send through unchanged, and Meta\'s template refusals keep their code', async () => {
    meta.setTemplates(BUSINESS_TEMPLATES);
    const template = { businessPhoneNumberId: META_PHONE_NUMBER_ID, customerId: toPhone.customerId, customerIdKind: 'phone' as const, templateName: 'retomar_conversa', languageCode: 'pt_BR' };

    const result = await sender().sendTemplate({ ...template, parameters: bodyValues(['Ana', 'o exame']) });
    expect(meta.sent()).toEqual([expect.objectContaining({ providerMessageId: result.providerMessageId, text: expect.stringContaining('Olá Ana') })]);

    const refused = await sendError(sender().sendTemplate({ ...template, parameters: bodyValues(['Ana']) }));
    expect(refused).toMatchObject({ category: 'request', retryable: false, metaCode: 132000 });
  });

  it('refuses a number that is not linked, without any request', async () => {
    const failure = await sendError(sender(new Map()).sendText(toPhone));

    expect(failure).toMatchObject({ category: 'request', retryable: false, outcomeUnknown: false });
    expect(meta.requestCount).toBe(0);
  });
});

describe("Meta's refusals, through the service", () => {
  it.each([
    [{ httpStatus: 400, code: 131047, message: 'Re-engagement message' }, { category: 'recipient', retryable: false, metaCode: 131047, httpStatus: 400 }],
    [{ httpStatus: 400, code: 100, message: 'Invalid parameter' }, { category: 'request', retryable: false, metaCode: 100 }],
    [{ httpStatus: 503, code: 131016, message: 'Service overloaded' }, { category: 'provider_unavailable', retryable: true, httpStatus: 502 }],
  ])('maps %o like the Graph API adapter does', async (failure, expected) => {
    meta.failNext(1, failure);

    const error = await sendError(sender().sendText(toPhone));

    expect(error).toMatchObject({ ...expected, outcomeUnknown: false, partsDelivered: 0 });
    expect(error.message).not.toContain(toPhone.text);
  });

  it("sends again after Meta's backoff when Meta refuses the pace (131056), through the service: delivered once", async () => {
    const waits: number[] = [];
    meta.paceRefusals.refuse(toPhone.customerId, 'pairRate');
    const paced = new EndUserMessagingWhatsAppSender({ send, phoneNumbers: new Map([[META_PHONE_NUMBER_ID, ORIGINATION_ID]]), metaApiVersion: 'v20.0', sleep: async (ms) => void waits.push(ms) });

    const result = await paced.sendText(toPhone);

    expect(waits).toEqual([PACING_BACKOFF_MS[0]]);
    expect(meta.sent().map((message) => message.providerMessageId)).toEqual([result.providerMessageId]);
  });

  it.each([
    ['pairRate', 131056],
    ['throughput', 130429],
  ] as const)('leaves a send still refused for its pace (%s) after the backoff to the queue, retryable, nothing sent', async (refusal, metaCode) => {
    const waits: number[] = [];
    meta.paceRefusals.refuse(toPhone.customerId, refusal, PACING_BACKOFF_MS.length + 1);
    const paced = new EndUserMessagingWhatsAppSender({ send, phoneNumbers: new Map([[META_PHONE_NUMBER_ID, ORIGINATION_ID]]), metaApiVersion: 'v20.0', sleep: async (ms) => void waits.push(ms) });

    const error = await sendError(paced.sendText(toPhone));

    expect(error).toMatchObject({ category: 'rate_limit', retryable: true, outcomeUnknown: false, metaCode, partsDelivered: 0 });
    expect(waits).toEqual(PACING_BACKOFF_MS);
    expect(meta.sent()).toEqual([]);
  });

  it('reports a connection cut after Meta accepted as an unknown outcome', async () => {
    meta.acceptThenDropConnection(1);

    const error = await sendError(sender().sendText(toPhone));

    expect(error).toMatchObject({ category: 'transport', retryable: true, outcomeUnknown: true });
    expect(meta.sent()).toHaveLength(1);
  });

  it('knows a refused connection never delivered anything', async () => {
    const closed = await FakeGraphApi.start();
    const endpoint = new URL(closed.baseUrl).origin;
    await closed.close();
    const unreachable = endUserMessagingSend({ endpoint, region: 'us-east-1', credentials: async () => ({ accessKeyId: 'local', secretAccessKey: 'local' }) });

    const error = await sendError(sender(undefined, unreachable).sendText(toPhone));

    expect(error).toMatchObject({ category: 'transport', retryable: true, outcomeUnknown: false });
  });
});

describe("the service's documented exceptions", () => {
  it.each([
    [new AwsApiError('ThrottledRequestException', 'Rate exceeded', 429), 'rate_limit', true],
    [new AwsApiError('DependencyException', 'Meta is unavailable', 502), 'provider_unavailable', true],
    [new AwsApiError('InternalServiceException', 'Internal error', 500), 'provider_unavailable', true],
    [new AwsApiError('AccessDeniedException', 'not authorized to perform social-messaging:SendWhatsAppMessage', 403), 'account', true],
    [new AwsApiError('ResourceNotFoundException', 'phone number not found', 404), 'account', true],
    [new AwsApiError('ValidationException', 'message is too long', 400), 'request', false],
    [new AwsApiError('InvalidParametersException', 'invalid recipient', 400), 'request', false],
    [new AwsApiError('ValidationException', '(#131047) Message failed to send because more than 24 hours have passed', 400), 'recipient', false],
    [new AwsApiError('SomethingNewException', 'new', 503), 'provider_unavailable', true],
  ].map(([exception, category, retryable]) => ({ exception, category, retryable, title: `${(exception as Error).name}: ${(exception as Error).message}` })))(
    '$title → $category, retryable $retryable',
    async ({ exception, category, retryable }) => {
    const failing: SendWhatsAppMessage = () => Promise.reject(exception);

      await expect(sender(undefined, failing).sendText(toPhone)).rejects.toMatchObject({ category, retryable, outcomeUnknown: false });
    },
  );

  it('falls back on the fault side for an exception it does not know', () => {
    expect(classifyEndUserMessagingError('SomethingNewException', 'new', 'server')).toMatchObject({ category: 'provider_unavailable', retryable: true });
    expect(classifyEndUserMessagingError('SomethingNewException', 'new', 'client')).toMatchObject({ category: 'request', retryable: false });
  });
});

describe('sending an attachment through End User Messaging', () => {
  const s3 = process.env.AWS_ENDPOINT_URL_S3!;
  const bucketName = `eum-attachments-${Date.now()}`;
  const objectKey = 'media/pseudonym/op-1';
  const PDF = Buffer.from('%PDF-1.7\nreceita\n%%EOF\n');
  const document: OutboundMediaMessage = { businessPhoneNumberId: META_PHONE_NUMBER_ID, customerId: '5511987654321', customerIdKind: 'phone', kind: 'document', objectKey, mimeType: 'application/pdf', fileName: 'receita.pdf', callbackData: 'ref-1' };
  let uploadingService: FakeEndUserMessaging;
  let postMedia: PostWhatsAppMessageMedia;

  beforeAll(async () => {
    await createMediaBucket(s3, bucketName);
    const stored = await fetch(`${s3}/${bucketName}/${objectKey}`, { method: 'PUT', headers: { 'content-type': 'application/pdf' }, body: PDF });
    expect(stored.ok).toBe(true);
    uploadingService = await FakeEndUserMessaging.start({ meta, phoneNumbers: new Map([[ORIGINATION_ID, META_PHONE_NUMBER_ID]]), s3Endpoint: s3 });
    postMedia = endUserMessagingPostMedia({ endpoint: uploadingService.endpoint, region: 'us-east-1', credentials: async () => ({ accessKeyId: 'local', secretAccessKey: 'local' }) });
  });
  afterAll(() => uploadingService.close());

  const mediaSender = (options: { postMedia?: PostWhatsAppMessageMedia; mediaBucketName?: string } = {}) =>
    new EndUserMessagingWhatsAppSender({
      send: endUserMessagingSend({ endpoint: uploadingService.endpoint, region: 'us-east-1', credentials: async () => ({ accessKeyId: 'local', secretAccessKey: 'local' }) }),
      postMedia,
      mediaBucketName: bucketName,
      phoneNumbers: new Map([[META_PHONE_NUMBER_ID, ORIGINATION_ID]]),
      metaApiVersion: 'v20.0',
      ...options,
    });

  it('uploads the object with PostWhatsAppMessageMedia (sourceS3File), then sends the Cloud API document naming the media id', async () => {
    const calls: PostWhatsAppMessageMediaInput[] = [];
    const recording: PostWhatsAppMessageMedia = (input) => {
      calls.push(input);
      return postMedia(input);
    };
    const result = await mediaSender({ postMedia: recording }).sendMedia(document);

    expect(calls).toEqual([{ originationPhoneNumberId: ORIGINATION_ID, sourceS3File: { bucketName, key: objectKey } }]);
    const [upload] = meta.uploads();
    expect(Buffer.from(upload.bytes).equals(PDF)).toBe(true);
    expect(upload.mimeType).toBe('application/pdf');
    const [accepted] = meta.sent();
    expect(accepted).toMatchObject({ media: { kind: 'document', mediaId: upload.mediaId, filename: 'receita.pdf' }, callbackData: 'ref-1' });
    expect(result.providerMessageId).toBe(accepted.providerMessageId);
  });

  it("maps the upload's exceptions like a send's, always as certainly not sent", async () => {
    const throttled: PostWhatsAppMessageMedia = () => Promise.reject(new AwsApiError('ThrottledRequestException', 'Rate exceeded', 429));
    expect(await sendError(mediaSender({ postMedia: throttled }).sendMedia(document))).toMatchObject({ category: 'rate_limit', retryable: true, outcomeUnknown: false });
    const cutOff: PostWhatsAppMessageMedia = () => Promise.reject(Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } }));
    expect(await sendError(mediaSender({ postMedia: cutOff }).sendMedia(document))).toMatchObject({ category: 'transport', retryable: true, outcomeUnknown: false });
    expect(await sendError(mediaSender().sendMedia({ ...document, objectKey: 'media/pseudonym/gone' }))).toMatchObject({ category: 'account', retryable: true });
    expect(await sendError(mediaSender({ mediaBucketName: undefined }).sendMedia(document))).toMatchObject({ category: 'request', retryable: false });
    expect(meta.sent()).toHaveLength(0);
  });
});
