// The permission check against a synthesized variant: the requests the pipeline makes are allowed
// by today's roles, and each is denied — with AWS's message — once the one action it needs is
// removed from the role. What the run-wide check (the jest global setup) relies on.
import { LOCAL_KNOWLEDGE_BASE_ID } from '../../local/fake-bedrock/fake-knowledge-base';
import { LOCAL_LINKED_BUSINESS_ACCOUNT_ID } from '../../local/fake-whatsapp/fake-end-user-messaging';
import { LOCAL_ORIGINATION_PHONE_NUMBER_ID } from '../../local/runtime/end-user-messaging-event';
import type { PipelinePrincipal, PrincipalIdentity } from '../../local/runtime/function-principals';
import { RUNTIME_ENV } from '../../lib/contract';
import { CONFORMANCE_PLACE, type DeploymentPermissions, deploymentPermissions } from '../support/permissions/deployment-permissions';
import { LOCAL_BEDROCK_MODEL_ID, localToolFunctionName } from '../../local/runtime/local-plan';
import { agentServiceCall } from '../support/permissions/agent-iam-requests';
import { endUserMessagingCall, type EvaluatedService, s3Call, s3IamRequests } from '../support/permissions/iam-requests';
import { knowledgeBaseCall } from '../support/permissions/knowledge-base-requests';
import { evaluate, PermissionEvaluator } from '../support/permissions/permission-evaluator';
import { synthesizeDeployment } from '../support/permissions/synthesize-deployment';
import { TemplateIntrinsics } from '../support/permissions/template-intrinsics';

const variant = { channel: 'cloud-api', operatorPlane: true, crmSync: 'webhook' } as const;
/** The template reads on the linked account exist only on this channel. */
const endUserMessagingVariant = { channel: 'end-user-messaging', operatorPlane: true, crmSync: 'off' } as const;
let deployment: DeploymentPermissions;
let endUserMessagingDeployment: DeploymentPermissions;

/** The evaluator function's name as CloudFormation resolves the operator function's variable. */
let evaluatorName: string;

beforeAll(() => {
  const synthesized = synthesizeDeployment(variant);
  deployment = deploymentPermissions(synthesized);
  evaluatorName = new TemplateIntrinsics(synthesized.template, { ...CONFORMANCE_PLACE, stackName: synthesized.stackName }).resolve(synthesized.told.operator.environment[RUNTIME_ENV.evaluatorFunctionName]) as string;
  endUserMessagingDeployment = deploymentPermissions(synthesizeDeployment(endUserMessagingVariant));
}, 120_000);

/** The deployment with `action` taken out of every statement of `principal`'s role. */
function without(principal: PipelinePrincipal, action: string, deployment: DeploymentPermissions): DeploymentPermissions {
  const role = deployment.roles.get(principal)!;
  const policies = role.policies.map(({ name, policy }) => ({
    name,
    policy: {
      ...policy,
      Statement: policy.Statement.flatMap((statement) => {
        const remaining = [statement.Action].flat().filter((granted) => granted !== action);
        return remaining.length === 0 ? [] : [{ ...statement, Action: remaining }];
      }),
    },
  }));
  return { ...deployment, roles: new Map([...deployment.roles, [principal, { ...role, policies }]]) };
}

const S = (value: string) => ({ S: value });
/** The local runtime's media bucket (`{table}-media`) and an object in it, as the adapter addresses them path-style. */
const LOCAL_MEDIA_BUCKET = 'gogenetic-agent-e2e1-media';
const MEDIA_OBJECT = `/${LOCAL_MEDIA_BUCKET}/media/p/wamid.HBgM%2Bab%3D`;
const S_KEY = (pk: string) => ({ PK: S(pk), SK: S('x') });

const VOICE_NOTE_JOB = { TranscriptionJobName: 'voice-5f2b', LanguageCode: 'pt-BR', Media: { MediaFileUri: 's3://local-media/media/pseudonym/wamid.VOICE' } };

