import { App, Duration, Stack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import * as kms from 'aws-cdk-lib/aws-kms';
import { AwsSolutionsChecks } from 'cdk-nag';
import { AgentBackend, AgentPipeline } from '../../lib';
import { expectExactStatements, LOG_ACTIONS, roleStatements, SECRET_READ_ACTIONS, statement, synthPipeline, type SynthesizedPipeline, XRAY_ACTIONS } from '../support/synthesized-pipeline';
import { viaServiceCondition } from '../../lib/private/permissions';

const ADMIN = '5511912345678';

describe('AgentPipeline without adminPhoneNumbers', () => {
  test('creates no operator plane', () => {
    const synth = synthPipeline({ environment: 'prod' });
    synth.template.resourceCountIs('AWS::Lambda::Function', 2);
    synth.template.resourceCountIs('AWS::Lambda::Url', 1);
    synth.template.resourceCountIs('AWS::Events::Rule', 0);
    expect(synth.pipeline.operatorFunction).toBeUndefined();
    expect(synth.pipeline.consoleUrl).toBeUndefined();
    synth.template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('^Turn orchestrator'),
      Environment: { Variables: Match.objectLike({ CONSOLE_URL: Match.absent(), OPERATOR_ADMIN_PHONE_NUMBERS: Match.absent() }) },
    });
  });
});

describe('AgentPipeline with the operator plane', () => {
  let synth: SynthesizedPipeline;
  beforeAll(() => {
    synth = synthPipeline({
      environment: 'prod',
      adminPhoneNumbers: [ADMIN, '351912345678', ADMIN],
      timeZone: 'Europe/Lisbon',
      handoffRenotifyAfter: Duration.minutes(3),
      customerRenotifyAfter: Duration.minutes(20),
      handoffTexts: { fallback: 'Um momento, já chamo alguém.' },
    });
  });

  test('an operator function behind its own Function URL with auth NONE, configured with the admins and the time zone', () => {
    const { template, pipeline, stack } = synth;
    template.resourceCountIs('AWS::Lambda::Function', 4);
    template.hasResourceProperties('AWS::Lambda::Url', { AuthType: 'NONE', TargetFunctionArn: stack.resolve(pipeline.operatorFunction!.functionArn) });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      TracingConfig: { Mode: 'Active' },
      Description: Match.stringLikeRegexp('^Operator console and API'),
      Environment: {
        Variables: Match.objectLike({
          DYNAMODB_TABLE: stack.resolve(pipeline.table.tableName),
          WHATSAPP_SECRET_ARN: stack.resolve(pipeline.whatsAppSecret!.secretArn),
          OPERATOR_ADMIN_PHONE_NUMBERS: `${ADMIN},351912345678`,
          OPERATOR_TIME_ZONE: 'Europe/Lisbon',
          TURN_QUEUE_URL: stack.resolve(pipeline.queue.queueUrl),
          DEAD_LETTER_QUEUE_URL: stack.resolve(pipeline.deadLetterQueue.queueUrl),
        }),
      },
    });
    expect(stack.resolve(pipeline.consoleUrl)).toEqual(stack.resolve(pipeline.operatorFunctionUrl!.url));
  });

  test('the orchestrator learns the console URL and the admins (the URL belongs to the operator function: no cycle)', () => {
    const { template, pipeline, stack } = synth;
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('^Turn orchestrator'),
      Environment: {
        Variables: Match.objectLike({
          CONSOLE_URL: stack.resolve(pipeline.operatorFunctionUrl!.url),
          OPERATOR_ADMIN_PHONE_NUMBERS: `${ADMIN},351912345678`,
          OPERATOR_TIME_ZONE: 'Europe/Lisbon',
          HANDOFF_TEXTS: JSON.stringify({ fallback: 'Um momento, já chamo alguém.' }),
        }),
      },
    });
  });

  test('a handoff sweeper runs every minute with the renotification times, the texts and the console URL', () => {
    const { template, pipeline, stack } = synth;
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: stack.resolve(pipeline.handoffSweeperFunction!.functionArn), RetryPolicy: { MaximumRetryAttempts: 0 } })],
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('^Handoff sweeper'),
      Timeout: 50,
      Environment: {
        Variables: Match.objectLike({
          CONSOLE_URL: stack.resolve(pipeline.operatorFunctionUrl!.url),
          HANDOFF_RENOTIFY_AFTER_SECONDS: '180',
          CUSTOMER_RENOTIFY_AFTER_SECONDS: '1200',
          HANDOFF_TEXTS: JSON.stringify({ fallback: 'Um momento, já chamo alguém.' }),
        }),
      },
    });
  });

  test('sweeper role: exactly its log group, X-Ray, get/put/update on the table, Query on the table and GSI1, the secret', () => {
    const { pipeline } = synth;
    const sweeper = pipeline.handoffSweeperFunction!;
    expectExactStatements(roleStatements(synth, sweeper.role!), [
      statement(synth, LOG_ACTIONS, [sweeper.logGroup.logGroupArn]),
      statement(synth, XRAY_ACTIONS, ['*']),
      statement(synth, ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], [pipeline.table.tableArn]),
      statement(synth, ['dynamodb:Query'], [pipeline.table.tableArn, `${pipeline.table.tableArn}/index/GSI1`]),
      statement(synth, SECRET_READ_ACTIONS, [pipeline.whatsAppSecret!.secretArn]),
    ]);
  });

  test('operator role: exactly its log group, X-Ray, item actions on the table, Query on the table and GSI1, the secret, the redrive on the queues', () => {
    const { pipeline } = synth;
    expectExactStatements(roleStatements(synth, pipeline.operatorFunction!.role!), [
      statement(synth, LOG_ACTIONS, [pipeline.operatorFunction!.logGroup.logGroupArn]),
      statement(synth, XRAY_ACTIONS, ['*']),
      statement(synth, ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'], [pipeline.table.tableArn]),
      statement(synth, ['dynamodb:Query'], [pipeline.table.tableArn, `${pipeline.table.tableArn}/index/GSI1`]),
      statement(synth, SECRET_READ_ACTIONS, [pipeline.whatsAppSecret!.secretArn]),
      statement(synth, ['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:DeleteMessage'], [pipeline.deadLetterQueue.queueArn]),
      statement(synth, ['sqs:SendMessage'], [pipeline.queue.queueArn]),
    ]);
  });

  test('defaults: America/Sao_Paulo, renotify after 5 minutes, remind after 10, the runtime’s texts', () => {
    const defaults = synthPipeline({ adminPhoneNumbers: [ADMIN] });
    defaults.template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('^Operator console and API'),
      Environment: { Variables: Match.objectLike({ OPERATOR_TIME_ZONE: 'America/Sao_Paulo' }) },
    });
    defaults.template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('^Handoff sweeper'),
      Environment: { Variables: Match.objectLike({ HANDOFF_RENOTIFY_AFTER_SECONDS: '300', CUSTOMER_RENOTIFY_AFTER_SECONDS: '600', HANDOFF_TEXTS: Match.absent() }) },
    });
  });

  test('with a customer managed key the operator gets exactly the table key actions', () => {
    let key!: kms.Key;
    const withKey = synthPipeline({ adminPhoneNumbers: [ADMIN] }, (stack) => {
      key = new kms.Key(stack, 'Key', { enableKeyRotation: true });
      return { encryptionKey: key };
    });
    expect(roleStatements(withKey, withKey.pipeline.operatorFunction!.role!)).toContainEqual(
      statement(withKey, ['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey'], [key.keyArn], viaServiceCondition('dynamodb', 'sqs')),
    );
  });

  test('cdk-nag AwsSolutions reports nothing', () => {
    const app = new App();
    const stack = new Stack(app, 'WithOperators');
    new AgentPipeline(stack, 'Pipeline', { environment: 'prod', agentBackend: AgentBackend.scripted(), adminPhoneNumbers: [ADMIN] });
    const findings = new AwsSolutionsChecks(app)
      .validateScope(app)
      .violations.flatMap((violation) => violation.violatingResources.map((resource) => `${violation.ruleName} at ${resource.constructPath}`));
    expect(findings).toEqual([]);
  });
});

