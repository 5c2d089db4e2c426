// The permission check against a synthesized variant: the requests the pipeline makes are allowed
// by today's roles, and each is denied — with AWS's message — once the one action it needs is
// removed from the role. What the run-wide check (the jest global setup) relies on.
import { LOCAL_LINKED_BUSINESS_ACCOUNT_ID } from '../../local/fake-whatsapp/fake-end-user-messaging';
import { LOCAL_ORIGINATION_PHONE_NUMBER_ID } from '../../local/runtime/end-user-messaging-event';
import type { PipelinePrincipal, PrincipalIdentity } from '../../local/runtime/function-principals';
import { type DeploymentPermissions, deploymentPermissions } from '../support/permissions/deployment-permissions';
import { endUserMessagingCall, type EvaluatedService } from '../support/permissions/iam-requests';
import { PermissionEvaluator } from '../support/permissions/permission-evaluator';
import { synthesizeDeployment } from '../support/permissions/synthesize-deployment';

const variant = { channel: 'cloud-api', operatorPlane: true, crmSync: 'webhook' } as const;
/** The template reads on the linked account exist only on this channel. */
const endUserMessagingVariant = { channel: 'end-user-messaging', operatorPlane: true, crmSync: 'off' } as const;
let deployment: DeploymentPermissions;
let endUserMessagingDeployment: DeploymentPermissions;

beforeAll(() => {
  deployment = deploymentPermissions(synthesizeDeployment(variant));
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
const S_KEY = (pk: string) => ({ PK: S(pk), SK: S('x') });

/** Requests the pipeline makes (the export batch-gets what the customer's references name), each with the one action its role must grant. */
const REQUESTS: readonly { principal: PipelinePrincipal; service: EvaluatedService; operation: string; body: Record<string, unknown>; action: string; onEndUserMessaging?: true }[] = [
  { principal: 'webhook', service: 'dynamodb', operation: 'TransactWriteItems', body: { TransactItems: [{ Put: { Item: S_KEY('DEBOUNCE#5511') } }] }, action: 'dynamodb:PutItem' },
  { principal: 'webhook', service: 'sqs', operation: 'SendMessage', body: { QueueUrl: 'http://127.0.0.1/000000000000/gogenetic-agent-debounce-e2e1.fifo' }, action: 'sqs:SendMessage' },
  { principal: 'orchestrator', service: 'sqs', operation: 'ReceiveMessage', body: { QueueUrl: 'http://127.0.0.1/000000000000/gogenetic-agent-debounce-e2e1.fifo' }, action: 'sqs:ReceiveMessage' },
  { principal: 'operator', service: 'dynamodb', operation: 'BatchWriteItem', body: { RequestItems: { t: [{ DeleteRequest: { Key: S_KEY('SESSION#5511') } }] } }, action: 'dynamodb:BatchWriteItem' },
  { principal: 'operator', service: 'dynamodb', operation: 'BatchGetItem', body: { RequestItems: { t: { Keys: [S_KEY('CRM_SYNC#s-1'), S_KEY('DEMAND#OOP')] } } }, action: 'dynamodb:BatchGetItem' },
  { principal: 'crm-sync', service: 'secretsmanager', operation: 'GetSecretValue', body: { SecretId: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:local-crm-webhook' }, action: 'secretsmanager:GetSecretValue' },
  ...(['handoff-sweeper', 'operator'] as const).flatMap((principal) =>
    [
      endUserMessagingCall(`/v1/whatsapp/template/list?id=${LOCAL_LINKED_BUSINESS_ACCOUNT_ID}&maxResults=100`, {}),
      endUserMessagingCall(`/v1/whatsapp/template?id=${LOCAL_LINKED_BUSINESS_ACCOUNT_ID}&metaTemplateId=900000000000`, {}),
    ].map(({ operation, body }) => ({ principal, service: 'social-messaging' as const, operation, body, action: `social-messaging:${operation}`, onEndUserMessaging: true as const })),
  ),
  {
    principal: 'operator',
    service: 'social-messaging',
    ...endUserMessagingCall('/v1/whatsapp/media', { originationPhoneNumberId: LOCAL_ORIGINATION_PHONE_NUMBER_ID, sourceS3File: { bucketName: 'media-bucket', key: 'media/pseudonym/op-1' } }),
    action: 'social-messaging:PostWhatsAppMessageMedia',
    onEndUserMessaging: true,
  },
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
    expect(refusal).toMatch(new RegExp(`^User: arn:aws:sts::123456789012:assumed-role/\\w+/${principal} is not authorized to perform: ${action} on resource: arn:aws:`));
    const [denial] = evaluator.ledger.denials.values();
    expect(denial).toMatchObject({ principal, action, result: 'ImplicitlyDenied', suites: new Set(['demonstration']) });
    process.stdout.write(`${principal} without ${action}: ${refusal}\n`);
  });
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
