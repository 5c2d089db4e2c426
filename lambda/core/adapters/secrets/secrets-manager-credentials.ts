import { WHATSAPP_SECRET_FIELDS, WHATSAPP_SECRET_OPTIONAL_FIELDS, WHATSAPP_SECRET_PLACEHOLDER } from '../../../../lib/contract';
import { PipelineError } from '../../domain/errors';
import type { WhatsAppCredentials, WhatsAppCredentialsProvider } from '../../ports/credentials';
import type { AwsCredentials } from '../aws/aws-identity';
import { SecretsManagerReader } from './secrets-manager-reader';

/** How a function reaches Secrets Manager: its identity and, locally, the endpoint. */
export interface SecretsManagerAccess {
  /** Default: the SDK's default chain (in Lambda, the function's role). */
  readonly credentials?: AwsCredentials;
  /** Default: the SDK's endpoint for the region. */
  readonly endpoint?: string;
}

/** A reader of Secrets Manager (cached per instance), signed and addressed as `access` says. */
export function secretsManagerReader(access: SecretsManagerAccess = {}): SecretsManagerReader {
  return new SecretsManagerReader({ credentials: access.credentials, endpoint: access.endpoint });
}

/** Reads a secret whose value is a JSON document. */
export interface JsonSecretReader {
  read(secretId: string, options: { readonly maxAgeSeconds: number; readonly forceFetch: boolean }): Promise<unknown>;
}

export interface SecretsManagerCredentialsOptions {
  /** ARN (or name) of the secret holding `{appSecret, verifyToken, accessToken}`. */
  readonly secretId: string;
  /** How long a warm Lambda reuses the value before reading Secrets Manager again. Default 300 s. */
  readonly maxAgeSeconds?: number;
  /** Default: a {@link SecretsManagerReader} (cached per execution environment) on `access`, its text read as JSON. */
  readonly reader?: JsonSecretReader;
  /** How the default reader reaches Secrets Manager. */
  readonly access?: SecretsManagerAccess;
}

const DEFAULT_MAX_AGE_SECONDS = 300;

/**
 * The WhatsApp credentials from Secrets Manager (the construct passes the secret's ARN in
 * `WHATSAPP_SECRET_ARN`, read with the deployment's settings; the values never appear in
 * environment variables). Cached for `maxAgeSeconds`; a forced refresh bypasses the cache after
 * Meta rejected a token. Errors name the secret and the missing or still unfilled fields, never a
 * value.
 */
export class SecretsManagerCredentialsProvider implements WhatsAppCredentialsProvider {
  private readonly secretId: string;
  private readonly maxAgeSeconds: number;
  private readonly reader: JsonSecretReader;

  constructor(options: SecretsManagerCredentialsOptions) {
    this.secretId = options.secretId;
    this.maxAgeSeconds = options.maxAgeSeconds ?? DEFAULT_MAX_AGE_SECONDS;
    this.reader = options.reader ?? jsonSecretReader(secretsManagerReader(options.access));
  }

  async get(options?: { readonly forceRefresh?: boolean }): Promise<WhatsAppCredentials> {
    const value = await this.reader.read(this.secretId, { maxAgeSeconds: this.maxAgeSeconds, forceFetch: options?.forceRefresh ?? false });
    return parseWhatsAppCredentials(this.secretId, value);
  }
}

/** A {@link SecretsManagerReader}'s text as JSON. */
export function jsonSecretReader(reader: SecretsManagerReader): JsonSecretReader {
  return {
    read: async (secretId, options) => {
      const text = await reader.text(secretId, options);
      try {
        return JSON.parse(text) as unknown;
      } catch {
        // A JSON parse error quotes the offending text — part of the secret — so it is not kept as the cause.
        throw new WhatsAppCredentialsError(`WhatsApp secret ${secretId} is not a JSON document`);
      }
    },
  };
}

/** The WhatsApp secret is missing, malformed or incomplete. */
export class WhatsAppCredentialsError extends PipelineError {
  override readonly name = 'WhatsAppCredentialsError';
  override readonly code = 'invalid_whatsapp_credentials';
  override readonly retryable = false;
}

function parseWhatsAppCredentials(secretId: string, value: unknown): WhatsAppCredentials {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new WhatsAppCredentialsError(`WhatsApp secret ${secretId} must be a JSON object with ${fieldList(Object.values(WHATSAPP_SECRET_FIELDS))}`);
  }
  const document = value as Record<string, unknown>;
  const missing = Object.values(WHATSAPP_SECRET_FIELDS).filter((field) => {
    const fieldValue = document[field];
    return typeof fieldValue !== 'string' || fieldValue.trim() === '';
  });
  if (missing.length > 0) {
    throw new WhatsAppCredentialsError(
      `WhatsApp secret ${secretId} is missing ${missing.length === 1 ? 'the field' : 'the fields'} ${fieldList(missing)} (non-empty strings)`,
    );
  }
  // The construct creates the secret with placeholders; only the operator can fill in Meta's values.
  const unfilled = Object.values(WHATSAPP_SECRET_FIELDS).filter((field) => document[field] === WHATSAPP_SECRET_PLACEHOLDER);
  if (unfilled.length > 0) {
    throw new WhatsAppCredentialsError(
      `WhatsApp secret ${secretId} still holds the placeholder ${WHATSAPP_SECRET_PLACEHOLDER} in ${fieldList(unfilled)}: ` +
        'set the values from the Meta app dashboard',
    );
  }
  const previousAppSecret = document[WHATSAPP_SECRET_OPTIONAL_FIELDS.previousAppSecret];
  if (previousAppSecret !== undefined && (typeof previousAppSecret !== 'string' || previousAppSecret.trim() === '')) {
    throw new WhatsAppCredentialsError(
      `WhatsApp secret ${secretId} has a "${WHATSAPP_SECRET_OPTIONAL_FIELDS.previousAppSecret}" that is not a non-empty string: remove it or set the previous app secret`,
    );
  }
  return {
    appSecret: document[WHATSAPP_SECRET_FIELDS.appSecret] as string,
    ...(previousAppSecret === undefined ? {} : { previousAppSecret }),
    verifyToken: document[WHATSAPP_SECRET_FIELDS.verifyToken] as string,
    accessToken: document[WHATSAPP_SECRET_FIELDS.accessToken] as string,
  };
}

function fieldList(fields: readonly string[]): string {
  return fields.map((field) => `"${field}"`).join(', ');
}
