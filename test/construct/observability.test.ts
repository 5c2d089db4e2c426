import { Duration } from 'aws-cdk-lib';
import * as sns from 'aws-cdk-lib/aws-sns';
import { AgentBackend, CrmTarget, LogLevel } from '../../lib';
import { consumerCrmFunction, dashboardBody, synthPipeline, XRAY_ACTIONS, type SynthesizedPipeline } from '../support/synthesized-pipeline';

const MODEL = 'anthropic.claude-sonnet-4-5-20250929-v1:0';

/** The alarm whose single metric has this name (custom metrics are named once each). */
function alarmOn(synth: SynthesizedPipeline, metricName: string) {
  const found = Object.values(synth.template.findResources('AWS::CloudWatch::Alarm', { Properties: { MetricName: metricName } }));
  expect(found).toHaveLength(1);
  return found[0].Properties;
}

describe('alarms on what the functions absorb (custom metrics)', () => {
  const synth = synthPipeline({ environment: 'prod' });

  test.each([
    ['WebhookServerError', 'webhookServerErrorsAlarm'],
    ['WebhookSignatureRejected', 'webhookSignatureRejectedAlarm'],
    ['TurnFailedPermanently', 'turnFailedPermanentlyAlarm'],
    ['ReplyOutcomeUnknown', 'replyOutcomeUnknownAlarm'],
    ['DeliveryFailed', 'deliveryFailedAlarm'],
  ] as const)('%s: the Powertools series (namespace, service dimension), summed per minute, above 0', (metricName, property) => {
    expect(alarmOn(synth, metricName)).toMatchObject({
      Namespace: 'gogenetic-agent',
      Dimensions: [{ Name: 'service', Value: 'gogenetic-agent-prod' }],
      Statistic: 'Sum',
      Period: 60,
      Threshold: 0,
      AlarmDescription: expect.stringMatching(/Runbook: docs\/RELIABILITY.md, alarm \w+Alarm\.$/),
    });
    expect(synth.pipeline[property].node.id).toBe(property.replace(/^./, (c) => c.toUpperCase()));
  });

  test('duration alarms: p99 above 80 % of each function’s timeout', () => {
    for (const [fn, thresholdMs] of [
      [synth.pipeline.webhookFunction, 8_000],
      [synth.pipeline.orchestratorFunction, 72_000],
    ] as const) {
      synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/Lambda',
        MetricName: 'Duration',
        Dimensions: [{ Name: 'FunctionName', Value: synth.stack.resolve(fn.functionName) }],
        ExtendedStatistic: 'p99',
        Threshold: thresholdMs,
      });
    }
  });

  test('the metric helpers name exactly the alarms’ series', () => {
    const helperSeries = [
      synth.pipeline.metricWebhookServerErrors(),
      synth.pipeline.metricWebhookSignatureRejected(),
      synth.pipeline.metricTurnsFailedPermanently(),
      synth.pipeline.metricReplyOutcomeUnknown(),
      synth.pipeline.metricDeliveryFailed(),
    ].map((metric) => [metric.namespace, metric.metricName, metric.dimensions]);
    expect(helperSeries).toEqual(
      ['WebhookServerError', 'WebhookSignatureRejected', 'TurnFailedPermanently', 'ReplyOutcomeUnknown', 'DeliveryFailed'].map((name) => [
        'gogenetic-agent',
        name,
        { service: 'gogenetic-agent-prod' },
      ]),
    );
    expect(synth.pipeline.metricAgentLatency().statistic).toBe('p99');
    expect(synth.pipeline.metricAgentInputTokens({ period: Duration.hours(1) }).period.toSeconds()).toBe(3600);
    for (const metric of [synth.pipeline.metricInboundReceived(), synth.pipeline.metricTurnsAnswered(), synth.pipeline.metricRepliesRefused(), synth.pipeline.metricAgentOutputTokens()]) {
      expect(metric.namespace).toBe('gogenetic-agent');
      expect(metric.dimensions).toEqual({ service: 'gogenetic-agent-prod' });
    }
    expect([synth.pipeline.metricInboundReceived(), synth.pipeline.metricTurnsAnswered(), synth.pipeline.metricRepliesRefused()].map((m) => m.metricName)).toEqual([
      'InboundReceived',
      'Turn_answered',
      'Turn_failed_permanent',
    ]);
  });

  test('a dashboard by default: every graph, what the guards refused or dropped, every alarm in its status widget', () => {
    synth.template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    const body = dashboardBody(synth);
    for (const title of ['Traffic', 'Turn latency', 'Replies', 'Failures', 'Dead-letter queue and queue age', 'Agent tokens', 'Refused and dropped', 'Throttles', 'Alarms']) {
      expect(body).toContain(`\\"title\\":\\"${title}\\"`);
    }
    for (const metricName of ['AgentInputTokens', 'TurnOverBudget', 'InboundForeignNumberDropped', 'InboundStaleDropped']) expect(body).toContain(`\\"${metricName}\\"`);
    // Only the End User Messaging channel has envelopes to be malformed.
    expect(body).not.toContain('InboundEnvelopeMalformed');
    expect(synth.pipeline.dashboard).toBeDefined();
  });
});

