import { App, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import { AgentPipeline, ResourceNames } from '../../lib';
import { pipelineProps, roleStatements, SECRET_READ_ACTIONS, statement, synthPipeline, type SynthesizedPipeline, toldTo } from '../support/synthesized-pipeline';


// The defaults, with the seed system's names (the default names are generated: see 'default physical names').
describe('AgentPipeline with its defaults', () => {
  let synth: SynthesizedPipeline;
  beforeAll(() => {
    synth = synthPipeline({ environment: 'prod', serviceName: 'gogenetic-agent', resourceNames: ResourceNames.seed() });
  });

  test('AgentTable: name, on-demand billing, keys, GSI1, TTL, PITR, encryption, deletion protection, retained', () => {
    synth.template.resourceCountIs('AWS::DynamoDB::Table', 1);
    synth.template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        TableName: 'gogenetic-agent-prod',
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [
          { AttributeName: 'PK', KeyType: 'HASH' },
          { AttributeName: 'SK', KeyType: 'RANGE' },
        ],
        AttributeDefinitions: Match.arrayEquals([
          { AttributeName: 'PK', AttributeType: 'S' },
          { AttributeName: 'SK', AttributeType: 'S' },
          { AttributeName: 'GSI1PK', AttributeType: 'S' },
          { AttributeName: 'GSI1SK', AttributeType: 'S' },
        ]),
        GlobalSecondaryIndexes: [
          {
            IndexName: 'GSI1',
            KeySchema: [
              { AttributeName: 'GSI1PK', KeyType: 'HASH' },
              { AttributeName: 'GSI1SK', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          },
        ],
        TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        // SSE on without a key id: the AWS managed key aws/dynamodb.
        SSESpecification: { SSEEnabled: true },
        DeletionProtectionEnabled: true,
      },
    });
  });

  test('DebounceQueue: FIFO, producer-supplied dedup ids, delay 0, visibility 120 s, 4 days, redrive after 3 receives, SSE', () => {
    synth.template.resourceCountIs('AWS::SQS::Queue', 2);
    synth.template.hasResource('AWS::SQS::Queue', {
      DeletionPolicy: 'Retain',
      Properties: {
        QueueName: 'gogenetic-agent-debounce-prod.fifo',
        FifoQueue: true,
        ContentBasedDeduplication: false,
        DelaySeconds: 0,
        VisibilityTimeout: 120,
        MessageRetentionPeriod: 345600,
        SqsManagedSseEnabled: true,
        RedrivePolicy: {
          deadLetterTargetArn: synth.stack.resolve(synth.pipeline.deadLetterQueue.queueArn),
          maxReceiveCount: 3,
        },
      },
    });
  });

  test('DebounceDLQ: FIFO, 14 days, SSE', () => {
    synth.template.hasResource('AWS::SQS::Queue', {
      DeletionPolicy: 'Retain',
      Properties: {
        QueueName: 'gogenetic-agent-debounce-dlq-prod.fifo',
        FifoQueue: true,
        MessageRetentionPeriod: 1209600,
        SqsManagedSseEnabled: true,
        RedrivePolicy: Match.absent(),
      },
    });
  });

  test('both queues deny any request that does not use TLS', () => {
    for (const queue of [synth.pipeline.queue, synth.pipeline.deadLetterQueue]) {
      synth.template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [synth.stack.resolve(queue.queueUrl)],
        PolicyDocument: {
          Statement: [
            {
              Effect: 'Deny',
              Principal: { AWS: '*' },
              Action: 'sqs:*',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
              Resource: synth.stack.resolve(queue.queueArn),
            },
          ],
        },
      });
    }
  });

  test('both functions: Node.js 24 on arm64, active tracing, JSON logs into their own retained log group of one month', () => {
    for (const fn of [synth.pipeline.webhookFunction, synth.pipeline.orchestratorFunction]) {
      const logGroup = fn.logGroup;
      synth.template.hasResourceProperties('AWS::Lambda::Function', {
        Role: synth.stack.resolve(fn.role!.roleArn),
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        TracingConfig: { Mode: 'Active' },
        LoggingConfig: { LogFormat: 'JSON', LogGroup: synth.stack.resolve(logGroup.logGroupName) },
        MemorySize: 512,
      });
    }
    // Their two log groups and the idle sweeper's.
    synth.template.resourcePropertiesCountIs('AWS::Logs::LogGroup', { RetentionInDays: 30 }, 3);
    expect(Object.values(synth.template.findResources('AWS::Logs::LogGroup')).map((r) => r.DeletionPolicy)).toEqual(['Retain', 'Retain', 'Retain']);
  });

  test('webhook: 10 s timeout, its environment, and no secret values in it', () => {
    synth.template.hasResourceProperties('AWS::Lambda::Function', {
      Role: synth.stack.resolve(synth.pipeline.webhookFunction.role!.roleArn),
      Timeout: 10,
      Environment: {
        Variables: {
          DYNAMODB_TABLE: synth.stack.resolve(synth.pipeline.table.tableName),
          TURN_QUEUE_URL: synth.stack.resolve(synth.pipeline.queue.queueUrl),
          WHATSAPP_SECRET_ARN: synth.stack.resolve(synth.pipeline.whatsAppSecret!.secretArn),
          POWERTOOLS_SERVICE_NAME: 'gogenetic-agent-prod',
          POWERTOOLS_METRICS_NAMESPACE: 'gogenetic-agent',
          POWERTOOLS_LOG_LEVEL: 'INFO',
        },
      },
    });
  });

  test('orchestrator: 90 s timeout, the table and the channel in its environment, the receive count and the agent in its settings', () => {
    synth.template.hasResourceProperties('AWS::Lambda::Function', {
      Role: synth.stack.resolve(synth.pipeline.orchestratorFunction.role!.roleArn),
      Timeout: 90,
      Environment: {
        Variables: {
          DYNAMODB_TABLE: synth.stack.resolve(synth.pipeline.table.tableName),
          WHATSAPP_SECRET_ARN: synth.stack.resolve(synth.pipeline.whatsAppSecret!.secretArn),
          WHATSAPP_API_BASE_URL: 'https://graph.facebook.com/v23.0',
          POWERTOOLS_SERVICE_NAME: 'gogenetic-agent-prod',
          POWERTOOLS_METRICS_NAMESPACE: 'gogenetic-agent',
          POWERTOOLS_LOG_LEVEL: 'INFO',
        },
      },
    });
    expect(toldTo(synth, synth.pipeline.orchestratorFunction).document).toMatchObject({ maxReceiveCount: 3, agent: { backend: 'scripted' } });
  });

  test('orchestrator consumes the FIFO queue one record at a time with partial batch failures', () => {
    synth.template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    synth.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: synth.stack.resolve(synth.pipeline.queue.queueArn),
      FunctionName: synth.stack.resolve(synth.pipeline.orchestratorFunction.functionName),
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 20 },
    });
  });

  test('webhook is reachable over a Function URL authenticated by the handler, not by IAM', () => {
    synth.template.resourceCountIs('AWS::Lambda::Url', 1);
    synth.template.hasResourceProperties('AWS::Lambda::Url', {
      AuthType: 'NONE',
      TargetFunctionArn: synth.stack.resolve(synth.pipeline.webhookFunction.functionArn),
      Cors: Match.absent(),
    });
    expect(synth.stack.resolve(synth.pipeline.webhookUrl)).toEqual(synth.stack.resolve(synth.pipeline.webhookFunctionUrl!.url));
  });

  test('a WhatsApp secret is created with a random verify token and placeholders for what Meta issues', () => {
    synth.template.resourceCountIs('AWS::SecretsManager::Secret', 1);
    synth.template.hasResource('AWS::SecretsManager::Secret', {
      DeletionPolicy: 'Retain',
      Properties: {
        KmsKeyId: Match.absent(),
        GenerateSecretString: {
          SecretStringTemplate: JSON.stringify({ appSecret: 'REPLACE_ME', accessToken: 'REPLACE_ME' }),
          GenerateStringKey: 'verifyToken',
          ExcludePunctuation: true,
          PasswordLength: 48,
        },
      },
    });
  });

  test('no managed policies: each role carries only the statements above', () => {
    for (const role of Object.values(synth.template.findResources('AWS::IAM::Role'))) {
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
      expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
        { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } },
      ]);
    }
  });

  test('seventeen alarms (no model alarm without Bedrock), all exposed, all ignoring missing data, none with actions (periods per alarm: observability.test.ts)', () => {
    const pipeline = synth.pipeline;
    expect(pipeline.alarms).toEqual([
      pipeline.deadLetterQueueAlarm,
      pipeline.oldestMessageAgeAlarm,
      pipeline.webhookErrorsAlarm,
      pipeline.webhookThrottlesAlarm,
      pipeline.webhookDurationAlarm,
      pipeline.webhookServerErrorsAlarm,
      pipeline.webhookSignatureRejectedAlarm,
      pipeline.orchestratorErrorsAlarm,
      pipeline.orchestratorThrottlesAlarm,
      pipeline.orchestratorDurationAlarm,
      pipeline.turnFailedPermanentlyAlarm,
      pipeline.turnFallbackAlarm,
      pipeline.replyOutcomeUnknownAlarm,
      pipeline.deliveryFailedAlarm,
      pipeline.mediaDownloadFailedAlarm,
      pipeline.tableThrottlesAlarm,
      pipeline.idleSweeperErrorsAlarm,
    ]);
    expect(pipeline.modelThrottlesAlarm).toBeUndefined();
    synth.template.resourceCountIs('AWS::CloudWatch::Alarm', 17);
    for (const alarm of Object.values(synth.template.findResources('AWS::CloudWatch::Alarm'))) {
      expect(alarm.Properties).toMatchObject({
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'notBreaching',
      });
      expect(alarm.Properties.AlarmActions).toBeUndefined();
      expect(alarm.Properties.OKActions).toBeUndefined();
    }
  });

  test('dead-letter queue alarm: any visible message', () => {
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: synth.stack.resolve(synth.pipeline.deadLetterQueue.queueName) }],
      Statistic: 'Maximum',
      Period: 60,
      Threshold: 0,
    });
  });

  test('oldest message alarm: above 10 minutes on the debounce queue', () => {
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: synth.stack.resolve(synth.pipeline.queue.queueName) }],
      Statistic: 'Maximum',
      Threshold: 600,
    });
  });

  test('errors and throttles alarms for each function', () => {
    for (const fn of [synth.pipeline.webhookFunction, synth.pipeline.orchestratorFunction]) {
      for (const metricName of ['Errors', 'Throttles']) {
        synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
          Namespace: 'AWS/Lambda',
          MetricName: metricName,
          Dimensions: [{ Name: 'FunctionName', Value: synth.stack.resolve(fn.functionName) }],
          Statistic: 'Sum',
          Threshold: 0,
        });
      }
    }
  });

  test('table throttling alarm sums ThrottledRequests of every operation the pipeline issues, gaps filled with 0', () => {
    const [alarm] = Object.values(
      synth.template.findResources('AWS::CloudWatch::Alarm', { Properties: { Metrics: Match.anyValue() } }),
    );
    const queries = alarm.Properties.Metrics as Array<Record<string, any>>;
    const expression = queries.find((query) => query.Expression)!;
    const operations = queries
      .filter((query) => query.MetricStat)
      .map((query) => {
        const { Namespace, MetricName, Dimensions } = query.MetricStat.Metric;
        expect([Namespace, MetricName, query.MetricStat.Stat]).toEqual(['AWS/DynamoDB', 'ThrottledRequests', 'Sum']);
        expect(Dimensions).toContainEqual({ Name: 'TableName', Value: synth.stack.resolve(synth.pipeline.table.tableName) });
        expect(expression.Expression).toContain(`FILL(${query.Id}, 0)`);
        return Dimensions.find((d: { Name: string }) => d.Name === 'Operation').Value;
      });
    expect(operations.sort()).toEqual(
      ['BatchGetItem', 'DeleteItem', 'GetItem', 'PutItem', 'Query', 'TransactWriteItems', 'UpdateItem'],
    );
    expect(alarm.Properties.Threshold).toBe(0);
  });
});