describe('operator plane validation', () => {
  test.each([
    [{ adminPhoneNumbers: [] }, /adminPhoneNumbers is empty/],
    [{ adminPhoneNumbers: ['+55 11 91234-5678'] }, /8 to 15 digits.*'\+55 11 91234-5678'/],
    [{ adminPhoneNumbers: ['123'] }, /8 to 15 digits/],
    [{ adminPhoneNumbers: [ADMIN], timeZone: 'Mars/Olympus' }, /timeZone 'Mars\/Olympus' is not an IANA time zone/],
    [{ timeZone: 'Europe/Lisbon' }, /timeZone only apply to the operator plane/],
    [{ handoffTexts: { fallback: 'x' } }, /handoffTexts only apply to the operator plane/],
    [{ adminPhoneNumbers: [ADMIN], handoffRenotifyAfter: Duration.seconds(30) }, /handoffRenotifyAfter must be from 1 minute/],
    [{ adminPhoneNumbers: [ADMIN], customerRenotifyAfter: Duration.days(2) }, /customerRenotifyAfter must be from 1 minute .* to 24 hours/],
    [{ adminPhoneNumbers: [ADMIN], handoffTexts: { fallback: '  ' } }, /handoffTexts.fallback must be non-blank/],
    [{ adminPhoneNumbers: [ADMIN], handoffTexts: { operatorNotification: 'Abra {link} e atenda {name}' } }, /handoffTexts.operatorNotification: the console link goes last; put \{link\} at the end/],
  ])('%o is refused with a message that says what to change', (props, message) => {
    expect(() => synthPipeline(props)).toThrow(message);
  });
});
