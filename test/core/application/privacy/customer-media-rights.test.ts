import { randomUUID } from 'node:crypto';
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { createDynamoRepositories, type DynamoRepositories } from '../../../../lambda/core/adapters/dynamodb/dynamo-repositories';
import { createMediaClient, S3MediaStore } from '../../../../lambda/core/adapters/s3/s3-media-store';
import { OperatorAuditTrail } from '../../../../lambda/core/application/operator/operator-audit';
import { CustomerDataRights } from '../../../../lambda/core/application/privacy/customer-data-rights';
import { CustomerPseudonyms } from '../../../../lambda/core/application/privacy/customer-pseudonyms';
import { customerPseudonym } from '../../../../lambda/core/domain/privacy';
import { newCustomer } from '../../../support/ids';
import { ManualClock, SequentialIds } from '../../../support/manual-clock';
import { createTestTable, type TestTable } from '../../../support/dynamo-table';

let table: TestTable;
let repos: DynamoRepositories;
const clock = new ManualClock('2026-03-10T12:00:00.000Z');
// The suite's own look at the bucket, beside the adapter under test.
const client = new S3Client({ endpoint: process.env.AWS_ENDPOINT_URL_S3, forcePathStyle: true });
const bucketName = `media-rights-${randomUUID()}`;

beforeAll(async () => {
  table = await createTestTable('media-rights');
  repos = createDynamoRepositories({ tableName: table.name, clock });
  await client.send(new CreateBucketCommand({ Bucket: bucketName }));
});
afterAll(async () => {
  await table.drop();
  client.destroy();
});

function world() {
  const pseudonyms = new CustomerPseudonyms(repos.customerData);
  const media = new S3MediaStore({ bucketName, customerKey: (customerId) => pseudonyms.of(customerId), client: createMediaClient({ endpoint: process.env.AWS_ENDPOINT_URL_S3 }) });
  const rights = new CustomerDataRights({ data: repos.customerData, trail: new OperatorAuditTrail(repos.audit, clock, new SequentialIds('audit'), pseudonyms), clock, media });
  return { media, rights };
}

async function everyObjectKey(): Promise<string[]> {
  const listed = await client.send(new ListObjectsV2Command({ Bucket: bucketName }));
  return (listed.Contents ?? []).map((entry) => entry.Key!);
}

describe('the media of one customer', () => {
  test('object keys name the customer by the audit’s pseudonym, never by the phone', async () => {
    const { media } = world();
    const customerId = newCustomer();
    const stored = await media.put(customerId, 'wamid.photo', new Uint8Array([1, 2, 3]), 'image/jpeg');
    const salt = await repos.customerData.pseudonymSalt();
    expect(stored.objectKey).toBe(`media/${customerPseudonym(salt, customerId)}/wamid.photo`);
    expect(stored.objectKey).not.toContain(customerId);
  });

  test('an erasure leaves no object of the customer behind, and touches no other customer’s', async () => {
    const { media, rights } = world();
    const erased = newCustomer();
    const kept = newCustomer();
    for (const id of ['wamid.1', 'wamid.2', 'wamid.3']) await media.put(erased, id, new Uint8Array(10), 'image/jpeg');
    const keptObject = await media.put(kept, 'wamid.k', new Uint8Array(5), 'application/pdf');
    const report = await rights.erase(erased, 'admin-phone');
    expect(report.mediaObjectsDeleted).toBe(3);
    expect(await media.listCustomerObjects(erased)).toEqual([]);
    const remaining = await everyObjectKey();
    expect(remaining).toContain(keptObject.objectKey);
    const salt = await repos.customerData.pseudonymSalt();
    expect(remaining.filter((key) => key.includes(customerPseudonym(salt, erased)))).toEqual([]);
    // Run again after a crash: nothing left, nothing fails.
    expect((await rights.erase(erased, 'admin-phone')).mediaObjectsDeleted).toBe(0);
  });

  test('the export lists every object of the customer with its key and size', async () => {
    const { media, rights } = world();
    const customerId = newCustomer();
    const object = await media.put(customerId, 'wamid.doc', new Uint8Array(42), 'application/pdf');
    const exported = await rights.export(customerId, 'admin-phone');
    expect(exported.media).toEqual([{ objectKey: object.objectKey, sizeBytes: 42 }]);
  });

  test('an unknown customer id is refused before the bucket is touched: nothing deleted', async () => {
    const { media, rights } = world();
    const customerId = newCustomer();
    await media.put(customerId, 'wamid.keep', new Uint8Array(3), 'image/png');
    await expect(rights.erase('bad#id', 'admin-phone')).rejects.toMatchObject({ code: 'invalid_customer_id' });
    expect(await media.listCustomerObjects(customerId)).toHaveLength(1);
  });
});