describe('AgentPipeline for a disposable dev stack', () => {
  let synth: SynthesizedPipeline;
  beforeAll(() => {
    synth = synthPipeline({ environment: 'dev', removalPolicy: RemovalPolicy.DESTROY, deletionProtection: false, serviceName: 'gogenetic-agent', resourceNames: ResourceNames.seed() });
  });

  test('table, queues, log groups and the created secret are deleted with the stack', () => {
    for (const type of ['AWS::DynamoDB::Table', 'AWS::SQS::Queue', 'AWS::Logs::LogGroup', 'AWS::SecretsManager::Secret']) {
      const resources = Object.values(synth.template.findResources(type));
      expect(resources.length).toBeGreaterThan(0);
      for (const resource of resources) {
        expect([type, resource.DeletionPolicy, resource.UpdateReplacePolicy]).toEqual([type, 'Delete', 'Delete']);
      }
    }
  });

  test('table deletion protection is off and names carry the environment', () => {
    synth.template.hasResourceProperties('AWS::DynamoDB::Table', { TableName: 'gogenetic-agent-dev', DeletionProtectionEnabled: false });
    synth.template.hasResourceProperties('AWS::SQS::Queue', { QueueName: 'gogenetic-agent-debounce-dev.fifo' });
    synth.template.hasResourceProperties('AWS::SQS::Queue', { QueueName: 'gogenetic-agent-debounce-dlq-dev.fifo' });
  });
});

