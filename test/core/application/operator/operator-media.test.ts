// Operators open a conversation's attachments through short-lived links, under the rule for
// reading the conversation; the sessions are real (DynamoDB Local), the bucket in memory.
import { createMediaClient, S3MediaStore } from '../../../../lambda/core/adapters/s3/s3-media-store';
import { MEDIA_LINK_SECONDS, OperatorMedia } from '../../../../lambda/core/application/operator/operator-media';
import { OperatorActionError } from '../../../../lambda/core/application/operator/operator-errors';
import type { StoredMedia } from '../../../../lambda/core/domain/media';
import type { Message, OutboundRef } from '../../../../lambda/core/domain/message';
import type { Operator } from '../../../../lambda/core/domain/operator';
import { SessionState } from '../../../../lambda/core/domain/session';
import { newSession } from '../../../support/domain-records';
import { createTestTable, tableRepositories, type TestTable } from '../../../support/dynamo-table';
import { newCustomer, newMessageId, newOperatorPhone } from '../../../support/ids';
import { InMemoryMediaStore } from '../../../support/in-memory-media-store';

const NOW = new Date('2026-03-10T12:10:00.000Z');
const AT = '2026-03-10T12:00:01.000000Z';
const ana: Operator = { phone: newOperatorPhone(), role: 'operator' };
const bia: Operator = { phone: newOperatorPhone(), role: 'operator' };
const admin: Operator = { phone: newOperatorPhone(), role: 'admin' };

let table: TestTable;
let repositories: ReturnType<typeof tableRepositories>;
beforeAll(async () => {
  table = await createTestTable('operator-media');
  repositories = tableRepositories(table.name);
});
afterAll(async () => {
  await table.drop();
});

const photo: StoredMedia = { kind: 'image', providerMediaId: 'meta-1', mimeType: 'image/jpeg', state: 'stored', objectKey: 'media/c/wamid.photo', sizeBytes: 2048, filename: 'exame.jpg' };

/** A customer whose conversation is in `state` (assigned to Ana when a person has it), with one message carrying `media`. */
async function conversationWith(state: SessionState, media: StoredMedia | undefined): Promise<{ customerId: string; messageId: string; media: OperatorMedia; store: InMemoryMediaStore }> {
  const customerId = newCustomer();
  const session = newSession(customerId, { state, ...(state === SessionState.HUMAN_ACTIVE && { assignedTo: ana.phone }) });
  await repositories.sessions.put(session);
  const messageId = newMessageId();
  const message: Message = { customerId, sessionId: session.sessionId, messageId, direction: 'inbound', role: 'user', text: '[image]', timestamp: AT, messageType: 'image' };
  await repositories.messages.append(message);
  const store = new InMemoryMediaStore();
  const messages = {
    refFor: (at: Pick<Message, 'customerId' | 'timestamp' | 'messageId'>) => repositories.messages.refFor(at),
    // The stored message, with the attachment the download step records on it.
    getOutbound: async (ref: OutboundRef) => {
      const stored = await repositories.messages.getOutbound(ref);
      return stored && media ? { ...stored, media } : stored;
    },
  };
  return { customerId, messageId, store, media: new OperatorMedia({ sessions: repositories.sessions, messages, media: store, clock: { now: () => NOW } }) };
}

