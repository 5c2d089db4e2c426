// What the package's operator tools rely on: the stack outputs under their documented keys, and
// grantRedrive and grantCustomerDataRights giving an operator's role what the commands call, and no more.
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { AgentPipeline, type AgentPipelineProps } from '../../lib';
import { pipelineProps, roleStatements, type SynthesizedPipeline, statement, synthPipeline } from '../support/synthesized-pipeline';

describe('stack outputs', () => {
  test('every pipeline writes its table, queues, webhook URL, secret and (media on by default) media bucket under <construct id><name>', () => {
    const { template, stack, pipeline } = synthPipeline();
    const outputs = template.toJSON().Outputs;
    expect(Object.keys(outputs).sort()).toEqual(
      ['PipelineDeadLetterQueueUrl', 'PipelineMediaBucketName', 'PipelineTableName', 'PipelineTurnQueueUrl', 'PipelineWebhookUrl', 'PipelineWhatsAppSecretArn'],
    );
    expect(outputs.PipelineMediaBucketName.Value).toEqual(stack.resolve(pipeline.mediaBucket!.bucketName));
    expect(outputs.PipelineTableName.Value).toEqual(stack.resolve(pipeline.table.tableName));
    expect(outputs.PipelineTurnQueueUrl.Value).toEqual(stack.resolve(pipeline.queue.queueUrl));
    expect(outputs.PipelineDeadLetterQueueUrl.Value).toEqual(stack.resolve(pipeline.deadLetterQueue.queueUrl));
    expect(outputs.PipelineWebhookUrl.Value).toEqual(stack.resolve(pipeline.webhookUrl));
    expect(outputs.PipelineWhatsAppSecretArn.Value).toEqual(stack.resolve(pipeline.whatsAppSecret!.secretArn));
  });

  test('with media off, no media bucket output', () => {
    const { template } = synthPipeline({ media: { enabled: false } });
    expect(template.toJSON().Outputs.PipelineMediaBucketName).toBeUndefined();
  });

  test('with the operator plane, also the console URL', () => {
    const { template, stack, pipeline } = synthPipeline({ adminPhoneNumbers: ['5511912345678'] });
    expect(template.toJSON().Outputs.PipelineConsoleUrl.Value).toEqual(stack.resolve(pipeline.consoleUrl));
  });

  test('two pipelines of one stack whose ids reduce to the same key are refused with the fix', () => {
    const stack = new Stack(new App(), 'Shared');
    new AgentPipeline(stack, 'Agent-1', pipelineProps({ environment: 'one' }));
    expect(() => new AgentPipeline(stack, 'Agent1', pipelineProps({ environment: 'two' }))).toThrow(
      "AgentPipeline at 'Shared/Agent1': its stack output 'Agent1TableName' is already written by the pipeline at 'Shared/Agent-1'. " +
        'Give the two pipelines construct ids that differ in their letters and digits',
    );
  });
});

/** A pipeline and an operator's role granted one of the commands, synthesized after the grant. */
function grantedCommand(grant: (pipeline: AgentPipeline, role: iam.Role) => iam.Grant, extend: (stack: Stack) => Partial<AgentPipelineProps> = () => ({})): SynthesizedPipeline & { operator: iam.Role } {
  const app = new App();
  const stack = new Stack(app, 'TestStack');
  const pipeline = new AgentPipeline(stack, 'Pipeline', pipelineProps(extend(stack)));
  const operator = new iam.Role(stack, 'OnCall', { assumedBy: new iam.AccountRootPrincipal() });
  grant(pipeline, operator);
  return { app, stack, pipeline, operator, template: Template.fromStack(stack) };
}

/** The role's statements on the table, as action → partition patterns. */
function tablePartitionsByAction(synth: SynthesizedPipeline & { operator: iam.Role }): Record<string, string[]> {
  const tableArn = JSON.stringify([synth.stack.resolve(synth.pipeline.table.tableArn)]);
  const byAction: Record<string, string[]> = {};
  for (const entry of roleStatements(synth, synth.operator).filter((statement) => JSON.stringify(statement.resources) === tableArn)) {
    const patterns = (entry.condition as Record<string, Record<string, string[]>>)['ForAllValues:StringLike']['dynamodb:LeadingKeys'];
    for (const action of entry.actions) byAction[action] = [...(byAction[action] ?? []), ...patterns].sort();
  }
  return byAction;
}

const withKey = (captured: { key?: kms.Key }) => (stack: Stack) => {
  captured.key = new kms.Key(stack, 'Key', { enableKeyRotation: true });
  return { encryptionKey: captured.key };
};

