// Who may publish on the End User Messaging event topic, evaluated as IAM would on the synthesized
// topic policy: an event there is believed as the customer's own message, so only the service may
// publish, and no principal of the account can, whatever its own policies allow.
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { CONFORMANCE_PLACE, type DeployedRole, type PolicyDocument } from '../support/permissions/deployment-permissions';
import { evaluate } from '../support/permissions/permission-evaluator';
import { synthesizeDeployment } from '../support/permissions/synthesize-deployment';
import { TemplateIntrinsics } from '../support/permissions/template-intrinsics';

const PUBLISH_ANYWHERE: PolicyDocument = { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 'sns:Publish', Resource: '*' }] };
const ADMINISTRATOR: PolicyDocument = { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] };

let topicArn: string;
let topicPolicy: PolicyDocument;
let pipelineRoles: readonly DeployedRole[];

beforeAll(() => {
  const deployment = synthesizeDeployment({ channel: 'end-user-messaging', operatorPlane: true, crmSync: 'function' });
  const intrinsics = new TemplateIntrinsics(deployment.template, { ...CONFORMANCE_PLACE, stackName: deployment.stackName });
  const [[topicId]] = Object.entries(deployment.template.Resources).filter(([, resource]) => resource.Type === 'AWS::SNS::Topic');
  const [policy] = Object.values(deployment.template.Resources).filter((resource) => resource.Type === 'AWS::SNS::TopicPolicy');
  topicArn = intrinsics.text({ Ref: topicId });
  topicPolicy = intrinsics.resolve(policy.Properties?.PolicyDocument) as PolicyDocument;
  pipelineRoles = Object.entries(deployment.roles).map(([principal, logicalId]) => ({ logicalId, arn: `arn:aws:iam::${CONFORMANCE_PLACE.account}:role/${principal}`, policies: [] }));
}, 120_000);

const publish = () => ({ action: 'sns:Publish', resource: topicArn, context: { 'aws:SecureTransport': 'true', 'aws:PrincipalIsAWSService': 'false' }, resourcePolicy: topicPolicy });

test('no role of the account may publish on the topic, even one allowed sns:Publish on * or everything', async () => {
  const account = (name: string, policy: PolicyDocument): DeployedRole => ({ logicalId: name, arn: `arn:aws:iam::${CONFORMANCE_PLACE.account}:role/${name}`, policies: [{ name, policy }] });
  const publishers = [account('Administrator', ADMINISTRATOR), account('Publisher', PUBLISH_ANYWHERE), ...pipelineRoles.map((role) => ({ ...role, policies: [{ name: 'publish', policy: PUBLISH_ANYWHERE }] }))];
  const decisions = await Promise.all(publishers.map(async (role) => [role.logicalId, (await evaluate(role, CONFORMANCE_PLACE.account, publish())).result]));
  expect(decisions).toEqual(publishers.map((role) => [role.logicalId, 'ExplicitlyDenied']));
});

test('End User Messaging of this account may publish on it, and of another account may not', async () => {
  const serviceDecision = async (sourceAccount: string) => {
    const result = await runSimulation(
      {
        request: {
          principal: 'social-messaging.amazonaws.com',
          action: 'sns:Publish',
          resource: { resource: topicArn, accountId: CONFORMANCE_PLACE.account },
          contextVariables: { 'aws:SecureTransport': 'true', 'aws:PrincipalIsAWSService': 'true', 'aws:SourceAccount': sourceAccount },
        },
        identityPolicies: [],
        resourcePolicy: topicPolicy,
        serviceControlPolicies: [],
        resourceControlPolicies: [],
      },
      {},
    );
    return result.resultType === 'error' ? result.errors.message : result.overallResult;
  };
  expect(await serviceDecision(CONFORMANCE_PLACE.account)).toBe('Allowed');
  expect(await serviceDecision('210987654321')).toBe('ImplicitlyDenied');
});
