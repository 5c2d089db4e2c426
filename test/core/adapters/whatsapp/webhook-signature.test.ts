import { sameSecret, signMetaPayload, verifyMetaSignature, verifySignatureWithAnySecret } from '../../../../lambda/core/adapters/whatsapp/webhook-signature';

const secret = 'test-app-secret';
const body = Buffer.from('{"object":"whatsapp_business_account","entry":[]}');

describe('verifyMetaSignature', () => {
  test('accepts the HMAC of the raw bytes, in either hex case', () => {
    const header = signMetaPayload(body, secret);
    expect(verifyMetaSignature(body, header, secret)).toBe('valid');
    expect(verifyMetaSignature(body, header.toUpperCase().replace('SHA256=', 'sha256='), secret)).toBe('valid');
  });

  test.each([undefined, '', '   '])('reports a missing header (%p)', (header) => {
    expect(verifyMetaSignature(body, header, secret)).toBe('missing');
  });

  test('rejects a signature made with another secret', () => {
    expect(verifyMetaSignature(body, signMetaPayload(body, 'other-secret'), secret)).toBe('invalid');
  });

  test('rejects a body changed by one byte', () => {
    const header = signMetaPayload(body, secret);
    const tampered = Buffer.from(body);
    tampered[tampered.length - 2] ^= 1;
    expect(verifyMetaSignature(tampered, header, secret)).toBe('invalid');
  });

  test('rejects a signature of re-serialised JSON (only raw bytes count)', () => {
    const raw = Buffer.from('{ "object" : "whatsapp_business_account" }');
    const header = signMetaPayload(JSON.stringify(JSON.parse(raw.toString())), secret);
    expect(verifyMetaSignature(raw, header, secret)).toBe('invalid');
  });

  test.each(['sha1=abc', 'sha256=', 'sha256=zz', `sha256=${'a'.repeat(63)}`, `sha256=${'a'.repeat(65)}`, `md5=${'a'.repeat(64)}`])(
    'rejects a malformed header %p without throwing',
    (header) => {
      expect(verifyMetaSignature(body, header, secret)).toBe('invalid');
    },
  );
});

describe('sameSecret (the verify-token compare)', () => {
  test('matches equal secrets only, whatever their lengths, without throwing', () => {
    expect(sameSecret('verify-token', 'verify-token')).toBe(true);
    expect(sameSecret('verify-tokeN', 'verify-token')).toBe(false);
    expect(sameSecret('v', 'verify-token')).toBe(false);
    expect(sameSecret('verify-token-and-more', 'verify-token')).toBe(false);
    expect(sameSecret(undefined, 'verify-token')).toBe(false);
  });
});

describe('verifySignatureWithAnySecret (app secret rotation)', () => {
  test('accepts a body signed with the current or the previous secret, nothing else', () => {
    expect(verifySignatureWithAnySecret(body, signMetaPayload(body, 'new'), ['new', secret])).toBe('valid');
    expect(verifySignatureWithAnySecret(body, signMetaPayload(body, secret), ['new', secret])).toBe('valid');
    expect(verifySignatureWithAnySecret(body, signMetaPayload(body, 'other'), ['new', secret])).toBe('invalid');
    expect(verifySignatureWithAnySecret(body, signMetaPayload(body, secret), ['new', undefined])).toBe('invalid');
    expect(verifySignatureWithAnySecret(body, undefined, ['new', secret])).toBe('missing');
  });
});