describe('grantRedrive', () => {
  const redrive = (pipeline: AgentPipeline, role: iam.Role) => pipeline.grantRedrive(role);

  test('grants the stack outputs, the dead-letter records and sending back to the turn queue', () => {
    const synth = grantedCommand(redrive);
    const { pipeline, stack } = synth;
    const statements = roleStatements(synth, synth.operator);
    expect(statements).toContainEqual(statement(synth, ['cloudformation:DescribeStacks'], [stack.stackId]));
    expect(statements).toContainEqual(statement(synth, ['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:DeleteMessage'], [pipeline.deadLetterQueue.queueArn]));
    expect(statements).toContainEqual(statement(synth, ['sqs:SendMessage'], [pipeline.queue.queueArn]));
  });

  test('reaches only the customers’ receipts, markers, sessions and history, which it reads and restores, and no index', () => {
    const byAction = tablePartitionsByAction(grantedCommand(redrive));
    expect(Object.keys(byAction).sort()).toEqual(['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem']);
    for (const patterns of Object.values(byAction)) expect(patterns).toEqual(['DEBOUNCE#*', 'SESSION#*']);
  });

  test('with a customer managed key, also the key, through DynamoDB and SQS only', () => {
    const captured: { key?: kms.Key } = {};
    const synth = grantedCommand(redrive, withKey(captured));
    const keyArn = JSON.stringify([synth.stack.resolve(captured.key!.keyArn)]);
    const keyStatements = roleStatements(synth, synth.operator).filter((entry) => JSON.stringify(entry.resources) === keyArn);
    expect(keyStatements.map((entry) => JSON.stringify(entry.condition)).sort()).toEqual(
      ['dynamodb', 'sqs'].map((service) => JSON.stringify({ StringEquals: { 'kms:ViaService': { 'Fn::Join': ['', [`${service}.`, { Ref: 'AWS::Region' }, '.amazonaws.com']] } } })).sort(),
    );
  });
});

describe('grantCustomerDataRights', () => {
  const customerData = (pipeline: AgentPipeline, role: iam.Role) => pipeline.grantCustomerDataRights(role);

  test('grants the stack outputs and the dead-letter records, but no send to the turn queue', () => {
    const synth = grantedCommand(customerData);
    const statements = roleStatements(synth, synth.operator);
    expect(statements).toContainEqual(statement(synth, ['cloudformation:DescribeStacks'], [synth.stack.stackId]));
    expect(statements.flatMap((entry) => entry.actions).filter((action) => action.startsWith('sqs:')).sort()).toEqual([
      'sqs:ChangeMessageVisibility',
      'sqs:DeleteMessage',
      'sqs:ReceiveMessage',
    ]);
  });

  test('queries the customer’s partitions, reads what their references name, and deletes all of it item by item', () => {
    const byAction = tablePartitionsByAction(grantedCommand(customerData));
    const customerPartitions = ['ADMIN#CONSENT', 'BUDGET#*', 'CUSTOMER#*', 'DEBOUNCE#*', 'SESSION#*'];
    expect(byAction['dynamodb:Query']).toEqual(customerPartitions);
    expect(byAction['dynamodb:BatchGetItem']).toEqual(['CRM_SYNC#*', 'DEMAND#OOP', 'OPERATOR#AUTH']);
    expect(byAction['dynamodb:DeleteItem']).toEqual([...customerPartitions, 'CRM_SYNC#*', 'DEMAND#OOP', 'OPERATOR#AUTH'].sort());
  });

  test('can write nothing it erases — no put, no update, no BatchWriteItem (whose puts IAM cannot tell from its deletes) — sign-ins included', () => {
    const byAction = tablePartitionsByAction(grantedCommand(customerData));
    expect(byAction['dynamodb:PutItem']).toEqual(['ADMIN#AUDIT', 'ADMIN#PRIVACY']);
    // Only the inbox's version, which it raises so the erased conversations leave every open inbox.
    expect(byAction['dynamodb:UpdateItem']).toEqual(['ADMIN#INBOX']);
    expect(byAction['dynamodb:BatchWriteItem']).toBeUndefined();
  });

  test('keeps the pseudonym salt and the erasure’s audit event', () => {
    const byAction = tablePartitionsByAction(grantedCommand(customerData));
    expect(byAction['dynamodb:GetItem']).toEqual(['ADMIN#PRIVACY']);
    expect(byAction['dynamodb:PutItem']).toEqual(['ADMIN#AUDIT', 'ADMIN#PRIVACY']);
  });

  test('with a customer managed key, also the key: through DynamoDB, only to decrypt through SQS, and for the media bucket through S3', () => {
    const captured: { key?: kms.Key } = {};
    const synth = grantedCommand(customerData, withKey(captured));
    const keyArn = JSON.stringify([synth.stack.resolve(captured.key!.keyArn)]);
    const keyStatements = roleStatements(synth, synth.operator).filter((entry) => JSON.stringify(entry.resources) === keyArn);
    const through = (service: string) => ({ StringEquals: { 'kms:ViaService': { 'Fn::Join': ['', [`${service}.`, { Ref: 'AWS::Region' }, '.amazonaws.com']] } } });
    expect(keyStatements).toEqual(
      expect.arrayContaining([
        statement(synth, ['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey'], [captured.key!.keyArn], through('dynamodb')),
        statement(synth, ['kms:Decrypt'], [captured.key!.keyArn], through('sqs')),
        statement(synth, ['kms:Decrypt', 'kms:GenerateDataKey'], [captured.key!.keyArn], through('s3')),
      ]),
    );
    expect(keyStatements).toHaveLength(3);
  });
});
