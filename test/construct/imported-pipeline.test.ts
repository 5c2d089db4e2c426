// A pipeline referenced from another stack (`AgentPipeline.fromPipelineAttributes`) grants and
// measures what the pipeline itself does: the same statements for the commands' roles, the same
// metric series for its alarms, built from its attributes alone; and it refuses early what it
// cannot do, naming the attribute to give.
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AgentBackend, AgentPipeline, AgentPipelineBase, type AgentPipelineAttributes, type IAgentPipeline, ResourceNames } from '../../lib';
import { CUSTOM_METRICS } from '../../lib/contract';
import { COMMAND_FEATURES, type PipelineFeatures, tableActionsOf, indexPartitionsOf } from '../../lib/private/permissions';
import { NO_PROBLEMS, synthesisProblems } from '../support/synthesis-problems';

const ENV = { account: '123456789012', region: 'us-east-1' };

/** A pipeline with a customer managed key and transcribed voice notes, and the same pipeline referenced by its own values in the same stack. */
function pipelineAndItsReference() {
  const app = new App();
  const stack = new Stack(app, 'Pipeline', { env: ENV });
  const key = new kms.Key(stack, 'DataKey', { enableKeyRotation: true });
  const pipeline = new AgentPipeline(stack, 'Agent', {
    environment: 'prod',
    serviceName: 'orders',
    agentBackend: AgentBackend.scripted(),
    encryptionKey: key,
    // A bucket known by name, so that its ARN has one form in both grants.
    media: { transcription: {}, existingBucket: s3.Bucket.fromBucketAttributes(stack, 'Media', { bucketName: 'orders-prod-media', encryptionKey: key }) },
  });
  const imported = AgentPipeline.fromPipelineAttributes(stack, 'Imported', {
    ...attributesOf(pipeline),
    stackName: stack.stackName,
    mediaBucketName: 'orders-prod-media',
    transcribesVoiceNotes: true,
    encryptionKey: key,
  });
  return { app, stack, pipeline, imported };
}

function attributesOf(pipeline: AgentPipeline): AgentPipelineAttributes {
  return {
    environment: pipeline.environment,
    serviceName: pipeline.serviceName,
    tableArn: pipeline.table.tableArn,
    queueArn: pipeline.queue.queueArn,
    deadLetterQueueArn: pipeline.deadLetterQueue.queueArn,
    webhookFunctionArn: pipeline.webhookFunction.functionArn,
    orchestratorFunctionArn: pipeline.orchestratorFunction.functionArn,
  };
}

/** The resolved statements of the policies attached to `role`. */
function statementsOf(stack: Stack, role: iam.IRole): unknown[] {
  const roleRef = JSON.stringify(stack.resolve(role.roleName));
  const policies = Object.values(Template.fromStack(stack).findResources('AWS::IAM::Policy')).filter((policy) => JSON.stringify(policy.Properties.Roles).includes(roleRef));
  return policies.flatMap((policy) => policy.Properties.PolicyDocument.Statement as unknown[]);
}

const LITERAL_ATTRIBUTES: AgentPipelineAttributes = {
  environment: 'prod',
  serviceName: 'orders',
  stackName: 'WhatsAppAgent-prod',
  tableArn: 'arn:aws:dynamodb:sa-east-1:210987654321:table/orders-prod-table',
  queueArn: 'arn:aws:sqs:sa-east-1:210987654321:orders-prod-turns.fifo',
  deadLetterQueueArn: 'arn:aws:sqs:sa-east-1:210987654321:orders-prod-turns-dlq.fifo',
  webhookFunctionArn: 'arn:aws:lambda:sa-east-1:210987654321:function:orders-prod-webhook',
  orchestratorFunctionArn: 'arn:aws:lambda:sa-east-1:210987654321:function:orders-prod-orchestrator',
  mediaBucketName: 'orders-prod-media',
};