async function refusal(promise: Promise<unknown>): Promise<OperatorActionError> {
  const error = await promise.catch((thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(OperatorActionError);
  return error as OperatorActionError;
}

it.each([
  ['any operator, while it waits for a person', SessionState.AWAITING_HUMAN, bia],
  ['its owner, while they have it', SessionState.HUMAN_ACTIVE, ana],
  ['an admin, whatever its state', SessionState.QUALIFYING, admin],
])('%s gets a link valid for five minutes', async (_, state, operator) => {
  const { customerId, messageId, media, store } = await conversationWith(state, photo);

  const link = await media.link(operator, customerId, messageId, AT);

  expect(link).toEqual({ url: `http://127.0.0.1:9/media/${photo.objectKey}?expires=${MEDIA_LINK_SECONDS}`, expiresAt: '2026-03-10T12:15:00.000000Z', kind: 'image', mimeType: 'image/jpeg', filename: 'exame.jpg' });
  expect(store.presigned).toEqual([{ objectKey: photo.objectKey, expiresInSeconds: 300, response: { contentDisposition: `inline; filename="exame.jpg"; filename*=UTF-8''exame.jpg`, contentType: 'image/jpeg' } }]);
});

it('a customer’s SVG (an `image/*` the deployment allows) is linked as a download under its name, never opened in place where its script would run', async () => {
  const svg: StoredMedia = { ...photo, mimeType: 'image/svg+xml', filename: 'logo.svg', objectKey: 'media/c/wamid.svg' };
  const { customerId, messageId, media, store } = await conversationWith(SessionState.AWAITING_HUMAN, svg);

  await media.link(bia, customerId, messageId, AT);

  expect(store.presigned).toEqual([{ objectKey: svg.objectKey, expiresInSeconds: 300, response: { contentDisposition: `attachment; filename="logo.svg"; filename*=UTF-8''logo.svg` } }]);
});

it('the link S3 is given is a query-signed GET of that one object, expiring when the answer says', async () => {
  const { customerId, messageId } = await conversationWith(SessionState.AWAITING_HUMAN, photo);
  const bucket = new S3MediaStore({ bucketName: 'media-bucket', customerKey: async () => 'c', client: createMediaClient({ credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' } }), env: { AWS_REGION: 'sa-east-1' } });
  const withPhoto = async () => ({ ...(await repositories.messages.getOutbound(repositories.messages.refFor({ customerId, timestamp: AT, messageId })))!, media: photo });
  const media = new OperatorMedia({ sessions: repositories.sessions, messages: { refFor: (at) => repositories.messages.refFor(at), getOutbound: withPhoto }, media: bucket, clock: { now: () => NOW } });

  const link = await media.link(ana, customerId, messageId, AT);

  const url = new URL(link.url);
  expect(`${url.origin}${url.pathname}`).toBe(`https://media-bucket.s3.sa-east-1.amazonaws.com/${photo.objectKey}`);
  expect([...url.searchParams.keys()].sort()).toEqual(['X-Amz-Algorithm', 'X-Amz-Credential', 'X-Amz-Date', 'X-Amz-Expires', 'X-Amz-Signature', 'X-Amz-SignedHeaders', 'response-content-disposition', 'response-content-type']);
  expect(url.searchParams.get('response-content-disposition')).toBe(`inline; filename="exame.jpg"; filename*=UTF-8''exame.jpg`);
  expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('host');
  expect(Number(url.searchParams.get('X-Amz-Expires'))).toBe(MEDIA_LINK_SECONDS);
  expect(Date.parse(link.expiresAt) - NOW.getTime()).toBe(MEDIA_LINK_SECONDS * 1000);
});

it.each([
  ['another operator, when someone else has it', SessionState.HUMAN_ACTIVE, bia],
  ['an operator, while the agent has it', SessionState.QUALIFYING, ana],
])('%s is refused, and no link is signed', async (_, state, operator) => {
  const { customerId, messageId, media, store } = await conversationWith(state, photo);

  expect((await refusal(media.link(operator, customerId, messageId, AT))).reason).toBe('forbidden');
  expect(store.presigned).toEqual([]);
});

it('a message without an attachment, another message or another time is not found', async () => {
  const { customerId, messageId, media, store } = await conversationWith(SessionState.AWAITING_HUMAN, undefined);
  const withPhoto = await conversationWith(SessionState.AWAITING_HUMAN, photo);

  expect((await refusal(media.link(ana, customerId, messageId, AT))).reason).toBe('not_found');
  expect((await refusal(withPhoto.media.link(ana, withPhoto.customerId, newMessageId(), AT))).reason).toBe('not_found');
  expect((await refusal(withPhoto.media.link(ana, withPhoto.customerId, withPhoto.messageId, '2026-03-10T12:00:02.000000Z'))).reason).toBe('not_found');
  // Another customer's message is not found under this customer.
  expect((await refusal(withPhoto.media.link(ana, customerId, withPhoto.messageId, AT))).reason).toBe('not_found');
  expect([...store.presigned, ...withPhoto.store.presigned]).toEqual([]);
});

it.each<[StoredMedia['state'], Partial<StoredMedia>]>([
  ['pending', { objectKey: undefined }],
  ['refused', { objectKey: undefined, refusal: 'too_large' }],
  ['failed', { objectKey: undefined }],
])('an attachment %s has nothing to open', async (state, changes) => {
  const { customerId, messageId, media, store } = await conversationWith(SessionState.AWAITING_HUMAN, { ...photo, state, ...changes });

  const error = await refusal(media.link(ana, customerId, messageId, AT));

  expect([error.reason, error.message]).toEqual(['conflict', `The attachment is ${state}, not stored: there is nothing to open`]);
  expect(store.presigned).toEqual([]);
});

it('an `at` that is not a time is invalid; a customer without a conversation is not found', async () => {
  const { customerId, messageId, media } = await conversationWith(SessionState.AWAITING_HUMAN, photo);

  expect((await refusal(media.link(ana, customerId, messageId, 'yesterday'))).reason).toBe('invalid');
  expect((await refusal(media.link(ana, newCustomer(), messageId, AT))).reason).toBe('not_found');
});
