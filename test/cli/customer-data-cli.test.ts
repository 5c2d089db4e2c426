import { randomUUID } from 'node:crypto';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { eraseCustomer } from '../../bin/erase-customer';
import { exportCustomer } from '../../bin/export-customer';
import { createDocumentClient } from '../../lambda/core/adapters/dynamodb/dynamo-kit';
import { createDynamoRepositories, type DynamoRepositories } from '../../lambda/core/adapters/dynamodb/dynamo-repositories';
import { principalIdentity } from '../support/permissions/function-principals';
import { newCustomer } from '../support/ids';
import { createTestTable, type TestTable } from '../support/dynamo-table';
import { seedRichHistory } from '../support/customer-history';
import { physicalNames } from '../../lib/contract';
import { createTurnQueues } from '../../local/servers/local-resources';
import { takeAll } from '../support/inspect';

let table: TestTable;
let repos: DynamoRepositories;
const operatorsEnvironment = { AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN: process.env.AWS_SESSION_TOKEN };

beforeAll(async () => {
  table = await createTestTable('privacy-cli');
  // The test's own reads and writes keep the test credentials; the commands run as the erase and export role.
  repos = createDynamoRepositories({ tableName: table.name, crmSyncEnabled: true, client: createDocumentClient({ credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }) });
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

test('erase asks for the id again; a mismatch or no terminal erases nothing', async () => {
  const seeded = await seedRichHistory(repos, newCustomer());
  const before = await stored(seeded.customerId);
  const args = ['--table', table.name, '--customer', seeded.customerId];
  expect(await eraseCustomer(args, {}, capture().output, async () => 'someone-else')).toBe(2);
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
