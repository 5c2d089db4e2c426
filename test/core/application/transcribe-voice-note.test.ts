// Voice notes transcribed by Amazon Transcribe's batch API, here its local stand-in: the signed
// adapter, the bounded wait of the turn, and what happens when the job fails or takes too long.
import { AmazonTranscribe } from '../../../lambda/core/adapters/aws/amazon-transcribe';
import { transcribeVoiceNote, type TranscribeVoiceNoteDependencies } from '../../../lambda/core/application/transcribe-voice-note';
import { transcriptionJobName } from '../../../lambda/core/application/transcription-jobs';
import type { StoredMedia } from '../../../lambda/core/domain/media';
import { FakeTranscribe } from '../../../local/fake-aws/fake-transcribe';

const BUCKET = 'media-bucket';
const CREDENTIALS = { accessKeyId: 'AKIDLOCALTEST', secretAccessKey: 'local-secret-key' };
const voiceNote = (objectKey: string, mimeType = 'audio/ogg; codecs=opus'): StoredMedia => ({ kind: 'audio', voice: true, providerMediaId: 'm-1', mimeType, state: 'stored', objectKey });
const uriOf = (objectKey: string) => `s3://${BUCKET}/${objectKey}`;
const CUSTOMER = '5511987654321';
/** The customer's pseudonym, as the media bucket's keys and the job names carry it. */
const PSEUDONYM = 'c0ffee';

let fake: FakeTranscribe | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function withFake(transcripts: Record<string, string>, pollsUntilDone = 1): Promise<TranscribeVoiceNoteDependencies & { slept: number[] }> {
  const started = await FakeTranscribe.start({ transcripts: new Map(Object.entries(transcripts).map(([key, text]) => [uriOf(key), text])), pollsUntilDone });
  let clock = 0;
  const slept: number[] = [];
  fake = started;
  return {
    transcriber: new AmazonTranscribe({ region: 'sa-east-1', endpoint: started.endpoint, credentials: async () => CREDENTIALS, env: {}, maxAttempts: 1 }),
    customerKey: async (customerId) => (customerId === CUSTOMER ? PSEUDONYM : 'someone-else'),
    mediaUriOf: uriOf,
    languageCode: 'pt-BR',
    maxWaitMs: 10_000,
    pollIntervalMs: 1_000,
    sleep: async (ms) => {
      slept.push(ms);
      clock += ms;
    },
    now: () => clock,
    slept,
  };
}

it('a voice note gets its transcript; the job, holding the words, is deleted once read', async () => {
  const deps = await withFake({ 'media/c/wamid.V1': 'Oi, queria saber o preço do exame.' }, 2);

  const result = await transcribeVoiceNote(CUSTOMER, voiceNote('media/c/wamid.V1'), deps);

  expect(result).toEqual({ outcome: 'transcribed', media: { ...voiceNote('media/c/wamid.V1'), transcript: 'Oi, queria saber o preço do exame.' } });
  expect(deps.slept).toEqual([1_000, 1_000]);
  expect(fake!.jobs.size).toBe(0);
});

it('asks in the language configured, for the object in the media bucket, in its format', async () => {
  const deps = await withFake({}, 100);

  await transcribeVoiceNote(CUSTOMER, voiceNote('media/c/wamid.V2', 'audio/mpeg'), { ...deps, maxWaitMs: 0 });

  expect(fake!.jobs.get(transcriptionJobName(PSEUDONYM, 'media/c/wamid.V2'))).toMatchObject({ mediaUri: uriOf('media/c/wamid.V2'), languageCode: 'pt-BR', polls: 1 });
});

it('a job that takes longer than the wait is left running for the next attempt, which finds it (the service cannot delete it yet)', async () => {
  const deps = await withFake({ 'media/c/wamid.V3': 'Tudo bem?' }, 5);

  expect(await transcribeVoiceNote(CUSTOMER, voiceNote('media/c/wamid.V3'), { ...deps, maxWaitMs: 2_500 })).toEqual({ outcome: 'timed_out' });
  expect(deps.slept).toEqual([1_000, 1_000]);
  expect(fake!.jobs.size).toBe(1);

  // The retry starts the same job name (a conflict, taken as "already started") and reads on.
  expect(await transcribeVoiceNote(CUSTOMER, voiceNote('media/c/wamid.V3'), deps)).toMatchObject({ outcome: 'transcribed', media: { transcript: 'Tudo bem?' } });
  expect(fake!.jobs.size).toBe(0);
});

it('a job that fails ends without a transcript, and is deleted', async () => {
  const deps = await withFake({});

  expect(await transcribeVoiceNote(CUSTOMER, voiceNote('media/c/wamid.V4'), deps)).toEqual({ outcome: 'failed' });
  expect(fake!.jobs.size).toBe(0);
});

it.each<[string, StoredMedia, string]>([
  ['an image', { kind: 'image', providerMediaId: 'm', state: 'stored', objectKey: 'k', mimeType: 'image/png' }, 'not_audio'],
  ['a voice note not stored', { kind: 'audio', providerMediaId: 'm', state: 'refused', refusal: 'too_large' }, 'not_audio'],
  ['an audio format Transcribe does not read', voiceNote('media/c/wamid.V5', 'audio/aac'), 'unsupported_format'],
])('%s is not sent to the service', async (_, media, outcome) => {
  const deps = await withFake({});

  expect(await transcribeVoiceNote(CUSTOMER, media, deps)).toEqual({ outcome });
  expect(fake!.jobs.size).toBe(0);
});

it('job names carry the customer’s pseudonym, never the number, and fit what Transcribe accepts', () => {
  const pseudonym = 'a'.repeat(64);
  const name = transcriptionJobName(pseudonym, 'media/5511987654321/wamid.HBgN==');
  expect(name).toMatch(/^voice-a{64}-[0-9a-f]{64}$/);
  expect(name.length).toBeLessThanOrEqual(200);
  expect(name).not.toContain('5511987654321');
});
