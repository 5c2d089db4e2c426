// What S3 enforces on the media bucket's customer managed key (SSE-KMS), which no local server
// checks: every role that stores or reads media objects may have S3 use the bucket's key on its
// behalf — a data key to store, Decrypt to read — through S3 only, and the key policy lets it.
import { type DeployedRole, type DeploymentPermissions, deploymentPermissions } from '../support/permissions/deployment-permissions';
import type { IamRequest } from '../support/permissions/iam-requests';
import { evaluate } from '../support/permissions/permission-evaluator';
import { synthesizeDeployment } from '../support/permissions/synthesize-deployment';

/** What S3 asks KMS for under each object action, with a bucket key as without. */
const KEY_ACTIONS_OF = { 's3:PutObject': 'kms:GenerateDataKey', 's3:GetObject': 'kms:Decrypt' } as const;
type ObjectAction = keyof typeof KEY_ACTIONS_OF;

const VARIANTS = [
  { channel: 'cloud-api', operatorPlane: true, crmSync: 'off' },
  { channel: 'end-user-messaging', operatorPlane: false, crmSync: 'off' },
] as const;

/** The object actions `role` is granted on the media bucket's objects. */
function objectActionsOn(role: DeployedRole, bucketArn: string): Set<ObjectAction> {
  const granted = new Set<ObjectAction>();
  for (const { policy } of role.policies) {
    for (const statement of policy.Statement) {
      if (statement.Effect !== 'Allow' || ![statement.Resource].flat().some((resource) => String(resource).startsWith(`${bucketArn}/`))) continue;
      for (const action of [statement.Action].flat()) if (action === 's3:PutObject' || action === 's3:GetObject') granted.add(action);
    }
  }
  return granted;
}

describe.each(VARIANTS)('$channel, operator plane $operatorPlane', (variant) => {
  let deployment: DeploymentPermissions;
  beforeAll(() => {
    deployment = deploymentPermissions(synthesizeDeployment(variant));
  }, 120_000);

  const bucket = () => deployment.mediaBucket!;
  const keyRequest = (action: string, viaService?: string): IamRequest => ({
    action,
    resource: bucket().keyArn!,
    context: viaService === undefined ? {} : { 'kms:ViaService': `${viaService}.${deployment.region}.amazonaws.com` } as Record<string, string>,
    resourcePolicy: deployment.keyPolicies.get(bucket().keyArn!),
  });

  test('the bucket is encrypted with the pipeline’s key, which has a key policy', () => {
    expect(bucket().keyArn).toMatch(/^arn:aws:kms:/);
    expect(deployment.keyPolicies.get(bucket().keyArn!)).toBeDefined();
  });

  test('every role that stores or reads media objects may have S3 use the key, and only S3', async () => {
    const users = [...deployment.roles].map(([principal, role]) => [principal, role, objectActionsOn(role, bucket().arn)] as const).filter(([, , actions]) => actions.size > 0);
    expect(users.map(([principal, , actions]) => [principal, [...actions].sort()])).toEqual(
      expect.arrayContaining([
        ['orchestrator', ['s3:GetObject', 's3:PutObject']],
        ['customer-data', ['s3:GetObject']],
        ...(variant.operatorPlane ? [['operator', ['s3:GetObject', 's3:PutObject']]] : []),
      ]),
    );
    for (const [principal, role, actions] of users) {
      for (const action of actions) {
        const keyAction = KEY_ACTIONS_OF[action];
        expect({ principal, action, through: 's3', decision: (await evaluate(role, deployment.account, keyRequest(keyAction, 's3'))).result }).toEqual({ principal, action, through: 's3', decision: 'Allowed' });
        // Called directly, or by a service that is not S3, the key refuses the same role.
        expect({ principal, action, directly: (await evaluate(role, deployment.account, keyRequest(keyAction))).result }).toEqual({ principal, action, directly: 'ImplicitlyDenied' });
        expect({ principal, action, through: 'lambda', decision: (await evaluate(role, deployment.account, keyRequest(keyAction, 'lambda'))).result }).toEqual({ principal, action, through: 'lambda', decision: 'ImplicitlyDenied' });
      }
    }
  });

  test('without the key policy’s grant to the account, IAM alone does not let S3 use the key', async () => {
    const role = deployment.roles.get('orchestrator')!;
    const decision = await evaluate(role, deployment.account, { ...keyRequest('kms:GenerateDataKey', 's3'), resourcePolicy: { Statement: [] } });
    expect(decision.allowed).toBe(false);
  });
});
