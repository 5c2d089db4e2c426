// The example stacks of bin/app.ts, shared with the tests that run both cdk-nag lines over them:
// a disposable `dev` stack and a `prod` stack with the secure defaults. Environment-agnostic
// (no account/Region, no lookups), so synthesizing them needs no AWS credentials.
import { type App, CfnOutput, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import { AgentBackend, AgentPipeline } from '../lib';

export interface ExampleStacks {
  readonly dev: Stack;
  readonly prod: Stack;
}

export function addExampleStacks(app: App): ExampleStacks {
  const dev = new Stack(app, 'WhatsAppAgentPipeline-dev', {
    description: 'WhatsApp AI-agent pipeline (dev): scripted agent, resources deleted with the stack',
  });
  const devPipeline = new AgentPipeline(dev, 'Pipeline', {
    environment: 'dev',
    agentBackend: AgentBackend.scripted(),
    removalPolicy: RemovalPolicy.DESTROY,
    deletionProtection: false,
  });
  addOutputs(dev, devPipeline);

  const prod = new Stack(app, 'WhatsAppAgentPipeline-prod', {
    description: 'WhatsApp AI-agent pipeline (prod): Bedrock agent, retained data, alarms to SNS',
  });
  // CloudWatch can only publish to an encrypted topic whose key lets it encrypt; an AWS managed
  // key (aws/sns) cannot grant that, hence a customer managed key.
  const alarmKey = new kms.Key(prod, 'AlarmTopicKey', {
    description: 'Encrypts the pipeline alarm topic',
    enableKeyRotation: true,
  });
  alarmKey.grant(new iam.ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey');
  const alarmTopic = new sns.Topic(prod, 'AlarmTopic', {
    displayName: 'WhatsApp agent pipeline alarms (prod)',
    masterKey: alarmKey,
    enforceSSL: true,
  });
  const prodPipeline = new AgentPipeline(prod, 'Pipeline', {
    environment: 'prod',
    agentBackend: AgentBackend.bedrock({ modelId: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' }),
    alarmTopic,
  });
  addOutputs(prod, prodPipeline);
  new CfnOutput(prod, 'AlarmTopicArn', { value: alarmTopic.topicArn, description: 'Subscribe the on-call channel here' });
  return { dev, prod };
}

function addOutputs(stack: Stack, pipeline: AgentPipeline): void {
  new CfnOutput(stack, 'WebhookUrl', {
    value: pipeline.webhookUrl!,
    description: 'Callback URL for the WhatsApp webhook in the Meta app',
  });
  new CfnOutput(stack, 'WhatsAppSecretArn', {
    value: pipeline.whatsAppSecret!.secretArn,
    description: 'Fill appSecret and accessToken here; give verifyToken to Meta',
  });
}
