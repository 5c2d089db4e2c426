import { App, CfnParameter, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AgentBackend, AgentPipeline, type AgentPipelineProps, type AlarmSeverity, type PipelineAlarmOverrides, ResourceNames } from '../../lib';
import { pipelineProps } from '../support/synthesized-pipeline';

/** Construction only: validation runs in the constructor, before anything is synthesized. */
function construct(overrides: Partial<AgentPipelineProps>, stack = new Stack(new App(), 'ValidationStack')): AgentPipeline {
  return new AgentPipeline(stack, 'Pipeline', pipelineProps(overrides));
}

describe('AgentPipeline rejects impossible configurations at synth time', () => {
  test('the error names the construct', () => {
    expect(() => construct({ environment: 'Prod' })).toThrow(/^AgentPipeline at 'ValidationStack\/Pipeline': /);
  });

  test.each(['Prod', 'prod_1', 'prod.eu', '-prod', 'prod-', '', 'prod env'])('environment %p cannot be part of a queue name', (environment) => {
    expect(() => construct({ environment })).toThrow(/environment '.*' cannot be part of the table and queue names: use lowercase letters, digits and inner hyphens/);
  });

  test('serviceName follows the same rule', () => {
    expect(() => construct({ serviceName: 'My_Service' })).toThrow(/serviceName 'My_Service' cannot be part of the table and queue names/);
  });

  test('serviceName and environment must fit the 80-character dead-letter queue name together', () => {
    const serviceName = 'a'.repeat(40);
    expect(() => construct({ serviceName, environment: 'b'.repeat(22) })).toThrow(
      /serviceName '.*' and environment '.*' are 62 characters together; at most 61 fit in the dead-letter queue name .*\(SQS allows 80\)\. Shorten one of them\./,
    );
    const longest = construct({ serviceName, environment: 'b'.repeat(21), resourceNames: ResourceNames.seed() });
    expect((longest.deadLetterQueue.node.defaultChild as sqs.CfnQueue).queueName).toHaveLength(80);
  });

  test('visibility timeout must be greater than the orchestrator timeout', () => {
    expect(() => construct({ visibilityTimeout: Duration.seconds(90) })).toThrow(
      /visibilityTimeout \(90 s\) must be greater than orchestratorTimeout \(90 s\).*Raise visibilityTimeout \(AWS recommends at least 6 × the function timeout\) or lower orchestratorTimeout\./,
    );
    expect(() => construct({ orchestratorTimeout: Duration.minutes(3) })).toThrow(/visibilityTimeout \(120 s\) must be greater than orchestratorTimeout \(180 s\)/);
    expect(() => construct({ visibilityTimeout: Duration.seconds(91) })).not.toThrow();
  });

  test('timeouts stay within the Lambda and SQS limits', () => {
    expect(() => construct({ orchestratorTimeout: Duration.minutes(16), visibilityTimeout: Duration.hours(1) })).toThrow(
      /orchestratorTimeout must be from 1 s to 900 s; got 960 s\./,
    );
    expect(() => construct({ visibilityTimeout: Duration.hours(13) })).toThrow(/visibilityTimeout must be from 0 s to 43200 s; got 46800 s\./);
  });

  test('burstSettle leaves the agent its turn: at most 10 seconds and a tenth of orchestratorTimeout, whole milliseconds, known at synth', () => {
    expect(() => construct({ burstSettle: Duration.seconds(11) })).toThrow(/burstSettle must be a whole number of milliseconds from 0 to 9000 ms .*; got 11000 ms\. Lower burstSettle, or raise orchestratorTimeout/);
    expect(() => construct({ orchestratorTimeout: Duration.seconds(20), burstSettle: Duration.seconds(3) })).toThrow(/burstSettle must be a whole number of milliseconds from 0 to 2000 ms/);
    expect(() => construct({ burstSettle: Duration.millis(1.5) })).toThrow(/burstSettle must be a whole number of milliseconds .*; got 1\.5 ms/);
    const unresolved = new Stack(new App(), 'TokenStack');
    expect(() => construct({ burstSettle: Duration.millis(new CfnParameter(unresolved, 'Settle', { type: 'Number' }).valueAsNumber) }, unresolved)).toThrow(/burstSettle must be a duration known at synth/);
    expect(() => construct({ burstSettle: Duration.seconds(0) })).not.toThrow();
    expect(() => construct({ burstSettle: Duration.seconds(9) })).not.toThrow();
  });

  test.each([0, -1, 1.5, 1001])('maxReceiveCount %p is rejected', (maxReceiveCount) => {
    expect(() => construct({ maxReceiveCount })).toThrow(`maxReceiveCount must be a whole number from 1 to 1000; got ${maxReceiveCount}.`);
  });

  test('maxReceiveCount bounds are accepted', () => {
    expect(() => construct({ maxReceiveCount: 1 })).not.toThrow();
    expect(() => construct({ maxReceiveCount: 1000 })).not.toThrow();
  });

  test('retention periods stay within SQS limits', () => {
    expect(() => construct({ queueRetentionPeriod: Duration.seconds(59) })).toThrow(/queueRetentionPeriod must be from 60 s to 1209600 s; got 59 s\./);
    expect(() => construct({ deadLetterQueueRetentionPeriod: Duration.days(15) })).toThrow(
      /deadLetterQueueRetentionPeriod must be from 60 s to 1209600 s; got 1296000 s\./,
    );
  });

  test('the dead-letter queue must keep messages at least as long as the queue', () => {
    expect(() => construct({ queueRetentionPeriod: Duration.days(7), deadLetterQueueRetentionPeriod: Duration.days(6) })).toThrow(
      /deadLetterQueueRetentionPeriod \(518400 s\) is shorter than queueRetentionPeriod \(604800 s\): messages would expire in the dead-letter queue/,
    );
    expect(() => construct({ queueRetentionPeriod: Duration.days(7), deadLetterQueueRetentionPeriod: Duration.days(7) })).not.toThrow();
  });

  test('DESTROY with deletion protection on is a conflict that says what to change', () => {
    expect(() => construct({ removalPolicy: RemovalPolicy.DESTROY })).toThrow(
      /removalPolicy DESTROY conflicts with deletionProtection true \(its default\).*set deletionProtection: false as well; otherwise keep the default RETAIN\./,
    );
    expect(() => construct({ removalPolicy: RemovalPolicy.DESTROY, deletionProtection: true })).toThrow(/conflicts with deletionProtection/);
    expect(() => construct({ removalPolicy: RemovalPolicy.DESTROY, deletionProtection: false })).not.toThrow();
  });

  test('SNAPSHOT is not a removal policy DynamoDB tables and SQS queues support', () => {
    expect(() => construct({ removalPolicy: RemovalPolicy.SNAPSHOT })).toThrow(/removalPolicy snapshot is not supported by DynamoDB tables and SQS queues/);
  });

  test('memory sizes and event source concurrency stay within the Lambda limits', () => {
    expect(() => construct({ webhookMemorySize: 64 })).toThrow('webhookMemorySize must be a whole number from 128 to 10240; got 64.');
    expect(() => construct({ orchestratorMemorySize: 20000 })).toThrow('orchestratorMemorySize must be a whole number from 128 to 10240; got 20000.');
    expect(() => construct({ orchestratorMaxConcurrency: 1 })).toThrow('orchestratorMaxConcurrency must be a whole number from 2 to 1000; got 1.');
  });

  test('the oldest-message alarm threshold must be reachable before messages expire', () => {
    expect(() => construct({ oldestMessageAgeAlarmThreshold: Duration.seconds(30) })).toThrow(/oldestMessageAgeAlarmThreshold must be from 60 s/);
    expect(() => construct({ oldestMessageAgeAlarmThreshold: Duration.days(5) })).toThrow(
      /oldestMessageAgeAlarmThreshold must be from 60 s to 345600 s; got 432000 s\./,
    );
  });

  test('the WhatsApp API base URL must be https', () => {
    expect(() => construct({ whatsAppApiBaseUrl: 'http://graph.facebook.com/v23.0' })).toThrow(/whatsAppApiBaseUrl 'http:\/\/graph.facebook.com\/v23.0' must be an https:\/\/ URL/);
    expect(() => construct({ whatsAppApiBaseUrl: 'graph.facebook.com' })).toThrow(/must be an https:\/\/ URL/);
  });

  test('a missing agent backend (from JavaScript) is reported, with the choices', () => {
    expect(() => construct({ agentBackend: undefined as unknown as AgentBackend })).toThrow(
      /agentBackend is required: use AgentBackend.bedrock\(\), AgentBackend.fromFunction\(\) or, for development only, AgentBackend.scripted\(\)\./,
    );
  });

  test('a Bedrock model id that is not an id is rejected', () => {
    expect(() => AgentBackend.bedrock({ modelId: 'arn:aws:bedrock:us-east-1::foundation-model/x' })).toThrow(/ARNs are not accepted/);
    expect(() => AgentBackend.bedrock({ modelId: '' })).toThrow(/is not a Bedrock model id/);
  });

  test('unresolved values (deploy-time parameters) skip the checks they cannot make', () => {
    const stack = new Stack(new App(), 'TokenStack');
    const environment = new CfnParameter(stack, 'Environment').valueAsString;
    const retention = Duration.seconds(new CfnParameter(stack, 'Retention', { type: 'Number' }).valueAsNumber);
    const pipeline = construct({ environment, queueRetentionPeriod: retention }, stack);
    expect(stack.resolve(pipeline.table.tableName)).toEqual({ Ref: expect.stringMatching(/^PipelineTable/) });
  });

  test('a deploy-time parameter where a function must know the value at synth is refused, naming the prop', () => {
    const stack = new Stack(new App(), 'TokenStack');
    const receives = new CfnParameter(stack, 'Receives', { type: 'Number' }).valueAsNumber;
    expect(() => construct({ maxReceiveCount: receives }, stack)).toThrow(
      /maxReceiveCount holds a value CloudFormation resolves only at deploy time \(maxReceiveCount is \{"Ref":"Receives"\}\), but the orchestrator function's settings are written into its asset at synth/,
    );
  });
});

