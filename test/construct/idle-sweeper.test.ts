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
});
