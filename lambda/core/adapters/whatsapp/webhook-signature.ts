import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

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

/**
 * {@link verifyMetaSignature} against each secret given (the current app secret, then the previous
 * one while a rotation settles); `undefined` entries are skipped. Valid when any secret signs it.
 */
export function verifySignatureWithAnySecret(rawBody: Buffer, header: string | undefined, appSecrets: ReadonlyArray<string | undefined>): SignatureVerdict {
  let verdict: SignatureVerdict = 'invalid';
  for (const secret of appSecrets) {
    if (secret === undefined) continue;
    verdict = verifyMetaSignature(rawBody, header, secret);
    if (verdict !== 'invalid') return verdict;
  }
  return verdict;
}

/**
 * Compares a presented secret with the expected one in time independent of where they differ: both
 * are hashed first, so the compare runs over equal lengths and leaks neither content nor length.
 */
export function sameSecret(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(presented), digest(expected));
}

/** Signs a body as Meta does; used by the local runtime's CLI and by tests. */
export function signMetaPayload(rawBody: Buffer | string, appSecret: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(rawBody).digest('hex')}`;
}
