import { randomUUID } from 'node:crypto';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { eraseCustomer } from '../../bin/erase-customer';
import { exportCustomer } from '../../bin/export-customer';
import { createDocumentClient } from '../../lambda/core/adapters/dynamodb/dynamo-kit';
import { createDynamoRepositories, type DynamoRepositories } from '../../lambda/core/adapters/dynamodb/dynamo-repositories';
import { createMediaClient, S3MediaStore } from '../../lambda/core/adapters/s3/s3-media-store';
import { CustomerPseudonyms } from '../../lambda/core/application/privacy/customer-pseudonyms';
import { permissionCheck, principalIdentity } from '../support/permissions/function-principals';
import { AmazonTranscribe } from '../../lambda/core/adapters/aws/amazon-transcribe';
import { transcriptionJobName } from '../../lambda/core/application/transcription-jobs';
import { FakeTranscribe } from '../../local/fake-aws/fake-transcribe';
import { newCustomer } from '../support/ids';
import { createTestTable, type TestTable } from '../support/dynamo-table';
import { seedRichHistory } from '../support/customer-history';
import { physicalNames } from '../../lib/contract';
import { createMediaBucket, createTurnQueues } from '../../local/servers/local-resources';
import { takeAll } from '../support/inspect';
import { startFakeCloudFormation } from '../support/fake-cloudformation';

let table: TestTable;
let repos: DynamoRepositories;
/** The bucket as the local runtime names it (`{table}-media`), written with the test credentials. */
let mediaBucketName: string;
let bucket: S3MediaStore;
const operatorsEnvironment = { AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN: process.env.AWS_SESSION_TOKEN };

