// Voice notes transcribed end to end on the local runtime: a Meta-shaped `audio/ogg` voice note
// whose bytes the fake Graph API serves is stored in the media bucket on the local S3 server, the
// fake Amazon Transcribe transcribes it, and the model (the fake Converse model) reads the words;
// a transcript that does not come within the wait leaves the turn to go on with a note; a turn
// retried after an outage of the service finds the job it started, and one retried after the model
// failed reads the transcript it stored.
import { randomBytes } from 'node:crypto';
import type { ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import { BedrockConverseAgent } from '../../lambda/core/adapters/agent/bedrock-converse-agent';
import { CustomerPseudonyms } from '../../lambda/core/application/privacy/customer-pseudonyms';
import { transcriptionJobName } from '../../lambda/core/application/transcription-jobs';
import { tableRepositories } from '../support/dynamo-table';
import { FakeConverseModel } from '../../local/fake-bedrock/fake-converse-model';
import type { FakeTranscribe } from '../../local/fake-aws/fake-transcribe';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { newCustomer } from '../support/ids';
import { mediaObjectKeys, sendAttachment, VOICE_NOTE_OGG } from '../support/media-bucket';
import { startTestPipeline } from '../support/pipeline';
import { waitUntil } from '../support/waiting';

const requests: ConverseCommandInput[] = [];
/** Model calls still to fail, as an outage of the model would. */
let modelFailures = 0;
const model = new FakeConverseModel({
  toolRounds: 0,
  answerAfter: async (input) => {
    requests.push(input);
    if (modelFailures === 0) return;
    modelFailures -= 1;
    throw new Error('The model is unavailable');
  },
});
/** What each voice note says, by the message id its object key ends with. */
const spoken = new Map<string, string>();
let pipeline: LocalPipeline;
let transcribe: FakeTranscribe;

beforeAll(async () => {
  pipeline = await startTestPipeline({
    agent: new BedrockConverseAgent({ modelId: 'us.anthropic.claude-sonnet-4-20250514-v1:0', converse: model.converse }),
    // Longer than a turn that waits for its transcript, as the construct makes it (a shorter one would hand the turn to a second invocation), short enough for a quick retry.
    queue: { visibilityTimeoutSeconds: 8 },
    transcription: { transcripts: (mediaUri) => spoken.get(decodeURIComponent(mediaUri.split('/').pop()!)), maxWaitMs: 4_000, pollIntervalMs: 100 },
  });
  transcribe = pipeline.fakeTranscribe!;
});
afterAll(() => pipeline.stop());

/** The customer's pseudonym, as the pipeline names their media objects and transcription jobs. */
async function pseudonymOf(customer: string): Promise<string> {
  const repositories = tableRepositories(pipeline.tableName);
  return await new CustomerPseudonyms(repositories.customerData).of(customer);
}

const repliesTo = (customer: string) => pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === customer).map((message) => message.text);

/** The text the newest model request shows of the customer's last message. */
function lastCustomerText(): string {
  const content = requests.at(-1)?.messages?.at(-1)?.content ?? [];
  return content.flatMap((block) => (block.text === undefined ? [] : [block.text])).join('\n');
}

async function sendVoiceNote(customer: string, words: string): Promise<void> {
  const messageId = `wamid.VOICE${randomBytes(8).toString('hex')}`;
  spoken.set(messageId, words);
  await sendAttachment(pipeline, customer, { type: 'audio', bytes: VOICE_NOTE_OGG, mimeType: 'audio/ogg; codecs=opus', fields: { voice: true }, messageId });
}

async function answered(customer: string): Promise<void> {
  await waitUntil(() => repliesTo(customer).length >= 1, 30_000, `a reply to ${customer}`);
  await pipeline.waitForIdle();
}

it("the model reads a voice note's words; the history keeps the audio in the bucket and the transcript beside it; the job is deleted", async () => {
  const customer = newCustomer();
  const words = `Oi, queria saber o preço do exame de sangue ${customer}`;
  const callsBefore = model.totals.calls;
  await sendVoiceNote(customer, words);
  await answered(customer);

  expect(model.totals.calls - callsBefore).toBe(1);
  expect(lastCustomerText()).toContain(`[Transcript of the voice note: ${JSON.stringify(words)}]`);
  const { history } = await pipeline.conversation(customer);
  const { media } = history[0];
  expect(media).toMatchObject({ kind: 'audio', voice: true, state: 'stored', mimeType: 'audio/ogg; codecs=opus', transcript: words });
  expect(await mediaObjectKeys(pipeline)).toContain(media!.objectKey);
  const job = transcriptionJobName(await pseudonymOf(customer), media!.objectKey!);
  expect(transcribe.started.filter((name) => name === job)).toHaveLength(1);
  expect(transcribe.jobs.has(job)).toBe(false);
});

it('a transcript that does not come within the wait: the turn goes on, and the model is told it cannot hear the voice note', async () => {
  const customer = newCustomer();
  transcribe.setPollsUntilDone(1_000);
  try {
    await sendVoiceNote(customer, 'palavras que chegam tarde demais');
    await answered(customer);
  } finally {
    transcribe.setPollsUntilDone(1);
  }

  expect(lastCustomerText()).toMatch(/The customer sent a voice note \(audio\/ogg; codecs=opus, \d+ bytes\)\. You cannot see or hear it: ask the customer about it/);
  expect(lastCustomerText()).not.toContain('palavras que chegam tarde demais');
  const { history } = await pipeline.conversation(customer);
  expect(history[0].media).toMatchObject({ kind: 'audio', state: 'stored' });
  expect(history[0].media?.transcript).toBeUndefined();
  expect(repliesTo(customer)).toHaveLength(1);
});

it('a turn retried after the service failed finds the job it started: one job, one model call, the words read', async () => {
  const customer = newCustomer();
  const words = `Bom dia, posso remarcar para amanhã ${customer}`;
  const callsBefore = model.totals.calls;
  transcribe.setReadsFailUntilStartedAgain(true);
  try {
    await sendVoiceNote(customer, words);
    await answered(customer);
  } finally {
    transcribe.setReadsFailUntilStartedAgain(false);
  }

  const { history } = await pipeline.conversation(customer);
  const job = transcriptionJobName(await pseudonymOf(customer), history[0].media!.objectKey!);
  expect(transcribe.started.filter((name) => name === job)).toHaveLength(1);
  expect(model.totals.calls - callsBefore).toBe(1);
  expect(lastCustomerText()).toContain(words);
  expect(history[0].media?.transcript).toBe(words);
  expect(repliesTo(customer)).toHaveLength(1);
});

it('a turn retried after the model failed reads the transcript it stored: no second job', async () => {
  const customer = newCustomer();
  const words = `Vocês atendem no sábado ${customer}`;
  const callsBefore = model.totals.calls;
  modelFailures = 1;
  await sendVoiceNote(customer, words);
  await answered(customer);

  const { history } = await pipeline.conversation(customer);
  const job = transcriptionJobName(await pseudonymOf(customer), history[0].media!.objectKey!);
  // The first attempt's job was read and deleted: a second transcription would have started it again.
  expect(transcribe.started.filter((name) => name === job)).toHaveLength(1);
  expect(model.totals.calls - callsBefore).toBe(2);
  expect(lastCustomerText()).toContain(words);
  expect(repliesTo(customer)).toHaveLength(1);
});
