// The payload hash the console sends with every change: what Lambda checks a CloudFront-signed
// request's body against behind the console's front door.
import { createHash } from 'node:crypto';
import { PAYLOAD_HASH_HEADER, sha256Hex } from '../../console/src/payload-hash';

test.each(['', '{"text":"Olá, já verifico — um instante"}', '{"available":true}'])('the hash of %p is its SHA-256 in lower-case hex, over its UTF-8 bytes', async (body) => {
  expect(await sha256Hex(body)).toBe(createHash('sha256').update(body, 'utf8').digest('hex'));
});

test('it travels in the header Lambda reads for origin access control', () => {
  expect(PAYLOAD_HASH_HEADER).toBe('x-amz-content-sha256');
});
