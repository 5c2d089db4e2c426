import { App, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as kms from 'aws-cdk-lib/aws-kms';
import { AgentPipeline, type AgentPipelineProps } from '../../lib';
import { everyFunctionTold, pipelineProps } from '../support/synthesized-pipeline';

function template(overrides: Partial<AgentPipelineProps> = {}): { stack: Stack; template: Template } {
  const stack = new Stack(new App(), 'PrivacyStack');
  new AgentPipeline(stack, 'Pipeline', pipelineProps(overrides));
  return { stack, template: Template.fromStack(stack) };
}

function retentionOfEveryFunction(synth: ReturnType<typeof template>): number[][] {
  return Object.values(everyFunctionTold(synth)).map(({ document }) => [document.retention.conversationSeconds, document.retention.demandSeconds]);
}

test('every function is told the documented default retention: 365 days for conversations, 730 for demands', () => {
  const retention = retentionOfEveryFunction(template());
  expect(retention.length).toBeGreaterThan(1);
  for (const pair of retention) expect(pair).toEqual([365 * 86_400, 730 * 86_400]);
});

test('conversationRetention and demandRetention reach the functions', () => {
  for (const pair of retentionOfEveryFunction(template({ conversationRetention: Duration.days(90), demandRetention: Duration.days(30) }))) {
    expect(pair).toEqual([90 * 86_400, 30 * 86_400]);
  }
});

test('a retention under one day is refused at synth time, naming the prop', () => {
  expect(() => template({ conversationRetention: Duration.hours(1) })).toThrow(/AgentPipeline at 'PrivacyStack\/Pipeline': conversationRetention must be at least 1 day/);
  expect(() => template({ demandRetention: Duration.minutes(5) })).toThrow(/demandRetention must be at least 1 day/);
});

test('the customer managed key encrypts every function log group, and CloudWatch Logs may use it for this account’s log groups only', () => {
  const stack = new Stack(new App(), 'KeyStack', { env: { account: '111111111111', region: 'sa-east-1' } });
  const key = new kms.Key(stack, 'Key');
  new AgentPipeline(stack, 'Pipeline', pipelineProps({ encryptionKey: key, adminPhoneNumbers: ['5511999990000'] }));
  const synth = Template.fromStack(stack);
  const logGroups = Object.values(synth.findResources('AWS::Logs::LogGroup'));
  expect(logGroups.length).toBe(Object.keys(synth.findResources('AWS::Lambda::Function')).filter((id) => !id.includes('LogRetention')).length);
  const keyId = stack.getLogicalId(key.node.defaultChild as kms.CfnKey);
  for (const group of logGroups) expect(group.Properties.KmsKeyId).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
  const statements = synth.toJSON().Resources[keyId].Properties.KeyPolicy.Statement;
  expect(statements).toContainEqual(
    expect.objectContaining({
      Principal: { Service: 'logs.sa-east-1.amazonaws.com' },
      Condition: { ArnLike: { 'kms:EncryptionContext:aws:logs:arn': { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':logs:sa-east-1:111111111111:log-group:*']] } } },
    }),
  );
});

test('without a key, log groups use CloudWatch Logs’ own encryption', () => {
  for (const group of Object.values(template().template.findResources('AWS::Logs::LogGroup'))) expect(group.Properties.KmsKeyId).toBeUndefined();
});