/** Requests the pipeline makes (the export batch-gets what the customer's references name), each with the one action its role must grant. */
const REQUESTS: readonly { principal: PipelinePrincipal; service: EvaluatedService; operation: string; body: Record<string, unknown>; action: string; onEndUserMessaging?: true }[] = [
  { principal: 'webhook', service: 'dynamodb', operation: 'TransactWriteItems', body: { TransactItems: [{ Put: { Item: S_KEY('DEBOUNCE#5511') } }] }, action: 'dynamodb:PutItem' },
  { principal: 'webhook', service: 'sqs', operation: 'SendMessage', body: { QueueUrl: 'http://127.0.0.1/000000000000/gogenetic-agent-debounce-e2e1.fifo' }, action: 'sqs:SendMessage' },
  { principal: 'orchestrator', service: 'sqs', operation: 'ReceiveMessage', body: { QueueUrl: 'http://127.0.0.1/000000000000/gogenetic-agent-debounce-e2e1.fifo' }, action: 'sqs:ReceiveMessage' },
  { principal: 'operator', service: 'dynamodb', operation: 'DeleteItem', body: { Key: S_KEY('SESSION#5511') }, action: 'dynamodb:DeleteItem' },
  { principal: 'operator', service: 'dynamodb', operation: 'BatchGetItem', body: { RequestItems: { t: { Keys: [S_KEY('CRM_SYNC#s-1'), S_KEY('DEMAND#OOP')] } } }, action: 'dynamodb:BatchGetItem' },
  // Transcribe reads the voice note it is asked to transcribe with the orchestrator's own permissions.
  { principal: 'orchestrator', service: 'transcribe', operation: 'StartTranscriptionJob', body: VOICE_NOTE_JOB, action: 's3:GetObject' },
  ...(['GetTranscriptionJob', 'DeleteTranscriptionJob'] as const).map((operation) => ({ principal: 'orchestrator' as const, service: 'transcribe' as const, operation, body: { TranscriptionJobName: VOICE_NOTE_JOB.TranscriptionJobName }, action: `transcribe:${operation}` })),
  // The jobs that outlive their turn: the idle sweep and the erasures list them and delete the ended ones.
  ...(['idle-sweeper', 'operator', 'customer-data'] as const).flatMap((principal) => [
    { principal, service: 'transcribe' as const, operation: 'ListTranscriptionJobs', body: { JobNameContains: 'voice-' }, action: 'transcribe:ListTranscriptionJobs' },
    { principal, service: 'transcribe' as const, operation: 'DeleteTranscriptionJob', body: { TranscriptionJobName: VOICE_NOTE_JOB.TranscriptionJobName }, action: 'transcribe:DeleteTranscriptionJob' },
  ]),
  // The agent's search of the knowledge base it was given.
  { principal: 'orchestrator', service: 'bedrock', ...knowledgeBaseCall(`/knowledgebases/${LOCAL_KNOWLEDGE_BASE_ID}/retrieve`), action: 'bedrock:Retrieve' },
  { principal: 'crm-sync', service: 'secretsmanager', operation: 'GetSecretValue', body: { SecretId: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:local-crm-webhook' }, action: 'secretsmanager:GetSecretValue' },
  ...(
    [
      ['orchestrator', s3Call('PUT', MEDIA_OBJECT), 's3:PutObject'],
      ['orchestrator', s3Call('GET', MEDIA_OBJECT), 's3:GetObject'],
      ['operator', s3Call('GET', `${MEDIA_OBJECT}?X-Amz-Expires=300`), 's3:GetObject'],
      ['operator', s3Call('GET', `/${LOCAL_MEDIA_BUCKET}?list-type=2&prefix=media%2Fp%2F`), 's3:ListBucket'],
      ['customer-data', s3Call('POST', `/${LOCAL_MEDIA_BUCKET}?delete=`, '<Delete><Object><Key>media/p/wamid.1</Key></Object></Delete>'), 's3:DeleteObject'],
    ] as const
  ).map(([principal, { operation, body }, action]) => ({ principal, service: 's3' as const, operation, body, action })),
  ...(['handoff-sweeper', 'operator'] as const).flatMap((principal) =>
    [
      endUserMessagingCall(`/v1/whatsapp/template/list?id=${LOCAL_LINKED_BUSINESS_ACCOUNT_ID}&maxResults=100`, {}),
      endUserMessagingCall(`/v1/whatsapp/template?id=${LOCAL_LINKED_BUSINESS_ACCOUNT_ID}&metaTemplateId=900000000000`, {}),
    ].map(({ operation, body }) => ({ principal, service: 'social-messaging' as const, operation, body, action: `social-messaging:${operation}`, onEndUserMessaging: true as const })),
  ),
  // A customer's attachment: its metadata alone, then the service writing it into the media bucket as the orchestrator.
  ...[
    { action: 'social-messaging:GetWhatsAppMessageMedia', body: { mediaId: '1234567890', originationPhoneNumberId: LOCAL_ORIGINATION_PHONE_NUMBER_ID, metadataOnly: true } },
    ...['social-messaging:GetWhatsAppMessageMedia', 's3:PutObject', 'kms:GenerateDataKey'].map((action) => ({
      action,
      body: { mediaId: '1234567890', originationPhoneNumberId: LOCAL_ORIGINATION_PHONE_NUMBER_ID, destinationS3File: { bucketName: 'local-media', key: 'media/pseudonym/wamid.1/' } },
    })),
  ].map(({ action, body }) => ({ principal: 'orchestrator' as const, service: 'social-messaging' as const, ...endUserMessagingCall('/v1/whatsapp/media/get', body), action, onEndUserMessaging: true as const })),
  // The agent's model and the business's tool, as the orchestrator's own clients call them.
  { principal: 'orchestrator', service: 'bedrock', ...agentServiceCall('bedrock', `/model/${encodeURIComponent(LOCAL_BEDROCK_MODEL_ID)}/converse`, {}), action: 'bedrock:InvokeModel' },
  { principal: 'orchestrator', service: 'lambda', ...agentServiceCall('lambda', `/2015-03-31/functions/${localToolFunctionName('create_order')}/invocations`, {}), action: 'lambda:InvokeFunction' },
  // An operator's attachment: the service reading it from the media bucket as the operator.
  ...['social-messaging:PostWhatsAppMessageMedia', 's3:GetObject', 'kms:Decrypt'].map((action) => ({
    principal: 'operator' as const,
    service: 'social-messaging' as const,
    ...endUserMessagingCall('/v1/whatsapp/media', { originationPhoneNumberId: LOCAL_ORIGINATION_PHONE_NUMBER_ID, sourceS3File: { bucketName: 'local-media', key: 'media/pseudonym/op-1' } }),
    action,
    onEndUserMessaging: true as const,
  })),
];

const identity = (principal: PipelinePrincipal, onEndUserMessaging = false): PrincipalIdentity => ({ principal, variant: onEndUserMessaging ? endUserMessagingVariant : variant });

describe.each(REQUESTS)('$principal $service $operation', ({ principal, service, operation, body, action, onEndUserMessaging }) => {
  const deployed = () => (onEndUserMessaging ? endUserMessagingDeployment : deployment);

  test(`is allowed by the synthesized role`, async () => {
    expect(await new PermissionEvaluator(async () => deployed()).check({ identity: identity(principal, onEndUserMessaging), service, operation, body })).toBeUndefined();
  });

  test(`is denied, as AWS words it, once ${action} is removed from the ${principal} role`, async () => {
    const evaluator = new PermissionEvaluator(async () => without(principal, action, deployed()));
    const refusal = await evaluator.check({ identity: identity(principal, onEndUserMessaging), service, operation, body, suite: 'demonstration' });
    expect(refusal).toMatch(new RegExp(`^User: arn:aws:sts::123456789012:assumed-role/\\w+/${principal} is not authorized to perform: ${action} on resource: (arn:aws:|\\* )`));
    const [denial] = evaluator.ledger.denials.values();
    expect(denial).toMatchObject({ principal, action, result: 'ImplicitlyDenied', suites: new Set(['demonstration']) });
    process.stdout.write(`${principal} without ${action}: ${refusal}\n`);
  });
});

test('only the orchestrator starts or reads a job; the sweep and the erasures may delete only the pipeline’s own jobs', async () => {
  const evaluator = new PermissionEvaluator(async () => deployment);
  const call = (principal: PipelinePrincipal, operation: string, body: Record<string, unknown>) => evaluator.check({ identity: identity(principal), service: 'transcribe', operation, body });
  for (const principal of ['idle-sweeper', 'operator', 'customer-data'] as const) {
    expect(await call(principal, 'StartTranscriptionJob', VOICE_NOTE_JOB)).toMatch(/transcribe:StartTranscriptionJob/);
    expect(await call(principal, 'GetTranscriptionJob', { TranscriptionJobName: 'voice-5f2b' })).toMatch(/transcribe:GetTranscriptionJob/);
    expect(await call(principal, 'DeleteTranscriptionJob', { TranscriptionJobName: 'another-apps-job' })).toMatch(/transcribe:DeleteTranscriptionJob on resource: arn:aws:transcribe:us-east-1:123456789012:transcription-job\/another-apps-job/);
  }
  for (const principal of ['webhook', 'handoff-sweeper', 'crm-sync', 'redrive'] as const) expect(await call(principal, 'ListTranscriptionJobs', { JobNameContains: 'voice-' })).toMatch(/transcribe:ListTranscriptionJobs/);
});

test('a transcription job is started on *, the only resource IAM knows for it: without the grant the orchestrator is refused', async () => {
  const call = { identity: identity('orchestrator'), service: 'transcribe', operation: 'StartTranscriptionJob', body: VOICE_NOTE_JOB } as const;
  expect(await new PermissionEvaluator(async () => deployment).check(call)).toBeUndefined();
  const refusal = await new PermissionEvaluator(async () => without('orchestrator', 'transcribe:StartTranscriptionJob', deployment)).check(call);
  expect(refusal).toMatch(/^User: arn:aws:sts::123456789012:assumed-role\/\w+\/orchestrator is not authorized to perform: transcribe:StartTranscriptionJob on resource: \* because no identity-based policy allows/);
});

test('Retrieve is granted on the agent’s knowledge base only, and to the orchestrator only', async () => {
  const evaluator = new PermissionEvaluator(async () => deployment);
  const retrieve = (principal: PipelinePrincipal, knowledgeBaseId: string) => evaluator.check({ identity: identity(principal), service: 'bedrock', ...knowledgeBaseCall(`/knowledgebases/${knowledgeBaseId}/retrieve`) });
  expect(await retrieve('orchestrator', LOCAL_KNOWLEDGE_BASE_ID)).toBeUndefined();
  expect(await retrieve('orchestrator', 'KBOTHER001')).toMatch(/not authorized to perform: bedrock:Retrieve on resource: arn:aws:bedrock:us-east-1:123456789012:knowledge-base\/KBOTHER001/);
  for (const principal of ['webhook', 'operator', 'handoff-sweeper', 'idle-sweeper'] as const) expect(await retrieve(principal, LOCAL_KNOWLEDGE_BASE_ID)).toMatch(/bedrock:Retrieve/);
});

test('dynamodb:LeadingKeys holds: the webhook may write its customers’ receipts, not a budget item, and a batch with one foreign key is refused', async () => {
  const evaluator = new PermissionEvaluator(async () => deployment);
  const put = (pk: string) => evaluator.check({ identity: identity('webhook'), service: 'dynamodb', operation: 'PutItem', body: { Item: S_KEY(pk) } });
  expect(await put('DEBOUNCE#5511')).toBeUndefined();
  expect(await put('BUDGET#5511')).toMatch(/not authorized to perform: dynamodb:PutItem/);
  const transaction = { TransactItems: [{ Put: { Item: S_KEY('SESSION#5511') } }, { Update: { Key: S_KEY('CRM_SYNC#s') } }] };
  expect(await evaluator.check({ identity: identity('webhook'), service: 'dynamodb', operation: 'TransactWriteItems', body: transaction })).toMatch(/dynamodb:UpdateItem/);
  // One class of customer keys is one decision: a thousand customers cost no more evaluations than one.
  const before = evaluator.ledger.decisionsEvaluated;
  for (let customer = 0; customer < 50; customer += 1) await put(`DEBOUNCE#55119${customer}`);
  expect(evaluator.ledger.decisionsEvaluated).toBe(before);
});

test('a KMS call is evaluated with the key policy: an identity grant whose kms:ViaService names another service is refused', async () => {
  const evaluator = new PermissionEvaluator(async () => deployment);
  // The webhook's key grants name DynamoDB and SQS; Secrets Manager's Decrypt of the secret comes with its own grant.
  expect(await evaluator.check({ identity: identity('webhook'), service: 'secretsmanager', operation: 'GetSecretValue', body: { SecretId: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:local-whatsapp' } })).toBeUndefined();
  const noKeyPolicy = { ...deployment, keyPolicies: new Map() };
  expect(await new PermissionEvaluator(async () => noKeyPolicy).check({ identity: identity('webhook'), service: 'dynamodb', operation: 'GetItem', body: { Key: S_KEY('SESSION#1') } })).toMatch(/kms:Decrypt/);
});

test('the media bucket holds its own limits: only the media prefix, only a listing under it, never over plain HTTP, the key only through S3', async () => {
  const evaluator = new PermissionEvaluator(async () => deployment);
  const call = (principal: PipelinePrincipal, method: string, path: string, body = '') => evaluator.check({ identity: identity(principal), service: 's3', ...s3Call(method, path, body) });
  expect(await call('orchestrator', 'PUT', MEDIA_OBJECT)).toBeUndefined();
  expect(await call('orchestrator', 'PUT', `/${LOCAL_MEDIA_BUCKET}/elsewhere/object`)).toMatch(/not authorized to perform: s3:PutObject on resource: arn:aws:s3:::\w+\/elsewhere\/object/);
  expect(await call('orchestrator', 'DELETE', MEDIA_OBJECT)).toMatch(/s3:DeleteObject/);
  expect(await call('operator', 'GET', `/${LOCAL_MEDIA_BUCKET}?list-type=2`)).toMatch(/s3:ListBucket/);
  expect(await call('operator', 'GET', `/${LOCAL_MEDIA_BUCKET}?list-type=2&prefix=other%2F`)).toMatch(/s3:ListBucket/);
  // One key outside the prefix refuses the whole DeleteObjects.
  expect(await call('customer-data', 'POST', `/${LOCAL_MEDIA_BUCKET}?delete=`, '<Delete><Object><Key>media/p/a</Key></Object><Object><Key>audit/b</Key></Object></Delete>')).toMatch(/s3:DeleteObject on resource: arn:aws:s3:::\w+\/audit\/b/);
  // A bucket no pipeline owns is nobody's.
  expect(await call('orchestrator', 'GET', '/someone-elses-bucket/media/p/x')).toMatch(/s3:GetObject on resource: arn:aws:s3:::someone-elses-bucket\/media\/p\/x/);

  // The bucket policy's deny: the same read over plain HTTP is refused whatever the role grants.
  const [get] = s3IamRequests('GetObject', { bucket: LOCAL_MEDIA_BUCKET, key: 'media/p/x' }, deployment);
  const role = deployment.roles.get('orchestrator')!;
  expect(await evaluate(role, deployment.account, get)).toEqual({ allowed: true, result: 'Allowed' });
  expect(await evaluate(role, deployment.account, { ...get, context: { 'aws:SecureTransport': 'false' } })).toEqual({ allowed: false, result: 'ExplicitlyDenied' });
  const withoutKeyPolicy = { ...deployment, keyPolicies: new Map() };
  expect(await new PermissionEvaluator(async () => withoutKeyPolicy).check({ identity: identity('orchestrator'), service: 's3', ...s3Call('PUT', MEDIA_OBJECT) })).toMatch(/kms:GenerateDataKey/);
});

test("the orchestrator invokes exactly its tools' functions and its model through its profile; no other principal invokes either", async () => {
  const evaluator = new PermissionEvaluator(async () => deployment);
  const invoke = (principal: PipelinePrincipal, path: string) => evaluator.check({ identity: identity(principal), service: 'lambda', ...agentServiceCall('lambda', path, {}) });
  const converse = (principal: PipelinePrincipal, modelId: string) => evaluator.check({ identity: identity(principal), service: 'bedrock', ...agentServiceCall('bedrock', `/model/${encodeURIComponent(modelId)}/converse`, {}) });
  expect(await invoke('orchestrator', `/2015-03-31/functions/${localToolFunctionName('check_stock')}/invocations`)).toBeUndefined();
  // By ARN as by name; a function of nobody's tool is refused.
  expect(await invoke('orchestrator', `/2015-03-31/functions/${encodeURIComponent(`arn:aws:lambda:us-east-1:123456789012:function:${localToolFunctionName('create_order')}`)}/invocations`)).toBeUndefined();
  expect(await invoke('orchestrator', '/2015-03-31/functions/payroll/invocations')).toMatch(/not authorized to perform: lambda:InvokeFunction on resource: arn:aws:lambda:us-east-1:123456789012:function:payroll/);
  expect(await invoke('operator', `/2015-03-31/functions/${localToolFunctionName('create_order')}/invocations`)).toMatch(/lambda:InvokeFunction/);
  // The profile's model only through the profile: another model, or the model named directly, is refused.
  expect(await converse('orchestrator', 'us.anthropic.claude-3-5-haiku-20241022-v1:0')).toMatch(/bedrock:InvokeModel on resource: arn:aws:bedrock:us-east-1:123456789012:inference-profile\/us.anthropic.claude-3-5-haiku/);
  expect(await converse('orchestrator', LOCAL_BEDROCK_MODEL_ID.replace(/^us\./, ''))).toMatch(/bedrock:InvokeModel on resource: arn:aws:bedrock:us-east-1::foundation-model\/anthropic.claude-sonnet-4/);
  expect(await converse('webhook', LOCAL_BEDROCK_MODEL_ID)).toMatch(/bedrock:InvokeModel/);
});

test("the evaluator plays its runs' customers only, with the agent's model; a customer's items, the tools' functions, the queue and WhatsApp's secret are refused to it", async () => {
  const evaluator = new PermissionEvaluator(async () => deployment);
  const call = (service: EvaluatedService, operation: string, body: Record<string, unknown>) => evaluator.check({ identity: identity('evaluator'), service, operation, body });
  for (const partition of ['SESSION#', 'DEBOUNCE#', 'CUSTOMER#']) {
    expect(await call('dynamodb', 'PutItem', { Item: S_KEY(`${partition}eval-run1-0`) })).toBeUndefined();
    expect(await call('dynamodb', 'PutItem', { Item: S_KEY(`${partition}5511912345678`) })).toMatch(/not authorized to perform: dynamodb:PutItem/);
    expect(await call('dynamodb', 'GetItem', { Key: S_KEY(`${partition}5511912345678`) })).toMatch(/not authorized to perform: dynamodb:GetItem/);
  }
  expect(await evaluator.check({ identity: identity('evaluator'), service: 'bedrock', ...agentServiceCall('bedrock', `/model/${encodeURIComponent(LOCAL_BEDROCK_MODEL_ID)}/converse`, {}) })).toBeUndefined();
  expect(await evaluator.check({ identity: identity('evaluator'), service: 'lambda', ...agentServiceCall('lambda', `/2015-03-31/functions/${localToolFunctionName('create_order')}/invocations`, {}) })).toMatch(
    /not authorized to perform: lambda:InvokeFunction/,
  );
  expect(await call('sqs', 'ReceiveMessage', { QueueUrl: 'http://127.0.0.1/000000000000/gogenetic-agent-debounce-e2e1.fifo' })).toMatch(/not authorized to perform: sqs:ReceiveMessage/);
  expect(await call('secretsmanager', 'GetSecretValue', { SecretId: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:local-whatsapp' })).toMatch(/not authorized to perform: secretsmanager:GetSecretValue/);
});

test('the operator function, and no other principal, may start a run on the evaluator it is told of, and on no other function', async () => {
  const evaluator = new PermissionEvaluator(async () => deployment);
  const invoke = (principal: PipelinePrincipal, functionName: string) => evaluator.check({ identity: identity(principal), service: 'lambda', ...agentServiceCall('lambda', `/2015-03-31/functions/${encodeURIComponent(functionName)}/invocations`, {}) });
  expect(evaluatorName).toMatch(/Evaluator/);
  expect(await invoke('operator', evaluatorName)).toBeUndefined();
  expect(await invoke('operator', 'payroll')).toMatch(/not authorized to perform: lambda:InvokeFunction on resource: arn:aws:lambda:us-east-1:123456789012:function:payroll/);
  for (const principal of ['orchestrator', 'webhook', 'handoff-sweeper', 'idle-sweeper', 'evaluator'] as const) expect(await invoke(principal, evaluatorName)).toMatch(/lambda:InvokeFunction/);
});
