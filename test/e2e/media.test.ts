// Attachments end to end on the local runtime: Meta-shaped image and document messages whose media
// the fake Graph API serves are downloaded by the turn into the media bucket on the local S3 server
// and reach the model (the fake Converse model) as image and document blocks with their bytes; a
// reaction starts no turn; a download that fails twice is retried by the queue and stored once; an
// erasure leaves no object of the customer in the bucket.
import type { ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import { BedrockConverseAgent } from '../../lambda/core/adapters/agent/bedrock-converse-agent';
import { FakeConverseModel } from '../../local/fake-bedrock/fake-converse-model';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { LAB_REPORT_PDF, lastTurnBlocks, mediaObjectKeys, ONE_PIXEL_PNG, repliesTo, sendAttachment } from '../support/media-bucket';
import { type ConsoleClient, signInOverWhatsApp } from '../support/operator-console-client';
import { startOperatorPipeline } from '../support/pipeline';
import { waitUntil } from '../support/waiting';

const requests: ConverseCommandInput[] = [];
const model = new FakeConverseModel({ toolRounds: 0, answerAfter: async (input) => void requests.push(input) });
let pipeline: LocalPipeline;
let admin: ConsoleClient;
const adminPhone = newOperatorPhone();

beforeAll(async () => {
  pipeline = await startOperatorPipeline([adminPhone], {
    agent: new BedrockConverseAgent({ modelId: 'us.anthropic.claude-sonnet-4-20250514-v1:0', converse: model.converse }),
    // Quick retries, so a failed download is tried again within seconds.
    queue: { visibilityTimeoutSeconds: 1 },
  });
  admin = await signInOverWhatsApp(pipeline, adminPhone);
});
afterAll(() => pipeline.stop());

async function answered(customer: string, replies: number): Promise<void> {
  await waitUntil(() => repliesTo(pipeline, customer).length >= replies, 20_000, `${replies} replies to ${customer}`);
  await pipeline.waitForIdle();
}

it("a customer's photo reaches the model as an image block with its bytes, and is kept in the bucket", async () => {
  const customer = newCustomer();
  await sendAttachment(pipeline, customer, { type: 'image', bytes: ONE_PIXEL_PNG, mimeType: 'image/png', fields: { caption: `meu exame ${customer}` } });
  await answered(customer, 1);

  expect(lastTurnBlocks(requests, `meu exame ${customer}`)).toContainEqual({ image: { format: 'png', source: { bytes: new Uint8Array(ONE_PIXEL_PNG) } } });
  expect(repliesTo(pipeline, customer)).toEqual([`Olá! Recebi: [image] meu exame ${customer}`]);
  const { history } = await pipeline.conversation(customer);
  expect(history[0].media).toMatchObject({ kind: 'image', state: 'stored', mimeType: 'image/png', sizeBytes: ONE_PIXEL_PNG.byteLength });
  expect(await mediaObjectKeys(pipeline)).toContain(history[0].media!.objectKey);
});

it('a document reaches the model as a document block with its bytes', async () => {
  const customer = newCustomer();
  await sendAttachment(pipeline, customer, { type: 'document', bytes: LAB_REPORT_PDF, mimeType: 'application/pdf', fields: { filename: `laudo-${customer}.pdf` } });
  await answered(customer, 1);

  const blocks = lastTurnBlocks(requests, `laudo-${customer}.pdf`);
  expect(blocks).toContainEqual({ document: { format: 'pdf', name: expect.stringContaining(customer), source: { bytes: new Uint8Array(LAB_REPORT_PDF) } } });
});

it('a reaction to the reply is recorded and answered by nothing: no reply, no model call', async () => {
  const customer = newCustomer();
  expect((await pipeline.sendCustomerMessage(customer, 'Olá')).status).toBe(200);
  await answered(customer, 1);
  const replyId = pipeline.fakeWhatsApp.sent().find((message) => message.recipient === customer)!.providerMessageId;
  const callsBefore = model.totals.calls;

  expect((await pipeline.sendCustomerContent(customer, { type: 'reaction', reaction: { message_id: replyId, emoji: '👍' } })).status).toBe(200);
  await pipeline.waitForIdle();

  expect(repliesTo(pipeline, customer)).toHaveLength(1);
  expect(model.totals.calls).toBe(callsBefore);
});

it('a download failing twice is retried with the turn: one object stored, one reply', async () => {
  const customer = newCustomer();
  const objectsBefore = await mediaObjectKeys(pipeline);
  pipeline.fakeWhatsApp.failMedia('download', 2);
  await sendAttachment(pipeline, customer, { type: 'image', bytes: ONE_PIXEL_PNG, mimeType: 'image/png', fields: { caption: `de novo ${customer}` } });
  await answered(customer, 1);

  const added = (await mediaObjectKeys(pipeline)).filter((key) => !objectsBefore.includes(key));
  expect(added).toHaveLength(1);
  expect(repliesTo(pipeline, customer)).toEqual([`Olá! Recebi: [image] de novo ${customer}`]);
  const { history } = await pipeline.conversation(customer);
  expect(history.filter((message) => message.role === 'user').map((message) => message.media?.state)).toEqual(['stored']);
  expect(history[0].media?.objectKey).toBe(added[0]);
});

it("an erasure leaves none of the customer's objects in the bucket", async () => {
  const customer = newCustomer();
  await sendAttachment(pipeline, customer, { type: 'image', bytes: ONE_PIXEL_PNG, mimeType: 'image/png', fields: { caption: `apagar ${customer}` } });
  await answered(customer, 1);
  await sendAttachment(pipeline, customer, { type: 'document', bytes: LAB_REPORT_PDF, mimeType: 'application/pdf', fields: { filename: `apagar-${customer}.pdf` } });
  await answered(customer, 2);
  const { history } = await pipeline.conversation(customer);
  const keys = history.flatMap((message) => (message.media?.objectKey === undefined ? [] : [message.media.objectKey]));
  expect(keys).toHaveLength(2);
  const others = (await mediaObjectKeys(pipeline)).filter((key) => !keys.includes(key));

  const erased = await admin.call('POST', `/api/admin/customers/${customer}/erase`, { confirm: customer });
  expect(erased.status).toBe(200);

  const left = await mediaObjectKeys(pipeline);
  expect(left.filter((key) => keys.includes(key))).toEqual([]);
  // Only theirs: every other customer's attachment stays.
  expect(left).toEqual(expect.arrayContaining(others));
});
