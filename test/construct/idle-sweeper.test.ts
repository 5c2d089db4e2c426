import { Duration } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { CrmTarget } from '../../lib';
import { synthPipeline } from '../support/synthesized-pipeline';

describe('the idle sweeper', () => {
  test('runs every 15 minutes with the default idle timeout of 24 hours, and its errors raise an alarm', () => {
    const { template, stack, pipeline } = synthPipeline();
    template.hasResourceProperties('AWS::Lambda::Function', {
      Role: stack.resolve(pipeline.idleSweeperFunction.role!.roleArn),
      Timeout: 300,
      Environment: { Variables: Match.objectLike({ CONVERSATION_IDLE_TIMEOUT_SECONDS: '86400', CONVERSATION_RETENTION_SECONDS: '31536000' }) },
    });
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(15 minutes)',
      Targets: [Match.objectLike({ Arn: stack.resolve(pipeline.idleSweeperFunction.functionArn), RetryPolicy: { MaximumRetryAttempts: 0 } })],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: stack.resolve(pipeline.idleSweeperFunction.functionName) }],
      AlarmDescription: Match.stringLikeRegexp('Runbook: docs/RELIABILITY.md, alarm IdleSweeperErrorsAlarm'),
    });
    expect(pipeline.alarms).toContain(pipeline.idleSweeperErrorsAlarm);
  });

  test('conversationIdleTimeout reaches it', () => {
    const { template, stack, pipeline } = synthPipeline({ conversationIdleTimeout: Duration.hours(6) });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Role: stack.resolve(pipeline.idleSweeperFunction.role!.roleArn),
      Environment: { Variables: Match.objectLike({ CONVERSATION_IDLE_TIMEOUT_SECONDS: '21600' }) },
    });
  });

  test.each([Duration.minutes(59), Duration.days(31)])('refuses an idle timeout of %s, saying what to set', (timeout) => {
    expect(() => synthPipeline({ conversationIdleTimeout: timeout })).toThrow(
      /AgentPipeline at 'TestStack\/Pipeline': conversationIdleTimeout must be from 1 hour \(Duration\.hours\(1\)\) to 30 days \(Duration\.days\(30\)\); got \d+ s\./,
    );
  });

  test('with crmSync, its session writes carry the projection', () => {
    const { template, stack, pipeline } = synthPipeline({}, (scope) => ({ crmSync: CrmTarget.webhook({ url: 'https://crm.example.com/hook', secret: new secretsmanager.Secret(scope, 'CrmSecret') }) }));
    template.hasResourceProperties('AWS::Lambda::Function', {
      Role: stack.resolve(pipeline.idleSweeperFunction.role!.roleArn),
      Environment: { Variables: Match.objectLike({ CRM_SYNC_ENABLED: 'true' }) },
    });
  });

  describe('with messageTemplates.reengagement', () => {
    const reengagement = { template: { name: 'retomar_conversa', language: 'pt_BR' }, after: Duration.hours(4) };
    const withReengagement = (props: Record<string, unknown> = {}, value: unknown = reengagement) =>
      synthPipeline({ adminPhoneNumbers: ['5511900000000'], messageTemplates: { reengagement: value as typeof reengagement }, ...props });

    test('names the template and the delay to the sweeper, which reads the channel secret to send', () => {
      const { template, stack, pipeline } = withReengagement();
      template.hasResourceProperties('AWS::Lambda::Function', {
        Role: stack.resolve(pipeline.idleSweeperFunction.role!.roleArn),
        Environment: {
          Variables: Match.objectLike({
            REENGAGEMENT_TEMPLATE: JSON.stringify(reengagement.template),
            REENGAGEMENT_AFTER_SECONDS: '14400',
            WHATSAPP_SECRET_ARN: stack.resolve(pipeline.whatsAppSecret!.secretArn),
          }),
        },
      });
      template.hasResourceProperties('AWS::IAM::Policy', {
        Roles: [stack.resolve(pipeline.idleSweeperFunction.role!.roleName)],
        PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Action: Match.arrayWith(['secretsmanager:GetSecretValue']), Resource: stack.resolve(pipeline.whatsAppSecret!.secretArn) })]) },
      });
    });

    test('without it, the sweeper neither reads the channel secret nor names a template', () => {
      const { template, stack, pipeline } = synthPipeline({ adminPhoneNumbers: ['5511900000000'] });
      const [sweeper] = Object.values(template.findResources('AWS::Lambda::Function', { Properties: { Role: stack.resolve(pipeline.idleSweeperFunction.role!.roleArn) } }));
      expect(Object.keys(sweeper.Properties.Environment.Variables)).not.toEqual(expect.arrayContaining(['REENGAGEMENT_TEMPLATE']));
      expect(Object.keys(sweeper.Properties.Environment.Variables)).not.toEqual(expect.arrayContaining(['WHATSAPP_SECRET_ARN']));
    });

    test.each([
      [Duration.minutes(10), {}],
      [Duration.hours(24), {}],
      [Duration.minutes(50), { conversationIdleTimeout: Duration.hours(1) }],
    ])('refuses after = %s, saying what to change', (after, props) => {
      expect(() => withReengagement(props, { ...reengagement, after })).toThrow(
        /AgentPipeline at 'TestStack\/Pipeline': messageTemplates\.reengagement\.after must be from 15 minutes to conversationIdleTimeout minus 15 minutes \(\d+ s\), so the re-engagement comes before the close; got \d+ s\. Shorten it, or lengthen conversationIdleTimeout\./,
      );
    });

    test('refuses a template WhatsApp Manager would not name so', () => {
      expect(() => withReengagement({}, { ...reengagement, template: { name: 'Retomar Conversa', language: 'pt_BR' } })).toThrow(/messageTemplates\.reengagement\.template must name a template as WhatsApp Manager shows it/);
    });

    test('is an operator plane prop: without adminPhoneNumbers it is refused', () => {
      expect(() => synthPipeline({ messageTemplates: { reengagement } })).toThrow(/messageTemplates only apply to the operator plane/);
    });
  });
});
