// The permission conformance cannot pass without checking: when the roles cannot be synthesized (run
// as one file without the bundles), a pipeline principal's request is answered with the cause, in
// the service's own error shape, and the run's report fails on it instead of printing "No denial".
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { principalCredentials } from '../../local/runtime/function-principals';
import { conformanceReport } from '../support/permissions/conformance-report';
import { type EnforcingProxy, startEnforcingProxy } from '../support/permissions/enforcing-proxy';
import { DEFAULT_VARIANT, LOCAL_SERVER_ENDPOINT_VARIABLES } from '../support/permissions/function-principals';
import { PermissionEvaluator } from '../support/permissions/permission-evaluator';

/** What the synthesizer answers without the bundles (lib/private/function-assets.ts). */
const NOT_SYNTHESIZED = 'Synthesizing cloud-api-noplane-crm-off failed: AgentPipeline: the bundled webhook handler is missing at /package/assets/webhook; run `npm run build` first.';

let evaluator: PermissionEvaluator;
let proxy: EnforcingProxy;

beforeAll(async () => {
  evaluator = new PermissionEvaluator(async () => {
    throw new Error(NOT_SYNTHESIZED);
  });
  proxy = await startEnforcingProxy({ dynamoDb: process.env[LOCAL_SERVER_ENDPOINT_VARIABLES.dynamoDb]!, sqs: process.env[LOCAL_SERVER_ENDPOINT_VARIABLES.sqs]! }, evaluator);
});

afterAll(() => proxy.close());

const asTheWebhook = { region: 'us-east-1', credentials: principalCredentials({ principal: 'webhook', variant: DEFAULT_VARIANT }), maxAttempts: 1 };

test.each([
  ['dynamodb', () => new DynamoDBClient({ ...asTheWebhook, endpoint: proxy.dynamoDbEndpoint }).send(new GetItemCommand({ TableName: 'any', Key: { PK: { S: 'DEBOUNCE#1' }, SK: { S: 'x' } } }))],
  ['sqs', () => new SQSClient({ ...asTheWebhook, endpoint: proxy.sqsEndpoint }).send(new SendMessageCommand({ QueueUrl: `${proxy.sqsEndpoint}/000000000000/any.fifo`, MessageBody: '{}' }))],
  ['s3', () => new S3Client({ ...asTheWebhook, endpoint: proxy.s3Endpoint, forcePathStyle: true }).send(new GetObjectCommand({ Bucket: 'any', Key: 'media/x' }))],
])('a %s request it cannot check is refused with the cause, as the service words an error', async (service, send) => {
  const failure = await send().then(
    () => undefined,
    (error: Error) => error,
  );
  expect(failure?.name).toBe('PermissionCheckUnavailable');
  expect(failure?.message).toMatch(new RegExp(`The permission check failed: The permission check could not evaluate this ${service} \\w+ of webhook \\(cloud-api-noplane-crm-off\\): .*run \`npm run build\` first`));
});

test('the run’s report fails on every request it could not check, naming the cause', async () => {
  const unsynthesized = new PermissionEvaluator(async () => {
    throw new Error(NOT_SYNTHESIZED);
  });
  const call = { identity: { principal: 'webhook', variant: DEFAULT_VARIANT }, service: 'dynamodb', operation: 'PutItem', body: {} } as const;
  for (let request = 0; request < 2; request++) await expect(unsynthesized.check(call)).rejects.toThrow('The permission check could not evaluate this dynamodb PutItem of webhook');
  const { summary, failures } = conformanceReport(unsynthesized.ledger, false);
  expect(failures).toEqual([expect.stringMatching(/^COULD NOT CHECK 2 request\(s\) of webhook \(cloud-api-noplane-crm-off\): Synthesizing cloud-api-noplane-crm-off failed: .*run `npm run build` first/)]);
  expect(summary).toMatch(/, 2 requests that could not be checked$/m);
});
