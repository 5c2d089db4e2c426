import { relative, join } from 'node:path';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { AwsCredentialIdentity } from '@smithy/types';
import { createDocumentClient, type DynamoDocuments } from '../../../lambda/core/adapters/dynamodb/dynamo-kit';
import { SignedSqs, type SqsApi } from '../../../lambda/core/adapters/sqs/sqs-api';
import type { AwsPermissionCheck } from '../../../local/fake-aws/permission-check';
import { type DeploymentVariant, type PipelinePrincipal, principalCredentials } from '../../../local/runtime/function-principals';

/** How a suite names itself in its principals' session token. */
export const SUITE_TOKEN_PREFIX = 'suite:';

/** Where the run's permission check answers the local stand-ins of AWS services (set by the global setup). */
export const PERMISSION_CHECK_URL_VARIABLE = 'PIPELINE_PERMISSION_CHECK_URL';

/** Where DynamoDB Local and the SQS emulator themselves answer, behind the proxy the SDK is pointed at (set by the global setup). */
export const LOCAL_SERVER_ENDPOINT_VARIABLES = { dynamoDb: 'LOCAL_DYNAMODB_ENDPOINT', sqs: 'LOCAL_SQS_EMULATOR_ENDPOINT' } as const;

/** The deployment a suite that composes functions by hand plays: Cloud API, no operator plane, no CRM sync. */
export const DEFAULT_VARIANT: DeploymentVariant = { channel: 'cloud-api', operatorPlane: false, crmSync: 'off' };

const ROOT = join(__dirname, '..', '..', '..');

/** `suite:test/e2e/conversation.test.ts`: the running suite, as its principals' session token names it. */
export function suiteSessionToken(): string | undefined {
  const testPath = expect.getState().testPath;
  return testPath === undefined ? undefined : `${SUITE_TOKEN_PREFIX}${relative(ROOT, testPath)}`;
}

/** The credentials `principal` of `variant` signs with in the running suite. */
export function principalIdentity(principal: PipelinePrincipal, variant: DeploymentVariant = DEFAULT_VARIANT): AwsCredentialIdentity {
  return principalCredentials({ principal, variant }, suiteSessionToken());
}

/** What a composer is handed so that the function signs as itself (its requests are checked against its role). */
export function principalPorts(principal: PipelinePrincipal, variant: DeploymentVariant = DEFAULT_VARIANT): { readonly awsCredentials: AwsCredentialIdentity } {
  return { awsCredentials: principalIdentity(principal, variant) };
}

/** Clients signed as `principal`, for suites that assemble a function's use cases by hand (the reliability harness, the redrive). */
export interface PrincipalClients {
  readonly documentClient: DynamoDocuments;
  /** The SDK's client, for a test's own calls to the queues as the principal. */
  readonly sqs: SQSClient;
  /** What the functions call the queues with, signed as the principal. */
  readonly queues: SqsApi;
  destroy(): void;
}

export function principalClients(principal: PipelinePrincipal, variant: DeploymentVariant = DEFAULT_VARIANT): PrincipalClients {
  const credentials = principalIdentity(principal, variant);
  const documentClient = createDocumentClient({ credentials });
  const sqs = new SQSClient({ credentials });
  return { documentClient, sqs, queues: new SignedSqs({ credentials }), destroy: () => sqs.destroy() };
}

/** The run's permission check for the local stand-ins (Secrets Manager, End User Messaging), when the global setup started one. */
export function permissionCheck(): AwsPermissionCheck | undefined {
  const url = process.env[PERMISSION_CHECK_URL_VARIABLE];
  if (url === undefined) return undefined;
  return async (request) => {
    const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
    if (!answer.ok) throw new Error(`The permission check answered HTTP ${answer.status}: ${await answer.text()}`);
    return ((await answer.json()) as { refusal?: string }).refusal;
  };
}
