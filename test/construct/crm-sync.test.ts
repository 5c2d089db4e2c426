import { App, Stack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { AwsSolutionsChecks } from 'cdk-nag';
import { AgentBackend, AgentPipeline, CrmTarget } from '../../lib';
import { viaServiceCondition } from '../../lib/private/key-permissions';
import { consumerCrmFunction, dashboardBody, everyFunctionTold, roleStatements, SECRET_READ_ACTIONS, statement, synthPipeline, type SynthesizedPipeline, toldTo } from '../support/synthesized-pipeline';


const WORKER = { Description: Match.stringLikeRegexp('^CRM sync worker') };

describe('without crmSync', () => {
  test('nothing of the CRM sync is deployed and no function writes the projection', () => {
    const synth = synthPipeline({ adminPhoneNumbers: ['5511912345678'] });
    const { template, pipeline, stack } = synth;
    expect(pipeline.crmSyncFunction).toBeUndefined();
    expect(pipeline.crmSyncBlockedAlarm).toBeUndefined();
    expect(pipeline.crmSyncUncertainAlarm).toBeUndefined();
    expect(template.findResources('AWS::Lambda::Function', { Properties: WORKER })).toEqual({});
    expect(template.findResources('AWS::Events::Rule', { Properties: { Description: Match.stringLikeRegexp('CRM') } })).toEqual({});
    expect(template.findResources('AWS::CloudWatch::Alarm', { Properties: { AlarmDescription: Match.stringLikeRegexp('CRM sync') } })).toEqual({});
    for (const { document } of Object.values(everyFunctionTold(synth))) expect(document.crmSyncEnabled).toBe(false);
    expect(dashboardBody({ template, stack })).not.toContain('CRM sync');
  });
});

describe('CrmTarget.fromFunction', () => {
  let synth: SynthesizedPipeline;
  let crmFunction!: lambda.Function;
  beforeAll(() => {
    synth = synthPipeline({ adminPhoneNumbers: ['5511912345678'], serviceName: 'gogenetic-agent' }, (stack) => {
      crmFunction = consumerCrmFunction(stack);
      return { crmSync: CrmTarget.fromFunction(crmFunction) };
    });
  });

  test('a worker runs every minute with the function as its target; every session writer writes the projection', () => {
    const { template, pipeline, stack } = synth;
    template.hasResourceProperties('AWS::Lambda::Function', {
      ...WORKER,
      Timeout: 120,
      Environment: { Variables: Match.objectLike({ CRM_FUNCTION_NAME: stack.resolve(crmFunction.functionName), DYNAMODB_TABLE: stack.resolve(pipeline.table.tableName) }) },
    });
    expect(toldTo(synth, pipeline.crmSyncFunction!).document.crmTarget).toEqual({ kind: 'function' });
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [Match.objectLike({ Arn: stack.resolve(pipeline.crmSyncFunction!.functionArn), RetryPolicy: { MaximumRetryAttempts: 0 } })],
    });
    for (const writer of [pipeline.webhookFunction, pipeline.orchestratorFunction, pipeline.operatorFunction!, pipeline.handoffSweeperFunction!]) {
      expect(toldTo(synth, writer).document.crmSyncEnabled).toBe(true);
    }
  });

  test('the worker may invoke that function', () => {
    expect(roleStatements(synth, synth.pipeline.crmSyncFunction!.role!)).toContainEqual(statement(synth, ['lambda:InvokeFunction'], [crmFunction.functionArn]));
  });

  test('alarms on BLOCKED and UNCERTAIN rows read the gauges the worker emits, and on worker errors', () => {
    const { template, pipeline } = synth;
    for (const [alarm, metricName] of [
      [pipeline.crmSyncBlockedAlarm!, 'CrmSyncBlockedRows'],
      [pipeline.crmSyncUncertainAlarm!, 'CrmSyncUncertainRows'],
    ] as const) {
      expect(pipeline.alarms).toContain(alarm);
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: metricName,
        Namespace: 'gogenetic-agent',
        Dimensions: [{ Name: 'service', Value: 'gogenetic-agent-test' }],
        Statistic: 'Maximum',
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
      });
    }
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmDescription: Match.stringLikeRegexp('^The CRM sync worker'), MetricName: 'Errors' });
    expect(pipeline.alarms).toContain(pipeline.crmSyncErrorsAlarm);
    expect(synth.stack.resolve((pipeline.crmSyncErrorsAlarm!.node.defaultChild as cloudwatch.CfnAlarm).alarmDescription)).toMatch(/^The CRM sync worker/);
    expect(synth.stack.resolve(pipeline.metricCrmSyncBlockedRows().metricName)).toBe('CrmSyncBlockedRows');
  });
  test('the dashboard graphs the sync: revisions accepted, sends to retry, worker errors, blocked and uncertain rows', () => {
    const body = dashboardBody(synth);
    expect(body).toContain('\\"title\\":\\"CRM sync\\"');
    for (const metricName of ['CrmSyncSent', 'CrmSyncRetrying', 'CrmSyncBlockedRows', 'CrmSyncUncertainRows']) expect(body).toContain(`\\"${metricName}\\"`);
  });

  test('alarmThresholds move the blocked and uncertain alarms', () => {
    const raised = synthPipeline({ alarmThresholds: { crmSyncBlockedRows: 5, crmSyncUncertainRows: 2 } }, (stack) => ({ crmSync: CrmTarget.fromFunction(consumerCrmFunction(stack)) }));
    raised.template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'CrmSyncBlockedRows', Threshold: 5 });
    raised.template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'CrmSyncUncertainRows', Threshold: 2 });
    expect(() => synthPipeline({ alarmThresholds: { crmSyncBlockedRows: -1 } })).toThrow(/alarmThresholds.crmSyncBlockedRows must be a count of 0 or more; got -1/);
  });
});

