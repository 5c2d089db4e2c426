// An operator sends an image or a document on the local runtime: the file goes into the media bucket
// on the local S3 server under the customer's prefix, the fake Graph API receives the multipart
// upload with the exact bytes and then the image message naming that upload, the history shows it
// as the operator's, and an erasure removes the object. A refused file writes nothing at all.
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { LAB_REPORT_PDF, mediaObjectKeys, ONE_PIXEL_PNG } from '../support/media-bucket';
import { newOperatorPhone } from '../support/ids';
import type { tableRepositories } from '../support/dynamo-table';
import { type ApiAnswer, type ConsoleClient, handedOffCustomer, startStaffedPipeline } from '../support/operator-console-client';
import { backdateCustomerMessages } from '../support/service-window';

let pipeline: LocalPipeline;
let repositories: ReturnType<typeof tableRepositories>;
let admin: ConsoleClient;
let operator: ConsoleClient;
const adminPhone = newOperatorPhone();
const operatorPhone = newOperatorPhone();

beforeAll(async () => {
  ({ pipeline, repositories, admin, operator } = await startStaffedPipeline(adminPhone, operatorPhone));
});
afterAll(async () => {
  await pipeline.stop();
});

/** A customer waiting for a person, claimed by `by`. */
async function claimedCustomer(by: ConsoleClient = operator, options: { readonly quiet?: boolean } = {}): Promise<string> {
  const customer = await handedOffCustomer(pipeline);
  if (options.quiet) await backdateCustomerMessages(repositories, customer);
  expect((await by.call('POST', `/api/conversations/${customer}/claim`)).status).toBe(200);
  return customer;
}

function attach(customer: string, bytes: Uint8Array, contentType: string, headers: Record<string, string> = {}, by: ConsoleClient = operator): Promise<ApiAnswer> {
  return by.call('POST', `/api/conversations/${customer}/attachments`, undefined, { rawBody: bytes, contentType, headers });
}

it('an image goes to the bucket, to the Graph API as an upload with its bytes, then as an image message naming the upload; the history shows it', async () => {
  const customer = await claimedCustomer();

  const answer = await attach(customer, ONE_PIXEL_PNG, 'image/png');

  expect(answer.status).toBe(201);
  expect(answer.body.message).toMatchObject({ role: 'operator', direction: 'outbound', deliveryStatus: 'sent', text: '[image]', media: { kind: 'image', state: 'stored', mimeType: 'image/png', sizeBytes: ONE_PIXEL_PNG.byteLength } });
  const upload = pipeline.fakeWhatsApp.uploads().at(-1)!;
  expect(upload.mimeType).toBe('image/png');
  expect(Buffer.from(upload.bytes).equals(ONE_PIXEL_PNG)).toBe(true);
  const sent = pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === customer).at(-1)!;
  expect(sent.media).toEqual({ kind: 'image', mediaId: upload.mediaId });

  const { history } = await pipeline.conversation(customer);
  const stored = history.find((message) => message.messageId === answer.body.message.messageId)!;
  expect(stored).toMatchObject({ role: 'operator', operatorPhone, deliveryStatus: 'sent', providerMessageId: sent.providerMessageId, media: { kind: 'image', state: 'stored' } });
  expect(await mediaObjectKeys(pipeline)).toContain(stored.media!.objectKey);
  // The operator opens it as any attachment of the conversation.
  const link = await operator.call('GET', `/api/conversations/${customer}/messages/${encodeURIComponent(stored.messageId)}/media?at=${encodeURIComponent(answer.body.message.at)}`);
  expect(link.status).toBe(200);
  expect(Buffer.from(await (await fetch(link.body.url)).arrayBuffer()).equals(ONE_PIXEL_PNG)).toBe(true);
});

it('a document is sent with its file name', async () => {
  const customer = await claimedCustomer();

  const answer = await attach(customer, LAB_REPORT_PDF, 'application/pdf', { 'x-file-name': encodeURIComponent('receita médica.pdf') });

  expect(answer.status).toBe(201);
  expect(answer.body.message).toMatchObject({ text: '[document] receita médica.pdf', media: { kind: 'document', filename: 'receita médica.pdf' } });
  const sent = pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === customer).at(-1)!;
  expect(sent.media).toMatchObject({ kind: 'document', filename: 'receita médica.pdf' });
});

it('a refused file writes nothing: no object, no history entry, and the refusal says why', async () => {
  const customer = await claimedCustomer();
  const objectsBefore = await mediaObjectKeys(pipeline);
  const historyBefore = (await pipeline.conversation(customer)).history.length;
  const uploadsBefore = pipeline.fakeWhatsApp.uploads().length;

  const refusals = [
    [await attach(customer, new Uint8Array(), 'image/png'), 400, 'attachment_missing'],
    [await attach(customer, Buffer.from('GIF89a'), 'image/gif'), 415, 'attachment_type_not_allowed'],
    [await attach(customer, Buffer.from('not a png at all'), 'image/png'), 415, 'attachment_not_of_its_type'],
    [await attach(customer, Buffer.concat([LAB_REPORT_PDF, Buffer.alloc(4 * 1024 * 1024)]), 'application/pdf'), 413, 'attachment_too_large'],
    [await attach(customer, LAB_REPORT_PDF, 'application/pdf', { 'x-file-name': encodeURIComponent('../../etc/passwd') }), 400, 'attachment_file_name'],
    // A right-to-left override: the customer's phone would show "faturaexe.pdf".
    [await attach(customer, LAB_REPORT_PDF, 'application/pdf', { 'x-file-name': encodeURIComponent('fatura\u202Efdp.exe') }), 400, 'attachment_file_name'],
    [await attach(customer, LAB_REPORT_PDF, 'application/pdf', { 'x-file-name': encodeURIComponent('laudo\u200B.pdf') }), 400, 'attachment_file_name'],
  ] as const;

  for (const [answer, status, problem] of refusals) {
    expect({ status: answer.status, problem: answer.body.problem?.code }).toEqual({ status, problem });
  }
  expect(await mediaObjectKeys(pipeline)).toEqual(objectsBefore);
  expect((await pipeline.conversation(customer)).history).toHaveLength(historyBefore);
  expect(pipeline.fakeWhatsApp.uploads()).toHaveLength(uploadsBefore);
});

it("only the conversation's operator sends, and only inside the 24-hour window, with the reply's refusal codes", async () => {
  const theirs = await claimedCustomer(admin);
  const objectsBefore = await mediaObjectKeys(pipeline);
  expect(await attach(theirs, ONE_PIXEL_PNG, 'image/png')).toMatchObject({ status: 403, body: { error: 'forbidden' } });

  const quiet = await claimedCustomer(operator, { quiet: true });
  expect(await attach(quiet, ONE_PIXEL_PNG, 'image/png')).toMatchObject({ status: 422, body: { error: 'outside_window' } });
  expect(await mediaObjectKeys(pipeline)).toEqual(objectsBefore);
});

it("an erasure removes the attachment an operator sent with the customer's other objects", async () => {
  const customer = await claimedCustomer();
  const answer = await attach(customer, ONE_PIXEL_PNG, 'image/png');
  const { history } = await pipeline.conversation(customer);
  const objectKey = history.find((message) => message.messageId === answer.body.message.messageId)!.media!.objectKey!;
  expect(await mediaObjectKeys(pipeline)).toContain(objectKey);

  expect((await admin.call('POST', `/api/admin/customers/${customer}/erase`, { confirm: customer })).status).toBe(200);

  expect(await mediaObjectKeys(pipeline)).not.toContain(objectKey);
});