describe('alarm options that could never work are refused with what to change', () => {
  test.each([
    [{ deadLetterQueue: { evaluationPeriods: 3, datapointsToAlarm: 4 } }, /alarms.overrides.deadLetterQueue.datapointsToAlarm \(4\) is more than its evaluationPeriods \(3\): the alarm could never fire. Lower datapointsToAlarm or raise evaluationPeriods\./],
    [{ webhookErrors: { threshold: -1 } }, /alarms.overrides.webhookErrors.threshold must be a number of 0 or more \(the alarm fires above it\); got -1\./],
    [{ webhookErrors: { threshold: Number.NaN } }, /alarms.overrides.webhookErrors.threshold must be a number of 0 or more/],
    [{ tableThrottles: { evaluationPeriods: 0 } }, /alarms.overrides.tableThrottles.evaluationPeriods must be a whole number from 1 to 1440; got 0\./],
    [{ tableThrottles: { evaluationPeriods: 1441 } }, /alarms.overrides.tableThrottles.evaluationPeriods must be a whole number from 1 to 1440; got 1441\./],
    // The cost alarm's periods are days, and CloudWatch evaluates at most a week of them.
    [{ dailyCost: { evaluationPeriods: 8 } }, /alarms.overrides.dailyCost.evaluationPeriods must be a whole number from 1 to 7; got 8\./],
    [{ tableThrottles: { datapointsToAlarm: 1.5 } }, /alarms.overrides.tableThrottles.datapointsToAlarm must be a whole number from 1 to 1440; got 1.5\./],
    [{ turnFallback: { severity: 'page' as AlarmSeverity } }, /alarms.overrides.turnFallback.severity 'page' is not one of critical, warning: use AlarmSeverity.CRITICAL or AlarmSeverity.WARNING\./],
    // From JavaScript, where the struct's fields are not checked.
    [{ deadLetterQueues: {} } as PipelineAlarmOverrides, /alarms.overrides names no alarm 'deadLetterQueues': the alarm ids are deadLetterQueue, oldestMessageAge, /],
    [{ toString: {} } as PipelineAlarmOverrides, /alarms.overrides names no alarm 'toString'/],
  ])('overrides %p', (overrides, message) => {
    expect(() => construct({ alarms: { overrides } })).toThrow(message);
  });

  test.each([0, -5, Number.NaN, Number.POSITIVE_INFINITY])('a daily cost threshold of %p US dollars is refused', (dailyCostUsd) => {
    expect(() => construct({ alarms: { dailyCostUsd } })).toThrow(/alarms.dailyCostUsd must be a number of US dollars above 0 \(the alarm fires when a day's estimated cost exceeds it\); got .*\. Leave it out for no cost alarm\./);
  });

  test('a cost alarm tuned without a daily cost threshold is refused: there is no such alarm to tune', () => {
    expect(() => construct({ alarms: { overrides: { dailyCost: { evaluationPeriods: 7, datapointsToAlarm: 2 } } } })).toThrow(/alarms\.overrides tunes 'dailyCost', which this pipeline does not create/);
    expect(() => construct({ alarms: { dailyCostUsd: 40, overrides: { dailyCost: { evaluationPeriods: 7, datapointsToAlarm: 2 } } } })).not.toThrow();
  });

  test('datapointsToAlarm may equal evaluationPeriods', () => {
    expect(() => construct({ alarms: { overrides: { webhookErrors: { evaluationPeriods: 4, datapointsToAlarm: 4 } } } })).not.toThrow();
  });

  test('an override of an alarm this pipeline does not create is refused, with the alarms it creates', () => {
    // The scripted agent: no model to throttle, no modelThrottles alarm; no crmSync, no CRM alarms.
    expect(() => construct({ alarms: { overrides: { modelThrottles: { threshold: 3 }, crmSyncBlocked: { enabled: false }, webhookErrors: { threshold: 1 } } } })).toThrow(
      /alarms\.overrides tunes 'modelThrottles', 'crmSyncBlocked', which this pipeline does not create \(each alarm's PipelineAlarmOverrides field says what it needs\): remove those overrides, or turn on what the alarm watches\. The alarms it creates are deadLetterQueue, oldestMessageAge, webhookErrors, /,
    );
    expect(() => construct({ alarms: { overrides: { modelThrottles: { threshold: 3 } } } })).toThrow(/tunes 'modelThrottles', which this pipeline does not create .*remove the override/);
  });

  test.each(['', ' orders', 'orders ', 'pedidos-ação', 'a'.repeat(231)])('alarmNamePrefix %p cannot start an alarm name', (alarmNamePrefix) => {
    expect(() => construct({ alarms: { alarmNamePrefix } })).toThrow(/alarms.alarmNamePrefix '.*' cannot start CloudWatch alarm names: use 1 to 230 printable ASCII characters without leading or trailing spaces/);
  });

  test('alarmTopic beside both severity topics would notify nobody', () => {
    const stack = new Stack(new App(), 'TopicStack');
    const topic = (id: string) => new sns.Topic(stack, id);
    expect(() => construct({ alarmTopic: topic('OnCall'), alarms: { criticalTopic: topic('Critical'), warningTopic: topic('Warning') } }, stack)).toThrow(
      /alarmTopic is never notified when alarms.criticalTopic and alarms.warningTopic are both set: leave alarmTopic out, or drop the severity it should take\./,
    );
  });

  test('dashboardName must be a dashboard name, and needs the dashboard', () => {
    expect(() => construct({ dashboardName: 'orders prod' })).toThrow(/dashboardName 'orders prod' is not a CloudWatch dashboard name: use 1 to 255 letters, digits, '-' and '_'\./);
    expect(() => construct({ dashboardName: 'orders', dashboard: false })).toThrow(/dashboardName names a dashboard that dashboard: false turns off: leave dashboardName out, or the dashboard on\./);
  });
});
