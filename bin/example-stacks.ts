// The example stacks of bin/app.ts, shared with the tests that run both cdk-nag lines over them:
// a disposable `dev` stack and a `prod` stack with the secure defaults. They make no lookups, so
// synthesizing them needs no AWS credentials, with or without an account and Region.
import { type App, CfnOutput, type Environment, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import { AgentBackend, AgentPipeline } from '../lib';

export interface ExampleStacks {
  readonly dev: Stack;
  readonly prod: Stack;
}

/** Where bin/app.ts deploys the examples: a Region the prod stack's `us.` inference profile serves (change them together). */
export const EXAMPLE_REGION = 'us-east-1';

/** The Meta phone number id the examples answer (WhatsApp → API Setup; README, "Setting up Meta"). */
const EXAMPLE_PHONE_NUMBER_IDS = ['106540352242922'];

/** Adds both stacks to `app`, in `env` (default: environment-agnostic). */
export function addExampleStacks(app: App, env?: Environment): ExampleStacks {
  const dev = new Stack(app, 'WhatsAppAgentPipeline-dev', {
    env,
    description: 'WhatsApp AI-agent pipeline (dev): scripted agent, resources deleted with the stack',
  });
  // Each pipeline adds its own outputs (webhook URL, secret ARN, table and queues; README, "Stack outputs").
  new AgentPipeline(dev, 'Pipeline', {
    environment: 'dev',
    agentBackend: AgentBackend.scripted(),
    phoneNumberIds: EXAMPLE_PHONE_NUMBER_IDS,
    removalPolicy: RemovalPolicy.DESTROY,
    deletionProtection: false,
  });

  const prod = new Stack(app, 'WhatsAppAgentPipeline-prod', {
    env,
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
  new AgentPipeline(prod, 'Pipeline', {
    environment: 'prod',
    agentBackend: AgentBackend.bedrock({ modelId: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' }),
    phoneNumberIds: EXAMPLE_PHONE_NUMBER_IDS,
    alarmTopic,
  });
  new CfnOutput(prod, 'AlarmTopicArn', { value: alarmTopic.topicArn, description: 'Subscribe the on-call channel here' });
  return { dev, prod };
}
