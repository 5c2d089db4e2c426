// The two template shapes of the `channel` prop: the Cloud API's (webhook URL, WhatsApp secret) and
// End User Messaging Social's (SNS-subscribed inbound function, IAM-scoped sends, no public URL).
import { App, Stack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import { AwsSolutionsChecks } from 'cdk-nag';
import { AgentBackend, AgentPipeline, WhatsAppChannel, type EndUserMessagingChannelOptions } from '../../lib';
import { RUNTIME_ENV } from '../../lib/contract';
import { dashboardBody, roleStatements, statement, synthPipeline, toldTo } from '../support/synthesized-pipeline';

const PHONE_NUMBERS = [
  { id: 'phone-number-id-976c72a700aac43eaf573ae050example', metaPhoneNumberId: '106540352242922' },
  { id: 'phone-number-id-0123456789abcdef0123456789abcdef', metaPhoneNumberId: '106540352242923' },
];
const endUserMessaging = (options: Partial<EndUserMessagingChannelOptions> = {}) => WhatsAppChannel.endUserMessaging({ phoneNumbers: PHONE_NUMBERS, ...options });
const phoneNumberArn = (resourceName: string) => ({ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':social-messaging:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:phone-number-id/${resourceName}`]] });

describe('the Cloud API (default)', () => {
  test('keeps the webhook URL and the WhatsApp secret, and creates no event topic', () => {
    for (const channel of [undefined, WhatsAppChannel.cloudApi()]) {
      const { pipeline, template } = synthPipeline({ channel });
      template.resourceCountIs('AWS::Lambda::Url', 1);
      template.resourceCountIs('AWS::SecretsManager::Secret', 1);
      template.resourceCountIs('AWS::SNS::Topic', 0);
      expect(pipeline.webhookUrl).toBeDefined();
      expect(pipeline.eventTopic).toBeUndefined();
    }
  });
});

describe('End User Messaging Social', () => {
  const synth = () => synthPipeline({ channel: endUserMessaging() });

  test('creates no Function URL and no WhatsApp secret', () => {
    const { pipeline, template } = synth();
    template.resourceCountIs('AWS::Lambda::Url', 0);
    template.resourceCountIs('AWS::SecretsManager::Secret', 0);
    expect(pipeline.webhookUrl).toBeUndefined();
    expect(pipeline.whatsAppSecret).toBeUndefined();
    const environments = Object.values(synth().template.findResources('AWS::Lambda::Function')).map((fn) => JSON.stringify(fn.Properties.Environment ?? {}));
    expect(environments.filter((environment) => environment.includes(RUNTIME_ENV.whatsAppSecretArn))).toEqual([]);
  });

  test('subscribes the inbound function to a standard topic End User Messaging of this account may publish to, and outputs its ARN', () => {
    const { stack, pipeline, template } = synth();
    template.hasResourceProperties('AWS::SNS::Topic', { FifoTopic: Match.absent() });
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'lambda', Endpoint: stack.resolve(pipeline.webhookFunction.functionArn) });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'social-messaging.amazonaws.com' },
            Action: 'sns:Publish',
            Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
          }),
        ]),
      },
    });
    template.hasOutput('*', { Value: stack.resolve(pipeline.eventTopic!.topicArn) });
    template.hasResourceProperties('AWS::Lambda::Function', { DeadLetterConfig: { TargetArn: stack.resolve(pipeline.inboundDeadLetterQueue!.queueArn) } });
    expect(toldTo({ stack, template }, pipeline.webhookFunction).document.endUserMessagingInbound.phoneNumbers).toEqual([
      { metaPhoneNumberId: '106540352242922', originationPhoneNumberId: 'phone-number-id-976c72a700aac43eaf573ae050example' },
      { metaPhoneNumberId: '106540352242923', originationPhoneNumberId: 'phone-number-id-0123456789abcdef0123456789abcdef' },
    ]);
  });

  test('alarms when an event waits in the inbound dead-letter queue (its messages are not registered)', () => {
    const { stack, pipeline, template } = synth();
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: stack.resolve(pipeline.inboundDeadLetterQueue!.queueName) }],
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      AlarmDescription: Match.stringLikeRegexp('InboundDeadLetterQueueAlarm'),
    });
    expect(pipeline.alarms).toContain(pipeline.inboundDeadLetterQueueAlarm);
    expect(synthPipeline().template.findResources('AWS::CloudWatch::Alarm', { Properties: { AlarmDescription: Match.stringLikeRegexp('InboundDeadLetterQueueAlarm') } })).toEqual({});
  });

  test('graphs malformed End User Messaging events among what was refused or dropped', () => {
    expect(dashboardBody(synth())).toContain('\\"InboundEnvelopeMalformed\\"');
  });

  test('lets the orchestrator send only from the given numbers, and read no secret', () => {
    const synthesized = synth();
    const statements = roleStatements(synthesized, synthesized.pipeline.orchestratorFunction.role!);
    expect(statements).toContainEqual(statement(synthesized, ['social-messaging:SendWhatsAppMessage'], [phoneNumberArn('976c72a700aac43eaf573ae050example'), phoneNumberArn('0123456789abcdef0123456789abcdef')]));
    expect(statements.flatMap((entry) => entry.actions).filter((action) => action.startsWith('secretsmanager:'))).toEqual([]);
    expect(toldTo(synthesized, synthesized.pipeline.orchestratorFunction).document.whatsApp).toMatchObject({ kind: 'end-user-messaging', metaApiVersion: 'v20.0' });
  });

  test('gives the operator and sweeper functions the same send permission when the operator plane is on', () => {
    const synthesized = synthPipeline({ channel: endUserMessaging(), adminPhoneNumbers: ['5511999990000'] });
    for (const fn of [synthesized.pipeline.operatorFunction!, synthesized.pipeline.handoffSweeperFunction!]) {
      expect(roleStatements(synthesized, fn.role!).flatMap((entry) => entry.actions)).toContain('social-messaging:SendWhatsAppMessage');
    }
  });

  test('subscribes to a topic the user gives instead of creating one', () => {
    const { stack, template } = synthPipeline({}, (scope) => ({ channel: endUserMessaging({ eventTopic: new sns.Topic(scope, 'Existing') }) }));
    template.resourceCountIs('AWS::SNS::Topic', 1);
    template.resourceCountIs('AWS::SNS::TopicPolicy', 0);
    template.hasResourceProperties('AWS::SNS::Subscription', { TopicArn: stack.resolve({ Ref: stack.getLogicalId(stack.node.findChild('Existing').node.defaultChild as never) }) });
  });

  test('encrypts the topic with the customer managed key and lets the service use it', () => {
    const { stack, template } = synthPipeline({}, (scope) => ({ channel: endUserMessaging(), encryptionKey: new kms.Key(scope, 'Key', { enableKeyRotation: true }) }));
    const keyRef = { 'Fn::GetAtt': [stack.getLogicalId(stack.node.findChild('Key').node.defaultChild as never), 'Arn'] };
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: keyRef });
    template.hasResourceProperties('AWS::KMS::Key', {
      KeyPolicy: { Statement: Match.arrayWith([Match.objectLike({ Principal: { Service: 'social-messaging.amazonaws.com' }, Action: ['kms:GenerateDataKey*', 'kms:Decrypt'] })]) },
    });
  });

  test('tells the inbound function where its events come from: the topic, the account and, when given, the WABAs', () => {
    const inboundEnvironment = (synthesized: ReturnType<typeof synth>) =>
      synthesized.template.toJSON().Resources[synthesized.stack.getLogicalId(synthesized.pipeline.webhookFunction.node.defaultChild as never)].Properties.Environment.Variables;
    const synthesized = synth();
    expect(inboundEnvironment(synthesized)).toMatchObject({
      [RUNTIME_ENV.endUserMessagingEventTopicArn]: synthesized.stack.resolve(synthesized.pipeline.eventTopic!.topicArn),
      [RUNTIME_ENV.endUserMessagingAccountId]: { Ref: 'AWS::AccountId' },
    });
    const wabaIdsOf = (synthesized: ReturnType<typeof synth>) => toldTo(synthesized, synthesized.pipeline.webhookFunction).document.endUserMessagingInbound.wabaIds;
    expect(wabaIdsOf(synthesized)).toBeNull();
    expect(wabaIdsOf(synthPipeline({ channel: endUserMessaging({ wabaIds: ['102290129340398', '102290129340398', '7'] }) }))).toEqual(['102290129340398', '7']);
  });

  test('alarms on a refused event, and graphs refusals with what was dropped', () => {
    const synthesized = synth();
    expect(synthesized.pipeline.alarms).toContain(synthesized.pipeline.inboundEnvelopeRefusedAlarm);
    synthesized.template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'InboundEnvelopeRefused', Threshold: 0, AlarmDescription: Match.stringLikeRegexp('InboundEnvelopeRefusedAlarm') });
    expect(dashboardBody(synthesized)).toContain('\\"InboundEnvelopeRefused\\"');
    expect(synthPipeline().pipeline.inboundEnvelopeRefusedAlarm).toBeUndefined();
  });

  test('what SNS cannot deliver to the function is parked in the inbound dead-letter queue, SNS using the key for this account’s topics only', () => {
    const { stack, pipeline, template } = synthPipeline({}, (scope) => ({ channel: endUserMessaging(), encryptionKey: new kms.Key(scope, 'Key', { enableKeyRotation: true }) }));
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'lambda', RedrivePolicy: { deadLetterTargetArn: stack.resolve(pipeline.inboundDeadLetterQueue!.queueArn) } });
    template.hasResourceProperties('AWS::KMS::Key', {
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: 'sns.amazonaws.com' },
            Action: ['kms:GenerateDataKey*', 'kms:Decrypt'],
            Condition: {
              StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
              ArnLike: { 'aws:SourceArn': { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':sns:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':*']] } },
            },
          }),
        ]),
      },
    });
  });

  test.each([
    ['no phone number', { phoneNumbers: [] }, /needs at least one phone number/],
    ["Meta's id where End User Messaging's belongs", { phoneNumbers: [{ id: '106540352242922', metaPhoneNumberId: '106540352242922' }] }, /must look like 'phone-number-id-'/],
    ['a Meta id that is not digits', { phoneNumbers: [{ id: PHONE_NUMBERS[0].id, metaPhoneNumberId: 'phone-number-id-1' }] }, /must be Meta's phone number id/],
    ['a number listed twice', { phoneNumbers: [PHONE_NUMBERS[0], PHONE_NUMBERS[0]] }, /is listed twice/],
    ['a malformed Meta API version', { phoneNumbers: PHONE_NUMBERS, metaApiVersion: '20' }, /metaApiVersion '20' must look like 'v20.0'/],
    ['an empty list of WABAs', { phoneNumbers: PHONE_NUMBERS, wabaIds: [] }, /wabaIds must list Meta's WhatsApp Business Account ids/],
    ['a WABA id that is not digits', { phoneNumbers: PHONE_NUMBERS, wabaIds: ['waba-fb2594b8a7974770b128a409e2example'] }, /wabaIds must list Meta's WhatsApp Business Account ids/],
  ])('refuses %s at synth, saying what to change', (_name, options, message) => {
    expect(() => synthPipeline({ channel: WhatsAppChannel.endUserMessaging(options) })).toThrow(message);
  });

  test('refuses the Cloud API props next to it', () => {
    expect(() => synthPipeline({ channel: endUserMessaging(), phoneNumberIds: ['106540352242922'] })).toThrow(/phoneNumberIds belongs to the Cloud API channel/);
    expect(() => synthPipeline({ channel: endUserMessaging(), whatsAppApiBaseUrl: 'https://graph.facebook.com/v24.0' })).toThrow(/whatsAppApiBaseUrl belongs to the Cloud API/);
    expect(() =>
      synthPipeline({}, (scope) => ({ channel: endUserMessaging(), whatsAppSecret: secretsmanager.Secret.fromSecretNameV2(scope, 'Secret', 'whatsapp') })),
    ).toThrow(/whatsAppSecret belongs to the Cloud API/);
  });

  test('has no unacknowledged cdk-nag finding, with or without a customer managed key', () => {
    for (const withKey of [false, true]) {
      const app = new App();
      const stack = new Stack(app, withKey ? 'WithKey' : 'WithoutKey');
      new AgentPipeline(stack, 'Pipeline', {
        environment: 'prod',
        agentBackend: AgentBackend.bedrock({ modelId: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' }),
        channel: endUserMessaging(),
        adminPhoneNumbers: ['5511999990000'],
        encryptionKey: withKey ? new kms.Key(stack, 'Key', { enableKeyRotation: true }) : undefined,
      });
      const findings = new AwsSolutionsChecks(app)
        .validateScope(app)
        .violations.flatMap((violation) => violation.violatingResources.map((resource) => `${violation.ruleName} at ${resource.constructPath}`));
      expect(findings).toEqual([]);
    }
  });
});