describe('AgentPipeline with every option set', () => {
  let synth: SynthesizedPipeline;
  let key: kms.Key;
  let topic: sns.Topic;
  let secret: secretsmanager.Secret;
  beforeAll(() => {
    synth = synthPipeline(
      {
        environment: 'staging-2',
        serviceName: 'acme-bot',
        resourceNames: ResourceNames.seed(),
        orchestratorTimeout: Duration.seconds(60),
        visibilityTimeout: Duration.minutes(6),
        maxReceiveCount: 5,
        queueRetentionPeriod: Duration.days(2),
        deadLetterQueueRetentionPeriod: Duration.days(7),
        whatsAppApiBaseUrl: 'https://graph.facebook.com/v24.0/',
        logRetention: logs.RetentionDays.THREE_MONTHS,
        webhookMemorySize: 256,
        orchestratorMemorySize: 1024,
        orchestratorMaxConcurrency: 20,
        oldestMessageAgeAlarmThreshold: Duration.minutes(3),
      },
      (stack) => {
        key = new kms.Key(stack, 'DataKey', { enableKeyRotation: true });
        topic = new sns.Topic(stack, 'Alarms');
        secret = new secretsmanager.Secret(stack, 'ExistingSecret');
        return { encryptionKey: key, alarmTopic: topic, whatsAppSecret: secret };
      },
    );
  });

  test('names, queue timing, retention and redrive follow the props', () => {
    synth.template.hasResourceProperties('AWS::DynamoDB::Table', { TableName: 'acme-bot-staging-2' });
    synth.template.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'acme-bot-debounce-staging-2.fifo',
      VisibilityTimeout: 360,
      MessageRetentionPeriod: 172800,
      RedrivePolicy: { maxReceiveCount: 5 },
    });
    synth.template.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'acme-bot-debounce-dlq-staging-2.fifo',
      MessageRetentionPeriod: 604800,
    });
  });

  test('functions, log retention and event source concurrency follow the props; the API URL loses its trailing slash', () => {
    synth.template.hasResourceProperties('AWS::Lambda::Function', {
      Role: synth.stack.resolve(synth.pipeline.orchestratorFunction.role!.roleArn),
      Timeout: 60,
      MemorySize: 1024,
      Environment: { Variables: Match.objectLike({ WHATSAPP_API_BASE_URL: 'https://graph.facebook.com/v24.0' }) },
    });
    synth.template.hasResourceProperties('AWS::Lambda::Function', {
      Role: synth.stack.resolve(synth.pipeline.webhookFunction.role!.roleArn),
      MemorySize: 256,
    });
    synth.template.resourcePropertiesCountIs('AWS::Logs::LogGroup', { RetentionInDays: 90 }, 3);
    synth.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { ScalingConfig: { MaximumConcurrency: 20 } });
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'ApproximateAgeOfOldestMessage', Threshold: 180 });
  });

  test('the customer managed key encrypts the table and both queues', () => {
    const keyArn = synth.stack.resolve(key.keyArn);
    synth.template.hasResourceProperties('AWS::DynamoDB::Table', {
      SSESpecification: { SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: keyArn },
    });
    synth.template.resourcePropertiesCountIs('AWS::SQS::Queue', { KmsMasterKeyId: keyArn, SqsManagedSseEnabled: Match.absent() }, 2);
  });

  test('the existing secret is used: none is created, both functions read it', () => {
    synth.template.resourceCountIs('AWS::SecretsManager::Secret', 1);
    expect(synth.pipeline.whatsAppSecret).toBe(secret);
    for (const fn of [synth.pipeline.webhookFunction, synth.pipeline.orchestratorFunction]) {
      expect(roleStatements(synth, fn.role!)).toContainEqual(statement(synth, SECRET_READ_ACTIONS, [secret.secretArn]));
    }
  });

  test('every alarm notifies the topic on ALARM and on OK', () => {
    const topicRef = synth.stack.resolve(topic.topicArn);
    const alarms = Object.values(synth.template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms).toHaveLength(17);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([topicRef]);
      expect(alarm.Properties.OKActions).toEqual([topicRef]);
    }
  });
});

