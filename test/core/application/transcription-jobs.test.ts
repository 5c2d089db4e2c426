// Every transcription job — the customer's words — is deleted: by the turn once read, by the idle
// sweep once no attempt of its turn can read it again, by the erasure of its customer. Against the
// local stand-in of Amazon Transcribe, through the signed adapter.
import { AmazonTranscribe } from '../../../lambda/core/adapters/aws/amazon-transcribe';
import { UnsafeDestinationError } from '../../../lambda/core/adapters/outbound/safe-destination';
import { CustomerTranscriptionJobs, TranscriptionJobSweep, transcriptionJobName } from '../../../lambda/core/application/transcription-jobs';
import { FakeTranscribe } from '../../../local/fake-aws/fake-transcribe';

const CREDENTIALS = { accessKeyId: 'AKIDLOCALTEST', secretAccessKey: 'local-secret-key' };
const MINUTE = 60_000;

let fake: FakeTranscribe;
let transcribe: AmazonTranscribe;
afterEach(() => fake.close());

async function started(options: Partial<Parameters<typeof FakeTranscribe.start>[0]> = {}): Promise<void> {
  fake = await FakeTranscribe.start({ transcripts: () => 'Oi, tudo bem?', pollsUntilDone: 1_000, ...options });
  transcribe = new AmazonTranscribe({ region: 'sa-east-1', endpoint: fake.endpoint, credentials: async () => CREDENTIALS, env: {}, maxAttempts: 1 });
}

const startJob = (name: string) => transcribe.start({ jobName: name, mediaUri: `s3://media/${name}`, mediaFormat: 'ogg', languageCode: 'pt-BR' });
const sweepOlderThan = (afterMs: number) => new TranscriptionJobSweep({ transcriber: transcribe, clock: { now: () => new Date() }, afterMs });

it('the sweep deletes the ended jobs older than the turn budget, leaves the running and the young ones, and any other app’s', async () => {
  await started();
  const [old, running] = [transcriptionJobName('p1', 'media/p1/wamid.A'), transcriptionJobName('p2', 'media/p2/wamid.B')];
  for (const name of [old, 'another-apps-voice-job']) await startJob(name);
  fake.finishRunning();
  await startJob(running);
  fake.backdate(10 * MINUTE);
  // Started just now and ended at once: a turn may still read it.
  fake.setPollsUntilDone(0);
  const young = transcriptionJobName('p3', 'media/p3/wamid.C');
  await startJob(young);
  expect(await transcribe.state(young)).toMatchObject({ status: 'completed' });

  expect(await sweepOlderThan(6 * MINUTE).sweep()).toEqual({ deleted: 1, running: 1 });
  expect([...fake.jobs.keys()].sort()).toEqual(['another-apps-voice-job', running, young].sort());
});

it('a job still running when the sweep passes is counted and left, then deleted by a later sweep once it ended', async () => {
  await started();
  const name = transcriptionJobName('p1', 'media/p1/wamid.A');
  await startJob(name);
  fake.backdate(10 * MINUTE);

  expect(await sweepOlderThan(6 * MINUTE).sweep()).toEqual({ deleted: 0, running: 1 });
  // The service refuses to delete a running job, as the adapter reports.
  await expect(transcribe.delete(name)).rejects.toMatchObject({ name: 'BadRequestException' });
  fake.finishRunning();
  expect(await sweepOlderThan(6 * MINUTE).sweep()).toEqual({ deleted: 1, running: 0 });
  expect(fake.jobs.size).toBe(0);
  // A job already gone is deleted: a second delete is no error.
  await expect(transcribe.delete(name)).resolves.toBeUndefined();
});

it('the sweep reads every page of a long listing', async () => {
  await started();
  for (let index = 0; index < 230; index++) await startJob(transcriptionJobName('p', `media/p/wamid.${index}`));
  fake.finishRunning();
  fake.backdate(10 * MINUTE);

  expect(await sweepOlderThan(MINUTE).sweep()).toEqual({ deleted: 230, running: 0 });
});

it('the erasure deletes every ended job of the customer at once, whatever its age, and no other customer’s', async () => {
  await started();
  const erase = new CustomerTranscriptionJobs(transcribe, async (customerId) => `pseudonym-of-${customerId}`);
  const mine = [transcriptionJobName('pseudonym-of-5511999990000', 'media/x/wamid.1'), transcriptionJobName('pseudonym-of-5511999990000', 'media/x/wamid.2')];
  // A customer whose id begins with the same digits has another pseudonym: never touched.
  const theirs = transcriptionJobName('pseudonym-of-55119999900001', 'media/y/wamid.1');
  for (const name of [...mine, theirs]) await startJob(name);
  fake.finishRunning();
  const stillRunning = transcriptionJobName('pseudonym-of-5511999990000', 'media/x/wamid.3');
  await startJob(stillRunning);

  expect(await erase.erase('5511999990000')).toEqual({ deleted: 2, running: 1 });
  expect([...fake.jobs.keys()].sort()).toEqual([stillRunning, theirs].sort());
});

it('a transcript file the service names anywhere but AWS is never fetched', async () => {
  await started({ pollsUntilDone: 0, transcriptFileUri: () => 'https://attacker.example.com/asrOutput.json' });
  await startJob('voice-p-1');
  await expect(transcribe.state('voice-p-1')).rejects.toBeInstanceOf(UnsafeDestinationError);
});
