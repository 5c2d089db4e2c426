// Attachments end to end on the End User Messaging channel: the orchestrator asks the fake service
// for each attachment's metadata with GetWhatsAppMessageMedia, then has it write the file straight
// into the media bucket on the local S3 server, every request checked against the orchestrator's
// role; the photo reaches the model as an image block with its bytes, a file the metadata says is
// too large moves no byte, and a transfer that keeps failing is retried with the turn.
import type { ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import { WHATSAPP_CHANNEL_KINDS } from '../../lib/contract';
import { BedrockConverseAgent } from '../../lambda/core/adapters/agent/bedrock-converse-agent';
import { FakeConverseModel } from '../../local/fake-bedrock/fake-converse-model';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { newCustomer } from '../support/ids';
import { lastTurnBlocks, mediaObjectKeys, ONE_PIXEL_PNG, repliesTo, sendAttachment } from '../support/media-bucket';
import { startTestPipeline } from '../support/pipeline';
import { waitUntil } from '../support/waiting';

const requests: ConverseCommandInput[] = [];
const model = new FakeConverseModel({ toolRounds: 0, answerAfter: async (input) => void requests.push(input) });
let pipeline: LocalPipeline;

beforeAll(async () => {
  pipeline = await startTestPipeline({
    channel: WHATSAPP_CHANNEL_KINDS.endUserMessaging,
    agent: new BedrockConverseAgent({ modelId: 'us.anthropic.claude-sonnet-4-20250514-v1:0', converse: model.converse }),
    // Quick retries, so a failed transfer is tried again within seconds.
    queue: { visibilityTimeoutSeconds: 1 },
  });
});
afterAll(() => pipeline.stop());

/** Sends the attachment and waits for its reply; answers the objects it added to the bucket. */
async function sendAndAnswer(customer: string, attachment: Parameters<typeof sendAttachment>[2]): Promise<string[]> {
  const before = await mediaObjectKeys(pipeline);
  await sendAttachment(pipeline, customer, attachment);
  await waitUntil(() => repliesTo(pipeline, customer).length >= 1, 20_000, `a reply to ${customer}`);
  await pipeline.waitForIdle();
  return (await mediaObjectKeys(pipeline)).filter((key) => !before.includes(key));
}

it("a customer's photo is written into the bucket by the service and reaches the model as an image block with its exact bytes", async () => {
  const customer = newCustomer();
  const added = await sendAndAnswer(customer, { type: 'image', bytes: ONE_PIXEL_PNG, mimeType: 'image/png', fields: { caption: `minha receita ${customer}` } });

  expect(lastTurnBlocks(requests, `minha receita ${customer}`)).toContainEqual({ image: { format: 'png', source: { bytes: new Uint8Array(ONE_PIXEL_PNG) } } });
  expect(repliesTo(pipeline, customer)).toEqual([`Olá! Recebi: [image] minha receita ${customer}`]);
  const { history } = await pipeline.conversation(customer);
  expect(history[0].media).toMatchObject({ kind: 'image', state: 'stored', mimeType: 'image/png' });
  expect(added).toEqual([history[0].media!.objectKey]);
});

it('a photo the metadata says is too large moves no byte: nothing stored, and the agent reads the note', async () => {
  const customer = newCustomer();
  const downloadsBefore = pipeline.fakeWhatsApp.mediaRequests('download');
  const added = await sendAndAnswer(customer, { type: 'image', bytes: ONE_PIXEL_PNG, mimeType: 'image/png', fileSize: 17 * 1024 * 1024, fields: { caption: `grande ${customer}` } });

  expect(added).toEqual([]);
  expect(pipeline.fakeWhatsApp.mediaRequests('download')).toBe(downloadsBefore);
  const blocks = lastTurnBlocks(requests, `grande ${customer}`);
  expect(blocks.some((block) => block.image !== undefined)).toBe(false);
  expect(JSON.stringify(blocks)).toContain('image not kept: the file is larger than this service accepts');
  const { history } = await pipeline.conversation(customer);
  expect(history[0].media).toMatchObject({ state: 'refused', refusal: 'too_large' });
});

it('a transfer failing on every attempt of a turn is retried with the turn: one object stored, one reply', async () => {
  const customer = newCustomer();
  // Meta fails the service's download more often than one turn's attempts at the call.
  const downloadsBefore = pipeline.fakeWhatsApp.mediaRequests('download');
  pipeline.fakeWhatsApp.failMedia('download', 4);
  const added = await sendAndAnswer(customer, { type: 'image', bytes: ONE_PIXEL_PNG, mimeType: 'image/png', fields: { caption: `de novo ${customer}` } });

  expect(pipeline.fakeWhatsApp.mediaRequests('download')).toBe(downloadsBefore + 5);
  expect(added).toHaveLength(1);
  expect(repliesTo(pipeline, customer)).toEqual([`Olá! Recebi: [image] de novo ${customer}`]);
  const { history } = await pipeline.conversation(customer);
  expect(history.filter((message) => message.role === 'user').map((message) => message.media?.state)).toEqual(['stored']);
  expect(history[0].media?.objectKey).toBe(added[0]);
});