describe('AgentPipeline helpers', () => {
  test('grantReadData and grantReadWriteData give another principal access to the table and its index', () => {
    const app = new App();
    const stack = new Stack(app, 'HelperStack');
    const pipeline = new AgentPipeline(stack, 'Pipeline', pipelineProps());
    const reader = new iam.Role(stack, 'Reader', { assumedBy: new iam.AccountRootPrincipal() });
    const writer = new iam.Role(stack, 'Writer', { assumedBy: new iam.AccountRootPrincipal() });
    pipeline.grantReadData(reader);
    pipeline.grantReadWriteData(writer);
    const synth = { app, stack, pipeline, template: Template.fromStack(stack) };
    const tableResources = [pipeline.table.tableArn, `${pipeline.table.tableArn}/index/*`];
    const [read] = roleStatements(synth, reader);
    const [readWrite] = roleStatements(synth, writer);
    expect(read.resources).toEqual(stack.resolve(tableResources));
    expect(read.actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query']));
    expect(read.actions).not.toContain('dynamodb:PutItem');
    expect(readWrite.resources).toEqual(stack.resolve(tableResources));
    expect(readWrite.actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem']));
  });

  test('metric helpers point at the queues and accept overrides', () => {
    const { stack, pipeline } = synthPipeline();
    const deadLetters = pipeline.metricDeadLetterQueueMessages();
    expect([deadLetters.namespace, deadLetters.metricName, deadLetters.statistic]).toEqual(['AWS/SQS', 'ApproximateNumberOfMessagesVisible', 'Maximum']);
    expect(stack.resolve(deadLetters.dimensions)).toEqual({ QueueName: stack.resolve(pipeline.deadLetterQueue.queueName) });
    const oldest = pipeline.metricOldestMessageAge({ period: Duration.minutes(5) });
    expect([oldest.metricName, oldest.period.toMinutes()]).toEqual(['ApproximateAgeOfOldestMessage', 5]);
    expect(stack.resolve(oldest.dimensions)).toEqual({ QueueName: stack.resolve(pipeline.queue.queueName) });
    expect(pipeline.metricTableThrottledRequests({ period: Duration.minutes(5) }).toMetricConfig().mathExpression?.period).toBe(300);
  });
});