describe('a pipeline referenced by its attributes', () => {
  test("grantRedrive and grantCustomerDataRights give a role what the pipeline's own grants give, the stack named by name", () => {
    const { stack, pipeline, imported } = pipelineAndItsReference();
    const roles = ['OwnRedrive', 'ImportedRedrive', 'OwnPrivacy', 'ImportedPrivacy'].map((id) => new iam.Role(stack, id, { assumedBy: new iam.AccountRootPrincipal() }));
    pipeline.grantRedrive(roles[0]);
    imported.grantRedrive(roles[1]);
    pipeline.grantCustomerDataRights(roles[2]);
    imported.grantCustomerDataRights(roles[3]);

    const byName = (statements: unknown[]) =>
      JSON.parse(JSON.stringify(statements).split(JSON.stringify(stack.resolve(stack.stackId))).join('"the stack"').split(JSON.stringify(stack.resolve(stack.formatArn({ service: 'cloudformation', resource: 'stack', resourceName: 'Pipeline/*' })))).join('"the stack"'));
    const [ownRedrive, importedRedrive, ownPrivacy, importedPrivacy] = roles.map((role) => statementsOf(stack, role));
    expect(JSON.stringify(importedRedrive)).toContain(':stack/Pipeline/*');
    expect(byName(importedRedrive)).toEqual(byName(ownRedrive));
    expect(byName(importedPrivacy)).toEqual(byName(ownPrivacy));
    // The privacy grant reaches the attachments, the transcription jobs and the key.
    expect(JSON.stringify(importedPrivacy)).toContain('/media/*');
    expect(JSON.stringify(importedPrivacy)).toContain('transcription-job/voice-*');
    expect(JSON.stringify(importedPrivacy)).toContain('kms:ViaService');
  });

  test('every metric* method reads the series the pipeline’s own does: namespace, name, dimensions, statistic', () => {
    // Named resources, so that the pipeline's own metrics name them as literally as the ARNs do.
    const stack = new Stack(new App(), 'Pipeline', { env: ENV });
    const names = { tableName: 'orders-prod-table', turnQueueName: 'orders-prod-turns.fifo', deadLetterQueueName: 'orders-prod-turns-dlq.fifo' };
    const pipeline = new AgentPipeline(stack, 'Agent', { environment: 'prod', serviceName: 'orders', agentBackend: AgentBackend.scripted(), resourceNames: ResourceNames.of(names) });
    const arn = (service: string, resource: string) => `arn:aws:${service}:${ENV.region}:${ENV.account}:${resource}`;
    const imported = AgentPipeline.fromPipelineAttributes(stack, 'Imported', {
      ...LITERAL_ATTRIBUTES,
      tableArn: arn('dynamodb', `table/${names.tableName}`),
      queueArn: arn('sqs', names.turnQueueName),
      deadLetterQueueArn: arn('sqs', names.deadLetterQueueName),
    });
    const methods = Object.getOwnPropertyNames(AgentPipelineBase.prototype).filter((name) => name.startsWith('metric'));
    expect(methods.length).toBeGreaterThan(20);
    // A name is its resource's attribute in the pipeline's stack, and the name in its ARN for a reference: the same once deployed.
    const deployedNames: [unknown, string][] = [
      [pipeline.table.tableName, names.tableName],
      [pipeline.queue.queueName, names.turnQueueName],
      [pipeline.deadLetterQueue.queueName, names.deadLetterQueueName],
    ];
    const deployed = (config: cloudwatch.MetricConfig) =>
      JSON.parse(deployedNames.reduce((json, [token, name]) => json.split(JSON.stringify(stack.resolve(token))).join(JSON.stringify(name)), JSON.stringify(stack.resolve(config))));
    for (const method of methods) {
      const own = (pipeline as unknown as Record<string, () => cloudwatch.IMetric>)[method]();
      const referenced = (imported as unknown as Record<string, () => cloudwatch.IMetric>)[method]();
      expect({ method, config: stack.resolve(referenced.toMetricConfig()) }).toEqual({ method, config: deployed(own.toMetricConfig()) });
    }
    expect(stack.resolve(imported.metricTurnsAnswered().dimensions)).toEqual({ service: 'orders-prod' });
    expect(imported.metricTurnsAnswered().namespace).toBe('orders');
    expect(stack.resolve(imported.metricDeadLetterQueueMessages().dimensions)).toEqual({ QueueName: names.deadLetterQueueName });
  });

  test('an operations stack of the same app alarms on the pipeline, and gets no AWS Solutions finding', () => {
    const app = new App({ context: { '@aws-cdk/core:defaultCrossStackReferences': 'weak' } });
    const pipelineStack = new Stack(app, 'WhatsAppAgent-prod', { env: ENV });
    const pipeline = new AgentPipeline(pipelineStack, 'Agent', {
      environment: 'prod',
      agentBackend: AgentBackend.bedrock({ modelId: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' }),
      phoneNumberIds: ['106540352242922'],
    });
    const operations = new Stack(app, 'Operations', { env: ENV });
    const referenced = AgentPipeline.fromPipelineAttributes(operations, 'Agent', { ...attributesOf(pipeline), stackName: pipelineStack.stackName });
    referenced.metricDeadLetterQueueMessages().createAlarm(operations, 'DeadLetters', { threshold: 0, evaluationPeriods: 1 });
    referenced.metricTurnsAnswered().createAlarm(operations, 'Silence', { threshold: 1, evaluationPeriods: 15, comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD });
    referenced.grantRedrive(new iam.Role(operations, 'OnCall', { assumedBy: new iam.AccountRootPrincipal() }));

    const template = Template.fromStack(operations);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { Namespace: 'agent-pipeline', MetricName: CUSTOM_METRICS.turnAnswered, Dimensions: [{ Name: 'service', Value: 'agent-pipeline-prod' }] });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { Namespace: 'AWS/SQS', MetricName: 'ApproximateNumberOfMessagesVisible', Dimensions: [{ Name: 'QueueName', Value: Match.anyValue() }] });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Action: 'cloudformation:DescribeStacks', Resource: { 'Fn::Join': ['', Match.arrayWith([':cloudformation:us-east-1:123456789012:stack/WhatsAppAgent-prod/*'])] } })]) },
    });
    expect(synthesisProblems(app)).toEqual(NO_PROBLEMS);
  });

  test("from another app's literal values, to a role imported by name: the stack in the table's account and Region, the bucket's prefix acknowledged, nothing for cdk-nag", () => {
    const app = new App();
    const operations = new Stack(app, 'Operations');
    const referenced: IAgentPipeline = AgentPipeline.fromPipelineAttributes(operations, 'Agent', LITERAL_ATTRIBUTES);
    // A role of the account's, imported by name: the grant is a policy of this stack's.
    const privacy = iam.Role.fromRoleName(operations, 'PrivacyOfficer', 'privacy-officers');
    referenced.grantCustomerDataRights(privacy);
    const statements = JSON.stringify(statementsOf(operations, privacy));
    expect(statements).toContain(':cloudformation:sa-east-1:210987654321:stack/WhatsAppAgent-prod/*');
    expect(statements).toContain('arn:aws:dynamodb:sa-east-1:210987654321:table/orders-prod-table');
    expect(statements).toContain(':s3:::orders-prod-media/media/*');
    expect(statements).not.toContain('transcribe:');
    expect(operations.resolve(referenced.metricOldestMessageAge().dimensions)).toEqual({ QueueName: 'orders-prod-turns.fifo' });
    expect(synthesisProblems(app)).toEqual(NO_PROBLEMS);
  });

  test("the commands' roles reach the same partitions with every feature on as with none, so a reference needs no features", () => {
    const everything = Object.fromEntries(Object.keys(COMMAND_FEATURES).map((feature) => [feature, true])) as unknown as PipelineFeatures;
    for (const role of ['redrive', 'customerData'] as const) {
      expect({ role, table: [...tableActionsOf(role, everything)], index: indexPartitionsOf(role, everything) }).toEqual({
        role,
        table: [...tableActionsOf(role, COMMAND_FEATURES)],
        index: indexPartitionsOf(role, COMMAND_FEATURES),
      });
    }
  });
});

