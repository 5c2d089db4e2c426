import { WHATSAPP_SECRET_FIELDS, WHATSAPP_SECRET_PLACEHOLDER } from '../../../../lib/contract';
import {
  SecretsManagerCredentialsProvider,
  WhatsAppCredentialsError,
  jsonSecretReader,
  type JsonSecretReader,
} from '../../../../lambda/core/adapters/secrets/secrets-manager-credentials';
import { SecretsManagerReader } from '../../../../lambda/core/adapters/secrets/secrets-manager-reader';
import { FakeSecretsManager } from '../../../../local/fake-aws/fake-secrets-manager';

const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:whatsapp-AbCdEf';
const complete = {
  [WHATSAPP_SECRET_FIELDS.appSecret]: 'app-secret-value',
  [WHATSAPP_SECRET_FIELDS.verifyToken]: 'verify-token-value',
  [WHATSAPP_SECRET_FIELDS.accessToken]: 'access-token-value',
};

function readerOf(value: unknown): JsonSecretReader & { calls: Array<{ secretId: string; maxAgeSeconds: number; forceFetch: boolean }> } {
  const calls: Array<{ secretId: string; maxAgeSeconds: number; forceFetch: boolean }> = [];
  return {
    calls,
    async read(secretId, options) {
      calls.push({ secretId, ...options });
      return value;
    },
  };
}

it('reads the three fields from the JSON secret, cached for 5 minutes by default', async () => {
  const reader = readerOf({ ...complete, rotatedAt: '2026-11-30T00:00:00Z' });

  const credentials = await new SecretsManagerCredentialsProvider({ secretId: SECRET_ARN, reader }).get();

  expect(credentials).toEqual({ appSecret: 'app-secret-value', verifyToken: 'verify-token-value', accessToken: 'access-token-value' });
  expect(reader.calls).toEqual([{ secretId: SECRET_ARN, maxAgeSeconds: 300, forceFetch: false }]);
});

it('bypasses the cache on a forced refresh', async () => {
  const reader = readerOf(complete);

  await new SecretsManagerCredentialsProvider({ secretId: SECRET_ARN, reader, maxAgeSeconds: 60 }).get({ forceRefresh: true });

  expect(reader.calls).toEqual([{ secretId: SECRET_ARN, maxAgeSeconds: 60, forceFetch: true }]);
});

it('names every missing or empty field, never a value', async () => {
  const reader = readerOf({ [WHATSAPP_SECRET_FIELDS.appSecret]: 'app-secret-value', [WHATSAPP_SECRET_FIELDS.verifyToken]: '  ' });

  const failure = new SecretsManagerCredentialsProvider({ secretId: SECRET_ARN, reader }).get();

  await expect(failure).rejects.toThrow(WhatsAppCredentialsError);
  await expect(failure).rejects.toThrow(`WhatsApp secret ${SECRET_ARN} is missing the fields "verifyToken", "accessToken"`);
  await expect(failure).rejects.not.toThrow('app-secret-value');
});

it('names a single missing field', async () => {
  const { accessToken: _omitted, ...withoutToken } = complete;

  await expect(new SecretsManagerCredentialsProvider({ secretId: SECRET_ARN, reader: readerOf(withoutToken) }).get()).rejects.toThrow(
    'is missing the field "accessToken"',
  );
});

it('tells the operator which fields still hold the placeholder the construct wrote', async () => {
  const reader = readerOf({ ...complete, [WHATSAPP_SECRET_FIELDS.accessToken]: WHATSAPP_SECRET_PLACEHOLDER, [WHATSAPP_SECRET_FIELDS.appSecret]: WHATSAPP_SECRET_PLACEHOLDER });

  await expect(new SecretsManagerCredentialsProvider({ secretId: SECRET_ARN, reader }).get()).rejects.toThrow(
    `WhatsApp secret ${SECRET_ARN} still holds the placeholder ${WHATSAPP_SECRET_PLACEHOLDER} in "appSecret", "accessToken"`,
  );
});

it.each([['a string', 'plain-token'], ['an array', [complete]], ['null', null]])('rejects a secret that is %s', async (_kind, value) => {
  await expect(new SecretsManagerCredentialsProvider({ secretId: SECRET_ARN, reader: readerOf(value) }).get()).rejects.toThrow(
    'must be a JSON object with "appSecret", "verifyToken", "accessToken"',
  );
});

it('lets Secrets Manager failures through unchanged', async () => {
  const denied = Object.assign(new Error('not authorized to perform secretsmanager:GetSecretValue'), { name: 'AccessDeniedException' });
  const reader: JsonSecretReader = { read: () => Promise.reject(denied) };

  await expect(new SecretsManagerCredentialsProvider({ secretId: SECRET_ARN, reader }).get()).rejects.toBe(denied);
});

describe('through Secrets Manager (the local stand-in on 127.0.0.1, signed requests)', () => {
  const LOCAL = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
  let secretsManager: FakeSecretsManager;
  let requests = 0;
  beforeAll(async () => {
    secretsManager = await FakeSecretsManager.start({
      secrets: new Map([[SECRET_ARN, JSON.stringify(complete)], [`${SECRET_ARN}-plain`, 'plain-token-value']]),
      permissions: async () => void requests++,
    });
  });
  afterAll(() => secretsManager.close());
  beforeEach(() => (requests = 0));

  it('parses the JSON secret and serves it from the cache until it is older than allowed, or a forced refresh', async () => {
    let now = 0;
    const reader = new SecretsManagerReader({ ...LOCAL, endpoint: secretsManager.endpoint }, () => now);
    const provider = new SecretsManagerCredentialsProvider({ secretId: SECRET_ARN, reader: jsonSecretReader(reader), maxAgeSeconds: 300 });

    await expect(provider.get()).resolves.toMatchObject({ accessToken: 'access-token-value' });
    now = 299_000;
    await provider.get();
    expect(requests).toBe(1);

    await provider.get({ forceRefresh: true });
    expect(requests).toBe(2);
    now = 299_000 + 300_000;
    await provider.get();
    expect(requests).toBe(3);
  });

  it('reports a secret that is not JSON without quoting it', async () => {
    const reader = new SecretsManagerReader({ ...LOCAL, endpoint: secretsManager.endpoint });
    const provider = new SecretsManagerCredentialsProvider({ secretId: `${SECRET_ARN}-plain`, reader: jsonSecretReader(reader) });

    const error = await provider.get().catch((failure: Error) => failure);

    expect(error).toBeInstanceOf(WhatsAppCredentialsError);
    expect((error as Error).message).toBe(`WhatsApp secret ${SECRET_ARN}-plain is not a JSON document`);
  });

  it("passes Secrets Manager's refusal through by its name", async () => {
    const reader = new SecretsManagerReader({ ...LOCAL, endpoint: secretsManager.endpoint });
    await expect(new SecretsManagerCredentialsProvider({ secretId: 'no-such-secret', reader: jsonSecretReader(reader) }).get()).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });
});

it('reads the previous app secret during a rotation, and refuses an unusable one without quoting it', async () => {
  const rotating = await new SecretsManagerCredentialsProvider({ secretId: SECRET_ARN, reader: readerOf({ ...complete, previousAppSecret: 'old-app-secret' }) }).get();
  expect(rotating.previousAppSecret).toBe('old-app-secret');

  const failure = new SecretsManagerCredentialsProvider({ secretId: SECRET_ARN, reader: readerOf({ ...complete, previousAppSecret: 42 }) }).get();
  await expect(failure).rejects.toThrow('"previousAppSecret" that is not a non-empty string');
});