beforeAll(async () => {
  table = await createTestTable('privacy-cli');
  // The test's own reads and writes keep the test credentials; the commands run as the erase and export role.
  repos = createDynamoRepositories({ tableName: table.name, crmSyncEnabled: true, client: createDocumentClient({ credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }) });
  mediaBucketName = `${table.name}-media`.toLowerCase();
  await createMediaBucket(process.env.AWS_ENDPOINT_URL_S3!, mediaBucketName);
  const pseudonyms = new CustomerPseudonyms(repos.customerData);
  bucket = new S3MediaStore({ bucketName: mediaBucketName, customerKey: (customerId) => pseudonyms.of(customerId), client: createMediaClient({ endpoint: process.env.AWS_ENDPOINT_URL_S3, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }) });
  const { accessKeyId, secretAccessKey, sessionToken } = principalIdentity('customer-data');
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey, AWS_SESSION_TOKEN: sessionToken });
});
afterAll(async () => {
  for (const [name, value] of Object.entries(operatorsEnvironment)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await table.drop();
});

function capture() {
  const lines = { out: [] as string[], err: [] as string[] };
  return { lines, output: { out: (text: string) => lines.out.push(text), err: (text: string) => lines.err.push(text) } };
}

const stored = async (customerId: string) => (await repos.customerData.inventory(customerId)).anchors.length;

test('export prints one JSON document of the customer', async () => {
  const seeded = await seedRichHistory(repos, newCustomer());
  const { lines, output } = capture();
  expect(await exportCustomer(['--table', table.name, '--customer', seeded.customerId], { USER: 'dpo' }, output)).toBe(0);
  const document = JSON.parse(lines.out.join('\n'));
  expect(document).toMatchObject({ format: 'customer-export/1', customerId: seeded.customerId });
  expect(document.records.session).toHaveLength(3);
});

test('erase asks for the id again; a mismatch (not confirmed, 3) or no terminal (use --yes, 2) erases nothing', async () => {
  const seeded = await seedRichHistory(repos, newCustomer());
  const before = await stored(seeded.customerId);
  const args = ['--table', table.name, '--customer', seeded.customerId];
  expect(await eraseCustomer(args, {}, capture().output, async () => 'someone-else')).toBe(3);
  expect(await eraseCustomer(args, {}, capture().output, async () => undefined)).toBe(2);
  expect(await stored(seeded.customerId)).toBe(before);

  const { lines, output } = capture();
  expect(await eraseCustomer(args, { USER: 'dpo' }, output, async () => ` ${seeded.customerId} `)).toBe(0);
  expect(JSON.parse(lines.out.join('\n')).deleted.session).toBe(3);
  expect(await stored(seeded.customerId)).toBe(0);
  const [audit] = (await repos.audit.listRecent({ limit: 5 })).items;
  expect(audit).toMatchObject({ action: 'customer.erase', author: 'cli:dpo' });
});

test('erase with --dlq-url also deletes the customer’s dead-lettered turns; without it, it says the queue was not checked', async () => {
  // The test's queue and records are its own, signed with the test credentials.
  const sqs = new SQSClient({ credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const { deadLetterQueueUrl } = await createTurnQueues(sqs, physicalNames('privacy-cli', randomUUID().slice(0, 8)));
  const [seeded, other] = [await seedRichHistory(repos, newCustomer()), newCustomer()];
  for (const customer of [seeded.customerId, other]) {
    await sqs.send(new SendMessageCommand({ QueueUrl: deadLetterQueueUrl, MessageBody: JSON.stringify({ phone_number: customer, message_id: 'wamid.x' }), MessageGroupId: customer, MessageDeduplicationId: randomUUID() }));
  }
  const { lines, output } = capture();
  expect(await eraseCustomer(['--table', table.name, '--customer', seeded.customerId, '--dlq-url', deadLetterQueueUrl, '--yes'], { USER: 'dpo' }, output)).toBe(0);
  expect(JSON.parse(lines.out.join('\n'))).toMatchObject({ deadLettersRemoved: 1 });
  expect(lines.err).toEqual([]);
  expect((await takeAll(deadLetterQueueUrl)).map((message) => JSON.parse(message.Body!).phone_number)).toEqual([other]);

  const without = capture();
  expect(await eraseCustomer(['--table', table.name, '--customer', seeded.customerId, '--yes'], { USER: 'dpo' }, without.output)).toBe(0);
  expect(JSON.parse(without.lines.out.join('\n')).deadLettersRemoved).toBeUndefined();
  expect(without.lines.err).toEqual(['The dead-letter queue was not checked: with --table, name it with --dlq-url.']);
  sqs.destroy();
});

test('with --media-bucket, export lists the customer’s attachments and erase deletes them, and no one else’s', async () => {
  const [seeded, other] = [await seedRichHistory(repos, newCustomer()), newCustomer()];
  const photo = await bucket.put(seeded.customerId, 'wamid.photo', new Uint8Array([0xff, 0xd8, 0xff]), 'image/jpeg');
  const document = await bucket.put(seeded.customerId, 'wamid.exame+1=', new Uint8Array(2048), 'application/pdf');
  const kept = await bucket.put(other, 'wamid.other', new Uint8Array([1]), 'image/png');
  const target = ['--table', table.name, '--media-bucket', mediaBucketName, '--customer', seeded.customerId];

  const exported = capture();
  expect(await exportCustomer(target, { USER: 'dpo' }, exported.output)).toBe(0);
  expect(JSON.parse(exported.lines.out.join('\n')).media).toEqual(expect.arrayContaining([photo, document]));
  expect(JSON.parse(exported.lines.out.join('\n')).media).toHaveLength(2);

  const erased = capture();
  expect(await eraseCustomer([...target, '--yes'], { USER: 'dpo' }, erased.output)).toBe(0);
  expect(JSON.parse(erased.lines.out.join('\n'))).toMatchObject({ mediaObjectsDeleted: 2 });
  expect(await bucket.listCustomerObjects(seeded.customerId)).toEqual([]);
  expect(await bucket.listCustomerObjects(other)).toEqual([kept]);
  // Run again, it finds nothing left.
  const again = capture();
  expect(await eraseCustomer([...target, '--yes'], { USER: 'dpo' }, again.output)).toBe(0);
  expect(JSON.parse(again.lines.out.join('\n'))).toMatchObject({ mediaObjectsDeleted: 0 });
});

test('with --stack the media bucket comes from the stack’s outputs', async () => {
  const seeded = await seedRichHistory(repos, newCustomer());
  const photo = await bucket.put(seeded.customerId, 'wamid.from-stack', new Uint8Array([7]), 'image/jpeg');
  const cloudFormation = await startFakeCloudFormation({
    'WhatsAppAgent-prod': { AgentTableName: table.name, AgentTurnQueueUrl: 'http://127.0.0.1:9/q.fifo', AgentDeadLetterQueueUrl: 'http://127.0.0.1:9/dlq.fifo', AgentMediaBucketName: mediaBucketName },
  });
  process.env.AWS_ENDPOINT_URL_CLOUDFORMATION = cloudFormation.endpoint;
  try {
    const { lines, output } = capture();
    expect(await exportCustomer(['--stack', 'WhatsAppAgent-prod', '--customer', seeded.customerId], { USER: 'dpo' }, output)).toBe(0);
    expect(JSON.parse(lines.out.join('\n')).media).toEqual([photo]);
  } finally {
    delete process.env.AWS_ENDPOINT_URL_CLOUDFORMATION;
    await cloudFormation.stop();
  }
});

test('with voice notes transcribed (--transcription, or the stack’s output), erase deletes the customer’s ended Transcribe jobs, reports a running one, and touches no one else’s', async () => {
  const transcribe = await FakeTranscribe.start({ transcripts: () => 'Meu exame deu alterado', pollsUntilDone: 1_000, permissions: permissionCheck() });
  // The test starts the jobs with its own credentials; the command deletes them as the erase role.
  const service = new AmazonTranscribe({ endpoint: transcribe.endpoint, credentials: async () => ({ accessKeyId: 'local', secretAccessKey: 'local' }), maxAttempts: 1 });
  const pseudonyms = new CustomerPseudonyms(repos.customerData);
  const [customer, other] = [newCustomer(), newCustomer()];
  const job = async (customerId: string, objectKey: string) => {
    const name = transcriptionJobName(await pseudonyms.of(customerId), objectKey);
    await service.start({ jobName: name, mediaUri: `s3://${mediaBucketName}/${objectKey}`, mediaFormat: 'ogg', languageCode: 'pt-BR' });
    return name;
  };
  const [, , theirs] = [await job(customer, 'media/c/wamid.1'), await job(customer, 'media/c/wamid.2'), await job(other, 'media/o/wamid.1')];
  transcribe.finishRunning();
  const running = await job(customer, 'media/c/wamid.3');
  process.env.AWS_ENDPOINT_URL_TRANSCRIBE = transcribe.endpoint;
  const sqs = new SQSClient({ credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const queues = await createTurnQueues(sqs, physicalNames('privacy-cli', randomUUID().slice(0, 8)));
  sqs.destroy();
  const cloudFormation = await startFakeCloudFormation({
    'WhatsAppAgent-prod': { AgentTableName: table.name, AgentTurnQueueUrl: queues.turnQueueUrl, AgentDeadLetterQueueUrl: queues.deadLetterQueueUrl, AgentTranscriptionJobPrefix: 'voice-' },
  });
  try {
    const withFlag = capture();
    expect(await eraseCustomer(['--table', table.name, '--customer', customer, '--transcription', '--yes'], { USER: 'dpo' }, withFlag.output)).toBe(0);
    expect(JSON.parse(withFlag.lines.out.join('\n'))).toMatchObject({ transcriptionJobsDeleted: 2, transcriptionJobsRunning: 1 });
    expect([...transcribe.jobs.keys()].sort()).toEqual([running, theirs].sort());

    // From the stack's outputs: the last job, now ended, goes too.
    transcribe.finishRunning();
    process.env.AWS_ENDPOINT_URL_CLOUDFORMATION = cloudFormation.endpoint;
    const fromStack = capture();
    expect(await eraseCustomer(['--stack', 'WhatsAppAgent-prod', '--customer', customer, '--yes'], { USER: 'dpo' }, fromStack.output)).toBe(0);
    expect(JSON.parse(fromStack.lines.out.join('\n'))).toMatchObject({ transcriptionJobsDeleted: 1, transcriptionJobsRunning: 0 });
    expect([...transcribe.jobs.keys()]).toEqual([theirs]);

    // Without it, nothing is asked of Transcribe, and the report says nothing of it.
    const without = capture();
    expect(await eraseCustomer(['--table', table.name, '--customer', other, '--yes'], { USER: 'dpo' }, without.output)).toBe(0);
    expect(JSON.parse(without.lines.out.join('\n')).transcriptionJobsDeleted).toBeUndefined();
    expect([...transcribe.jobs.keys()]).toEqual([theirs]);
  } finally {
    delete process.env.AWS_ENDPOINT_URL_TRANSCRIBE;
    delete process.env.AWS_ENDPOINT_URL_CLOUDFORMATION;
    await cloudFormation.stop();
    await transcribe.close();
  }
});

test('without a media bucket the report says nothing of media; --media-bucket goes with --table only', async () => {
  const seeded = await seedRichHistory(repos, newCustomer());
  await bucket.put(seeded.customerId, 'wamid.left', new Uint8Array([1]), 'image/jpeg');
  const { lines, output } = capture();
  expect(await exportCustomer(['--table', table.name, '--customer', seeded.customerId], { USER: 'dpo' }, output)).toBe(0);
  expect(JSON.parse(lines.out.join('\n')).media).toBeUndefined();
  const misuse = capture();
  expect(await exportCustomer(['--stack', 'Prod', '--media-bucket', mediaBucketName, '--customer', seeded.customerId], {}, misuse.output)).toBe(2);
  expect(misuse.lines.err.join('\n')).toContain('--media-bucket goes with --table');
});

test('wrong usage is exit code 2 with the usage text, and touches nothing', async () => {
  for (const args of [['--customer', '5511'], ['--table', table.name], ['--table', table.name, '--customer', 'a#b', '--yes'], ['--bogus']]) {
    const { lines, output } = capture();
    const code = await eraseCustomer(args, {}, output, async () => '5511');
    expect({ args, code }).toEqual({ args, code: 2 });
    expect(lines.err.join('\n')).not.toBe('');
  }
  const help = capture();
  expect(await exportCustomer(['--help'], {}, help.output)).toBe(0);
  expect(help.lines.out.join('\n')).toContain('--customer <id>');
});
