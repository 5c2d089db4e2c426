import { Duration } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { CrmTarget } from '../../lib';
import { synthPipeline, toldTo } from '../support/synthesized-pipeline';

describe('the idle sweeper', () => {
  test('runs every 15 minutes with the default idle timeout of 24 hours, and its errors raise an alarm', () => {
    const synth = synthPipeline();
    const { template, stack, pipeline } = synth;
    template.hasResourceProperties('AWS::Lambda::Function', { Role: stack.resolve(pipeline.idleSweeperFunction.role!.roleArn), Timeout: 300 });
    expect(toldTo(synth, pipeline.idleSweeperFunction).document).toMatchObject({ idleSweep: { idleTimeoutMs: 86_400_000 }, retention: { conversationSeconds: 31_536_000 } });
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
    const synth = synthPipeline({ conversationIdleTimeout: Duration.hours(6) });
    expect(toldTo(synth, synth.pipeline.idleSweeperFunction).document.idleSweep).toEqual({ idleTimeoutMs: 21_600_000 });
  });

  test.each([Duration.minutes(59), Duration.days(31)])('refuses an idle timeout of %s, saying what to set', (timeout) => {
    expect(() => synthPipeline({ conversationIdleTimeout: timeout })).toThrow(
      /AgentPipeline at 'TestStack\/Pipeline': conversationIdleTimeout must be from 1 hour \(Duration\.hours\(1\)\) to 30 days \(Duration\.days\(30\)\); got \d+ s\./,
    );
  });

  test('with crmSync, its session writes carry the projection', () => {
    const synth = synthPipeline({}, (scope) => ({ crmSync: CrmTarget.webhook({ url: 'https://crm.example.com/hook', secret: new secretsmanager.Secret(scope, 'CrmSecret') }) }));
    expect(toldTo(synth, synth.pipeline.idleSweeperFunction).document.crmSyncEnabled).toBe(true);
  });

  describe('with messageTemplates.reengagement', () => {
    const reengagement = { template: { name: 'retomar_conversa', language: 'pt_BR' }, after: Duration.hours(4) };
    const withReengagement = (props: Record<string, unknown> = {}, value: unknown = reengagement) =>
      synthPipeline({ adminPhoneNumbers: ['5511900000000'], messageTemplates: { reengagement: value as typeof reengagement }, ...props });

    test('names the template and the delay to the sweeper, which reads the channel secret to send', () => {
      const synth = withReengagement();
      const { template, stack, pipeline } = synth;
      const sweeper = toldTo(synth, pipeline.idleSweeperFunction);
      expect(sweeper.environment).toMatchObject({ WHATSAPP_SECRET_ARN: stack.resolve(pipeline.whatsAppSecret!.secretArn) });
      expect(sweeper.document.reengagement).toEqual({ template: reengagement.template, afterMs: 14_400_000, whatsApp: { kind: 'cloud-api', businessAccountId: null } });
      template.hasResourceProperties('AWS::IAM::Policy', {
        Roles: [stack.resolve(pipeline.idleSweeperFunction.role!.roleName)],
        PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Action: Match.arrayWith(['secretsmanager:GetSecretValue']), Resource: stack.resolve(pipeline.whatsAppSecret!.secretArn) })]) },
      });
    });

    test('without it, the sweeper neither reads the channel secret nor names a template', () => {
      const synth = synthPipeline({ adminPhoneNumbers: ['5511900000000'] });
      const sweeper = toldTo(synth, synth.pipeline.idleSweeperFunction);
      expect(sweeper.document.reengagement).toBeNull();
      expect(Object.keys(sweeper.environment)).not.toEqual(expect.arrayContaining(['WHATSAPP_SECRET_ARN']));
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
