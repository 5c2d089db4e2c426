import * as path from 'path';
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import { AwsSolutionsChecks } from 'cdk-nag';
import { AgentBackend, AgentPipeline, type AgentPipelineProps } from '../../lib';

/** A production-shaped pipeline: Bedrock through a cross-Region profile, alarms to an encrypted topic. */
function productionApp(extraProps: Partial<AgentPipelineProps> = {}): { app: App; stack: Stack; pipeline: AgentPipeline } {
  const app = new App();
  const stack = new Stack(app, 'Production');
  const topicKey = new kms.Key(stack, 'AlarmTopicKey', { enableKeyRotation: true });
  topicKey.grant(new iam.ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey');
  const alarmTopic = new sns.Topic(stack, 'AlarmTopic', { masterKey: topicKey, enforceSSL: true });
  const pipeline = new AgentPipeline(stack, 'Pipeline', {
    environment: 'prod',
    agentBackend: AgentBackend.bedrock({ modelId: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' }),
    alarmTopic,
    ...extraProps,
  });
  return { app, stack, pipeline };
}

function nagFindings(app: App): string[] {
  return new AwsSolutionsChecks(app)
    .validateScope(app)
    .violations.flatMap((violation) => violation.violatingResources.map((resource) => `${violation.ruleName} at ${resource.constructPath}`));
}

describe('synthesized template', () => {
  test('matches the committed snapshot (asset hashes normalised)', () => {
    const { stack } = productionApp();
    const json = JSON.stringify(Template.fromStack(stack).toJSON(), null, 2);
    // The package is relocatable: no machine path may leak into what consumers deploy.
    expect(json).not.toContain(path.resolve(__dirname, '..', '..'));
    expect(JSON.parse(json.replace(/[0-9a-f]{64}/g, '<asset-hash>'))).toMatchSnapshot();
  });
});

describe('cdk-nag AwsSolutions', () => {
  test('a production pipeline has no unacknowledged finding', () => {
    expect(nagFindings(productionApp().app)).toEqual([]);
  });

  test('a disposable dev pipeline with the scripted agent has none either', () => {
    const app = new App();
    new AgentPipeline(new Stack(app, 'Dev'), 'Pipeline', {
      environment: 'dev',
      agentBackend: AgentBackend.scripted(),
      removalPolicy: RemovalPolicy.DESTROY,
      deletionProtection: false,
    });
    expect(nagFindings(app)).toEqual([]);
  });

  test('nor a pipeline with a customer managed key, an existing secret and a Lambda agent', () => {
    const app = new App();
    const stack = new Stack(app, 'Custom');
    const key = new kms.Key(stack, 'DataKey', { enableKeyRotation: true });
    new AgentPipeline(stack, 'Pipeline', {
      environment: 'custom',
      encryptionKey: key,
      whatsAppSecret: secretsmanager.Secret.fromSecretCompleteArn(
        stack,
        'Credentials',
        'arn:aws:secretsmanager:us-east-1:123456789012:secret:whatsapp-AbCdEf',
      ),
      agentBackend: AgentBackend.fromFunction(lambda.Function.fromFunctionName(stack, 'Agent', 'my-agent')),
    });
    expect(nagFindings(app)).toEqual([]);
  });

  test('nor one that transcribes voice notes', () => {
    const { app } = productionApp({ media: { transcription: { languageCode: 'pt-BR' } } });
    expect(nagFindings(app)).toEqual([]);
  });

  test('nor one with tracing off, which acknowledges no X-Ray wildcard', () => {
    const { app, stack } = productionApp({ tracing: false });
    expect(nagFindings(app)).toEqual([]);
    expect(JSON.stringify(Template.fromStack(stack).toJSON())).not.toContain('X-Ray');
  });

  test('acknowledgements are scoped to exact findings: a wildcard a consumer adds is still reported', () => {
    const { app, pipeline } = productionApp();
    pipeline.orchestratorFunction.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: ['arn:aws:s3:::reports/*'] }),
    );
    expect(nagFindings(app)).toEqual([
      expect.stringMatching(/^AwsSolutions-IAM5\[Resource::arn:aws:s3:::reports\/\*\] at Production\/Pipeline\/OrchestratorRole\/DefaultPolicy/),
    ]);
  });
});
