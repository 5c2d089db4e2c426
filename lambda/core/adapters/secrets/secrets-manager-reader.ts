/**
 * A secret's text from AWS Secrets Manager (`GetSecretValue`, AWS JSON 1.1) on
 * {@link signedAwsPost}, cached per execution environment: what Powertools' `SecretsProvider` did
 * for the functions, without the SDK's Secrets Manager client it carried into every bundle
 * (docs/PERFORMANCE.md). The SDK's credentials, endpoint, retry strategy and error names stay.
 */
import { type AwsCallOptions, signedAwsPost, type SignedAwsPost } from '../aws/signed-aws-post';

const SECRETS_MANAGER = { endpointPrefix: 'secretsmanager', signingName: 'secretsmanager', endpointVariable: 'AWS_ENDPOINT_URL_SECRETS_MANAGER' };

/** How a read may use the cache: a value younger than `maxAgeSeconds`, unless `forceFetch`. */
export interface SecretReadOptions {
  readonly maxAgeSeconds: number;
  readonly forceFetch?: boolean;
}

/** Reads secrets' text values, each kept for as long as a read allows. */
export class SecretsManagerReader {
  private readonly post: SignedAwsPost;
  private readonly cache = new Map<string, { readonly value: string; readonly readAt: number }>();

  constructor(
    options: AwsCallOptions = {},
    private readonly now: () => number = Date.now,
  ) {
    this.post = signedAwsPost(SECRETS_MANAGER, options);
  }

  /** The secret's `SecretString` (a binary secret's bytes as UTF-8). */
  async text(secretId: string, { maxAgeSeconds, forceFetch = false }: SecretReadOptions): Promise<string> {
    const cached = this.cache.get(secretId);
    if (!forceFetch && cached !== undefined && this.now() - cached.readAt < maxAgeSeconds * 1000) return cached.value;
    const headers = { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'secretsmanager.GetSecretValue' };
    const answer = await this.post('/', { headers, body: new TextEncoder().encode(JSON.stringify({ SecretId: secretId })) });
    const { SecretString, SecretBinary } = JSON.parse(new TextDecoder().decode(answer.payload)) as { SecretString?: string; SecretBinary?: string };
    const value = SecretString ?? Buffer.from(SecretBinary ?? '', 'base64').toString('utf8');
    this.cache.set(secretId, { value, readAt: this.now() });
    return value;
  }
}