describe('CrmTarget.webhook', () => {
  test('the worker reads the signing secret and gets the URL; with a key, the table key actions through DynamoDB only', () => {
    let secret!: secretsmanager.Secret;
    let key!: kms.Key;
    const synth = synthPipeline({}, (stack) => {
      secret = new secretsmanager.Secret(stack, 'CrmSecret');
      key = new kms.Key(stack, 'Key', { enableKeyRotation: true });
      return { encryptionKey: key, crmSync: CrmTarget.webhook({ url: 'https://crm.example.com/hooks/whatsapp', secret }) };
    });
    const worker = synth.pipeline.crmSyncFunction!;
    synth.template.hasResourceProperties('AWS::Lambda::Function', {
      ...WORKER,
      Environment: { Variables: Match.objectLike({ CRM_WEBHOOK_URL: 'https://crm.example.com/hooks/whatsapp', CRM_WEBHOOK_SECRET_ARN: synth.stack.resolve(secret.secretArn) }) },
    });
    expect(toldTo(synth, worker).document.crmTarget).toEqual({ kind: 'webhook' });
    const statements = roleStatements(synth, worker.role!);
    expect(statements).toContainEqual(statement(synth, SECRET_READ_ACTIONS, [secret.secretArn]));
    expect(statements).toContainEqual(statement(synth, ['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey'], [key.keyArn], viaServiceCondition('dynamodb')));
  });

  test.each([
    ['http://crm.example.com/hook', /must start with https:\/\//],
    ['http://127.0.0.1:8080/crm', /must start with https:\/\//],
    ['crm.example.com', /is not a URL/],
    ['https://user:pw@crm.example.com/', /must not carry credentials/],
  ])('%s is refused when the target is created', (url, message) => {
    const stack = new Stack(new App(), 'S');
    expect(() => CrmTarget.webhook({ url, secret: new secretsmanager.Secret(stack, 'S') })).toThrow(message);
  });
});

test('cdk-nag AwsSolutions reports nothing for either target', () => {
  const app = new App();
  for (const [name, target] of [
    ['Function', (stack: Stack) => CrmTarget.fromFunction(consumerCrmFunction(stack))],
    ['Webhook', (stack: Stack) => CrmTarget.webhook({ url: 'https://crm.example.com/hook', secret: new secretsmanager.Secret(stack, 'CrmSecret') })],
  ] as const) {
    const stack = new Stack(app, `With${name}Crm`);
    new AgentPipeline(stack, 'Pipeline', { environment: `prod-${name.toLowerCase()}`, agentBackend: AgentBackend.scripted(), crmSync: target(stack) });
  }
  const findings = new AwsSolutionsChecks(app)
    .validateScope(app)
    .violations.flatMap((violation) => violation.violatingResources.map((resource) => `${violation.ruleName} at ${resource.constructPath}`))
    // The consumer's own function and secret are theirs to configure.
    .filter((finding) => / at With\w+Crm\/Pipeline\//.test(finding));
  expect(findings).toEqual([]);
});
