// An operator's attachment on End User Messaging, as deployed: the operator function uploads the
// object from the media bucket with PostWhatsAppMessageMedia and sends the media message with
// SendWhatsAppMessage, each request checked against its role; the service reads the object from the
// local S3 server and hands Meta the exact bytes.
import { WHATSAPP_CHANNEL_KINDS } from '../../lib/contract';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { newOperatorPhone } from '../support/ids';
import { LAB_REPORT_PDF } from '../support/media-bucket';
import { type ConsoleClient, handedOffCustomer, startStaffedPipeline } from '../support/operator-console-client';

let pipeline: LocalPipeline;
let operator: ConsoleClient;

beforeAll(async () => {
  ({ pipeline, operator } = await startStaffedPipeline(newOperatorPhone(), newOperatorPhone(), { channel: WHATSAPP_CHANNEL_KINDS.endUserMessaging }));
});
afterAll(async () => {
  await pipeline.stop();
});

it('a document goes from the bucket through the service to Meta with its bytes, then as a document message naming the upload', async () => {
  const customer = await handedOffCustomer(pipeline);
  expect((await operator.call('POST', `/api/conversations/${customer}/claim`)).status).toBe(200);

  const answer = await operator.call('POST', `/api/conversations/${customer}/attachments`, undefined, { rawBody: LAB_REPORT_PDF, contentType: 'application/pdf', headers: { 'x-file-name': 'laudo.pdf' } });

  expect(answer.status).toBe(201);
  const upload = pipeline.fakeWhatsApp.uploads().at(-1)!;
  expect({ mimeType: upload.mimeType, same: Buffer.from(upload.bytes).equals(LAB_REPORT_PDF) }).toEqual({ mimeType: 'application/pdf', same: true });
  const sent = pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === customer).at(-1)!;
  expect(sent.media).toEqual({ kind: 'document', mediaId: upload.mediaId, filename: 'laudo.pdf' });
  expect(answer.body.message).toMatchObject({ deliveryStatus: 'sent', media: { kind: 'document', state: 'stored', filename: 'laudo.pdf' } });
});
