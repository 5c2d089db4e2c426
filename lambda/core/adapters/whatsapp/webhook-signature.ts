import { createHmac, timingSafeEqual } from 'node:crypto';

export type SignatureVerdict = 'valid' | 'missing' | 'invalid';

const SIGNATURE_PATTERN = /^sha256=([0-9a-f]{64})$/i;

/**
 * Checks Meta's `X-Hub-Signature-256` header: `sha256=` + hex HMAC-SHA256 of the raw request bytes
 * keyed with the app secret. The raw bytes matter: re-serialised JSON would not match.
 */
export function verifyMetaSignature(rawBody: Buffer, header: string | undefined, appSecret: string): SignatureVerdict {
  if (header === undefined || header.trim() === '') return 'missing';
  const match = SIGNATURE_PATTERN.exec(header.trim());
  if (!match) return 'invalid';
  const expected = createHmac('sha256', appSecret).update(rawBody).digest();
  const received = Buffer.from(match[1], 'hex');
  // Both are 32 bytes here (the pattern guarantees it), so the compare runs in constant time.
  return timingSafeEqual(expected, received) ? 'valid' : 'invalid';
}

/** Signs a body as Meta does; used by the local runtime's CLI and by tests. */
export function signMetaPayload(rawBody: Buffer | string, appSecret: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(rawBody).digest('hex')}`;
}