describe('what a reference refuses, naming the attribute to change', () => {
  const reference = (overrides: Partial<AgentPipelineAttributes>) => AgentPipeline.fromPipelineAttributes(new Stack(new App(), 'Operations'), 'Agent', { ...LITERAL_ATTRIBUTES, ...overrides });
  const role = (pipeline: IAgentPipeline) => new iam.Role(Stack.of(pipeline), 'Role', { assumedBy: new iam.AccountRootPrincipal() });

  test.each([
    ['grantRedrive', (pipeline: IAgentPipeline) => pipeline.grantRedrive(role(pipeline))],
    ['grantCustomerDataRights', (pipeline: IAgentPipeline) => pipeline.grantCustomerDataRights(role(pipeline))],
  ])('%s without stackName', (grant, call) => {
    const pipeline = reference({ stackName: undefined });
    expect(() => call(pipeline)).toThrow(`${grant} needs stackName`);
    // Nothing was granted before the refusal.
    expect(Template.fromStack(Stack.of(pipeline)).findResources('AWS::IAM::Policy')).toEqual({});
  });

  test.each([
    ['tableArn', { tableArn: 'orders-prod-table' }, 'is not the ARN of a DynamoDB table'],
    ['queueArn', { queueArn: 'arn:aws:sqs:sa-east-1:210987654321:orders-prod-turns' }, 'is not the ARN of a FIFO queue'],
    ['deadLetterQueueArn', { deadLetterQueueArn: 'arn:aws:dynamodb:sa-east-1:210987654321:table/dlq.fifo' }, 'is not the ARN of a FIFO queue'],
    ['orchestratorFunctionArn', { orchestratorFunctionArn: 'arn:aws:lambda:sa-east-1:210987654321:layer:x' }, 'is not the ARN of a Lambda function'],
    ['environment', { environment: 'Prod' }, "environment 'Prod' cannot be part of the table and queue names"],
    ['transcribesVoiceNotes', { transcribesVoiceNotes: true, mediaBucketName: undefined }, 'transcribesVoiceNotes needs mediaBucketName'],
  ])('a wrong %s', (_attribute, overrides, message) => {
    expect(() => reference(overrides)).toThrow(message);
  });
});
