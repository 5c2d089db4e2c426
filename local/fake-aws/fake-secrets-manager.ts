import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type LoopbackServer, serveOnLoopback } from './loopback-server';
import { sendAwsJson } from './service-answers';
import type { AwsPermissionCheck } from './permission-check';
import { readBody } from './request-body';

export interface FakeSecretsManagerOptions {
  /** Secret ARN → its text value. A request may name a secret by its ARN or by its name. */
  readonly secrets: ReadonlyMap<string, string>;
  /** Checks each request as IAM would. Default: everything is allowed. */
  readonly permissions?: AwsPermissionCheck;
  /** Default: a free port. */
  readonly port?: number;
}

/**
 * A stand-in for AWS Secrets Manager on 127.0.0.1, as far as the pipeline uses it: `GetSecretValue`
 * and `PutSecretValue` (AWS JSON 1.1), answered with the service's shapes, so the real
 * `SecretsManagerCredentialsProvider`, the CRM webhook's secret reader and the Meta set-up command
 * run unchanged against it — with the caller's own signed identity, which the optional permission
 * check sees.
 */
export class FakeSecretsManager {
  static async start(options: FakeSecretsManagerOptions): Promise<FakeSecretsManager> {
    const fake = new FakeSecretsManager(options);
    fake.http = await serveOnLoopback(
      (request, response) => fake.handle(request, response),
      (response, error) => serviceException(response, 500, 'InternalServiceError', `Fake Secrets Manager failure: ${String(error)}`),
      options.port,
    );
    return fake;
  }

  private http!: LoopbackServer;
  private readonly versionIds = new Map<string, string>();
  private readonly values: Map<string, string>;
  private writes = 0;

  private constructor(private readonly options: FakeSecretsManagerOptions) {
    this.values = new Map(options.secrets);
  }

  /** The current text value of a secret, by ARN or name (`undefined`: no such secret). */
  secretString(secretId: string): string | undefined {
    const arn = this.arnOf(secretId);
    return arn === undefined ? undefined : this.values.get(arn);
  }

  /** How many `PutSecretValue` calls changed a value. */
  get writeCount(): number {
    return this.writes;
  }

  /** The endpoint to give the SDK client, e.g. `http://127.0.0.1:43210`. */
  get endpoint(): string {
    return this.http.endpoint;
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readBody(request);
    const target = String(request.headers['x-amz-target'] ?? '');
    const operation = OPERATIONS.find((name) => target === `secretsmanager.${name}`);
    if (request.method !== 'POST' || operation === undefined) {
      serviceException(response, 400, 'InvalidRequestException', `Unsupported operation ${target || `${request.method} ${request.url}`}`);
      return;
    }
    if (!request.headers.authorization?.startsWith('AWS4-HMAC-SHA256 ')) {
      serviceException(response, 400, 'UnrecognizedClientException', 'The request was not signed with AWS credentials');
      return;
    }
    const refusal = await this.options.permissions?.({ service: 'secretsmanager', method: request.method, path: request.url ?? '/', headers: request.headers, body });
    if (refusal !== undefined) {
      serviceException(response, 400, 'AccessDeniedException', refusal);
      return;
    }
    const input = JSON.parse(body || '{}') as { SecretId?: unknown; SecretString?: unknown };
    const arn = typeof input.SecretId === 'string' ? this.arnOf(input.SecretId) : undefined;
    if (arn === undefined) {
      serviceException(response, 400, 'ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
      return;
    }
    if (operation === 'PutSecretValue') {
      if (typeof input.SecretString !== 'string' || input.SecretString === '') {
        serviceException(response, 400, 'InvalidParameterException', 'You must provide either SecretString or SecretBinary.');
        return;
      }
      this.values.set(arn, input.SecretString);
      this.versionIds.set(arn, randomUUID());
      this.writes++;
      sendAwsJson(response, 200, { ARN: arn, Name: secretName(arn), VersionId: this.versionIds.get(arn), VersionStages: ['AWSCURRENT'] });
      return;
    }
    const versionId = this.versionIds.get(arn) ?? randomUUID();
    this.versionIds.set(arn, versionId);
    sendAwsJson(response, 200, {
      ARN: arn,
      Name: secretName(arn),
      SecretString: this.values.get(arn),
      VersionId: versionId,
      VersionStages: ['AWSCURRENT'],
      CreatedDate: Math.floor(Date.now() / 1000),
    });
  }

  private arnOf(secretId: string): string | undefined {
    return [...this.values.keys()].find((candidate) => candidate === secretId || secretName(candidate) === secretId);
  }
}

const OPERATIONS = ['GetSecretValue', 'PutSecretValue'] as const;

/** The name part of a secret ARN (`arn:aws:secretsmanager:region:account:secret:name`). */
function secretName(arn: string): string {
  return arn.split(':secret:')[1] ?? arn;
}

function serviceException(response: ServerResponse, status: number, type: string, message: string): void {
  sendAwsJson(response, status, { __type: type, message });
}