describe('thresholds, dashboard and log level are props', () => {
  test('thresholds move the alarms', () => {
    const synth = synthPipeline({
      alarmThresholds: { webhookSignatureRejections: 5, permanentTurnFailures: 2, durationShareOfTimeout: 0.5, deadLetterQueueMessages: 3, functionErrors: 1 },
    });
    expect(alarmOn(synth, 'WebhookSignatureRejected').Threshold).toBe(5);
    expect(alarmOn(synth, 'TurnFailedPermanently').Threshold).toBe(2);
    expect(alarmOn(synth, 'ApproximateNumberOfMessagesVisible').Threshold).toBe(3);
    expect(alarmOn(synth, 'WebhookServerError').Threshold).toBe(0);
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'Duration', Threshold: 45_000 });
    // The webhook's, the orchestrator's and the idle sweeper's.
    expect(Object.values(synth.template.findResources('AWS::CloudWatch::Alarm', { Properties: { MetricName: 'Errors' } })).map((a) => a.Properties.Threshold)).toEqual([1, 1, 1]);
  });

  test('dashboard: false creates none; alarms stay', () => {
    const synth = synthPipeline({ dashboard: false });
    synth.template.resourceCountIs('AWS::CloudWatch::Dashboard', 0);
    synth.template.resourceCountIs('AWS::CloudWatch::Alarm', 16);
    expect(synth.pipeline.dashboard).toBeUndefined();
  });

  test('logLevel reaches every function', () => {
    const synth = synthPipeline({ logLevel: LogLevel.DEBUG });
    const levels = Object.values(synth.template.findResources('AWS::Lambda::Function')).map((fn) => fn.Properties.Environment.Variables.POWERTOOLS_LOG_LEVEL);
    expect(levels).toEqual(['DEBUG', 'DEBUG', 'DEBUG']);
  });

  describe('tracing', () => {
    /** The functions of a pipeline with the operator plane and a CRM target (all but the End User Messaging receiver), not the consumer's CRM function. */
    function pipelineFunctions(tracing?: boolean) {
      const synth = synthPipeline({ adminPhoneNumbers: ['5511912345678'], ...(tracing === undefined ? {} : { tracing }) }, (stack) => ({
        crmSync: CrmTarget.fromFunction(consumerCrmFunction(stack)),
      }));
      const functions = Object.values(synth.template.findResources('AWS::Lambda::Function')).filter((fn) => fn.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME);
      const xrayStatements = Object.values(synth.template.findResources('AWS::IAM::Policy'))
        .flatMap((policy) => policy.Properties.PolicyDocument.Statement)
        .filter((statement: { Action: string | string[] }) => [statement.Action].flat().some((action) => XRAY_ACTIONS.includes(action)));
      return { functions, xrayStatements };
    }

    test('by default every function is traced actively and may write to X-Ray', () => {
      const { functions, xrayStatements } = pipelineFunctions();
      expect(functions).toHaveLength(6);
      for (const fn of functions) {
        expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
        expect(fn.Properties.Environment.Variables.POWERTOOLS_TRACE_ENABLED).toBeUndefined();
      }
      expect(xrayStatements).toHaveLength(6);
    });

    test('tracing: false turns it off on every function: no tracing config, Powertools told, no X-Ray permission', () => {
      const { functions, xrayStatements } = pipelineFunctions(false);
      expect(functions).toHaveLength(6);
      for (const fn of functions) {
        expect(fn.Properties.TracingConfig).toBeUndefined();
        expect(fn.Properties.Environment.Variables.POWERTOOLS_TRACE_ENABLED).toBe('false');
      }
      expect(xrayStatements).toEqual([]);
    });
  });

  test.each([
    [{ webhookServerErrors: -1 }, /alarmThresholds.webhookServerErrors must be a count of 0 or more; got -1/],
    [{ durationShareOfTimeout: 1.5 }, /alarmThresholds.durationShareOfTimeout must be above 0 and at most 1/],
    [{ durationShareOfTimeout: 0 }, /alarmThresholds.durationShareOfTimeout must be above 0 and at most 1/],
  ])('bad thresholds %p are refused', (alarmThresholds, message) => {
    expect(() => synthPipeline({ alarmThresholds })).toThrow(message);
  });
});

describe('Bedrock model throttling', () => {
  test('an alarm on AWS/Bedrock InvocationThrottles for the model, wired to the topic like the rest', () => {
    let topic!: sns.Topic;
    const synth = synthPipeline({ agentBackend: AgentBackend.bedrock({ modelId: `eu.${MODEL}` }), alarmThresholds: { modelThrottles: 4 } }, (stack) => {
      topic = new sns.Topic(stack, 'Alarms');
      return { alarmTopic: topic };
    });
    expect(alarmOn(synth, 'InvocationThrottles')).toMatchObject({
      Namespace: 'AWS/Bedrock',
      Dimensions: [{ Name: 'ModelId', Value: `eu.${MODEL}` }],
      Statistic: 'Sum',
      Threshold: 4,
      AlarmActions: [synth.stack.resolve(topic.topicArn)],
    });
    expect(synth.pipeline.alarms).toHaveLength(17);
    expect(synth.pipeline.alarms).toContain(synth.pipeline.modelThrottlesAlarm);
  });
});
