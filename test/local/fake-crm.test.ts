// The fake CRM is the reference receiver of the signed webhook: it verifies what the client signs
// and keys on the signed idempotency key, so a captured request cannot be turned into a second deal.
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CRM_IDEMPOTENCY_HEADER, CRM_SIGNATURE_HEADER, crmStringToSign, SignedWebhookCrmClient, verifyCrmSignature } from '../../lambda/core/adapters/crm/signed-webhook-crm-client';
import { FakeCrm } from '../../local/fake-crm/fake-crm';
import { PENDING_CRM_REQUEST } from '../support/crm-world';

/** What the client put on the wire, captured by a receiver on 127.0.0.1 that accepts everything. */
async function capturedRequest(secret: string): Promise<{ headers: IncomingHttpHeaders; body: string }> {
  let captured: { headers: IncomingHttpHeaders; body: string } | undefined;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      captured = { headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ contactId: 'c', dealId: 'd' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const client = new SignedWebhookCrmClient({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/crm`, secret: async () => secret });
    expect(await client.send(PENDING_CRM_REQUEST, { timeoutMs: 2_000 })).toMatchObject({ kind: 'accepted' });
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return captured!;
}

async function replay(crm: FakeCrm, captured: { headers: IncomingHttpHeaders; body: string }, headers: Record<string, string> = {}): Promise<number> {
  const response = await fetch(crm.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [CRM_SIGNATURE_HEADER]: String(captured.headers[CRM_SIGNATURE_HEADER]), [CRM_IDEMPOTENCY_HEADER]: String(captured.headers[CRM_IDEMPOTENCY_HEADER]), ...headers },
    body: captured.body,
  });
  await response.arrayBuffer();
  return response.status;
}

test('the signature covers the time, the Idempotency-Key header and the body, as docs/CRM.md defines', async () => {
  const captured = await capturedRequest('s3cret');
  const signature = String(captured.headers[CRM_SIGNATURE_HEADER]);
  const [, t, digest] = /^t=(\d+),v2=([0-9a-f]{64})$/.exec(signature)!;
  expect(captured.headers[CRM_IDEMPOTENCY_HEADER]).toBe(PENDING_CRM_REQUEST.idempotencyKey);
  expect(crmStringToSign(Number(t), 's-1:r-1', captured.body)).toBe(`v2\n${t}\ns-1:r-1\n${captured.body}`);
  expect(createHmac('sha256', 's3cret').update(`v2\n${t}\ns-1:r-1\n${captured.body}`).digest('hex')).toBe(digest);
  const now = Number(t);
  expect(verifyCrmSignature('s3cret', { signature, idempotencyKey: 's-1:r-1', body: captured.body }, now)).toBe(true);
  expect(verifyCrmSignature('s3cret', { signature, idempotencyKey: 's-1:r-2', body: captured.body }, now)).toBe(false);
  expect(verifyCrmSignature('s3cret', { signature, idempotencyKey: 's-1:r-1', body: `${captured.body} ` }, now)).toBe(false);
  expect(verifyCrmSignature('s3cret', { signature, idempotencyKey: 's-1:r-1', body: captured.body }, now + 301)).toBe(false);
  expect(verifyCrmSignature('other', { signature, idempotencyKey: 's-1:r-1', body: captured.body }, now)).toBe(false);
  expect(verifyCrmSignature('s3cret', { signature: signature.replace('v2=', 'v1='), idempotencyKey: 's-1:r-1', body: captured.body }, now)).toBe(false);
});

test('a captured request replayed with another Idempotency-Key is refused: one deal, however it is replayed', async () => {
  const crm = await FakeCrm.start();
  try {
    const captured = await capturedRequest(crm.secret);
    expect(await replay(crm, captured)).toBe(200);
    expect(await replay(crm, captured)).toBe(200);
    expect(await replay(crm, captured, { [CRM_IDEMPOTENCY_HEADER]: 'another-key' })).toBe(401);
    expect(await replay(crm, captured, { [CRM_IDEMPOTENCY_HEADER]: `${PENDING_CRM_REQUEST.idempotencyKey}:again` })).toBe(401);
    expect(crm.deals()).toHaveLength(1);
    expect(crm.received().map((received) => received.handling)).toEqual(['created', 'replayed']);
    expect(crm.badSignatures).toBe(2);
  } finally {
    await crm.close();
  }
});
