import * as fs from 'node:fs';
import * as path from 'node:path';
import { App, Duration, Stack } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { AgentBackend, AgentPipeline, type AgentPipelineProps, AgentTool, AlarmSeverity, CrmTarget, LogLevel, type PipelineAlarmOptions, WhatsAppChannel } from '../../lib';
import { consumerCrmFunction, dashboardBody, pipelineProps, synthPipeline, XRAY_ACTIONS, type SynthesizedPipeline } from '../support/synthesized-pipeline';

const MODEL = 'anthropic.claude-sonnet-4-5-20250929-v1:0';

/** The alarm whose single metric has this name (custom metrics are named once each). */
function alarmOn(synth: SynthesizedPipeline, metricName: string) {
  const found = Object.values(synth.template.findResources('AWS::CloudWatch::Alarm', { Properties: { MetricName: metricName } }));
  expect(found).toHaveLength(1);
  return found[0].Properties;
}

describe('alarms on what the functions absorb (custom metrics)', () => {
  const synth = synthPipeline({ environment: 'prod', serviceName: 'gogenetic-agent' });

  test.each([
    ['WebhookServerError', 'webhookServerErrorsAlarm', 0],
    // A scanner's burst of unsigned POSTs must not page: a wrong app secret refuses more, for longer.
    ['WebhookSignatureRejected', 'webhookSignatureRejectedAlarm', 5],
    ['TurnFailedPermanently', 'turnFailedPermanentlyAlarm', 0],
    ['ReplyOutcomeUnknown', 'replyOutcomeUnknownAlarm', 0],
    ['DeliveryFailed', 'deliveryFailedAlarm', 0],
  ] as const)('%s: the Powertools series (namespace, service dimension), summed per minute, above its default threshold', (metricName, property, threshold) => {
    expect(alarmOn(synth, metricName)).toMatchObject({
      Namespace: 'gogenetic-agent',
      Dimensions: [{ Name: 'service', Value: 'gogenetic-agent-prod' }],
      Statistic: 'Sum',
      Period: 60,
      Threshold: threshold,
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
    for (const metricName of ['AgentInputTokens', 'TurnOverBudget', 'InboundForeignNumberDropped', 'InboundStaleDropped', 'InboundUnreadable']) expect(body).toContain(`\\"${metricName}\\"`);
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
    synth.template.resourceCountIs('AWS::CloudWatch::Alarm', 17);
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
      expect(functions).toHaveLength(7);
      for (const fn of functions) {
        expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
        expect(fn.Properties.Environment.Variables.POWERTOOLS_TRACE_ENABLED).toBeUndefined();
      }
      expect(xrayStatements).toHaveLength(7);
    });

    test('tracing: false turns it off on every function: no tracing config, Powertools told, no X-Ray permission', () => {
      const { functions, xrayStatements } = pipelineFunctions(false);
      expect(functions).toHaveLength(7);
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
    expect(synth.pipeline.alarms).toHaveLength(18);
    expect(synth.pipeline.alarms).toContain(synth.pipeline.modelThrottlesAlarm);
  });
});

describe('alarm names, severities and tuning', () => {
  const PHONE_NUMBERS = [{ id: 'phone-number-id-976c72a700aac43eaf573ae050example', metaPhoneNumberId: '106540352242922' }];
  const BUDGET = 1_000_000;
  /** Each alarm's defaults, as docs/OPERATIONS.md lists them: severity, datapoints to alarm, evaluation periods, threshold. */
  const DEFAULTS: Record<string, readonly [severity: 'critical' | 'warning', datapoints: number, periods: number, threshold: number]> = {
    deadLetterQueue: ['critical', 1, 1, 0],
    oldestMessageAge: ['critical', 1, 1, 600],
    webhookErrors: ['critical', 1, 1, 0],
    webhookThrottles: ['warning', 3, 5, 0],
    webhookDuration: ['warning', 3, 5, 8_000],
    webhookServerErrors: ['critical', 3, 5, 0],
    webhookSignatureRejected: ['warning', 5, 5, 5],
    orchestratorErrors: ['critical', 1, 1, 0],
    orchestratorThrottles: ['warning', 1, 1, 0],
    orchestratorDuration: ['warning', 3, 5, 72_000],
    turnFailedPermanently: ['critical', 1, 1, 0],
    turnFallback: ['warning', 1, 1, 0],
    replyOutcomeUnknown: ['warning', 1, 1, 0],
    deliveryFailed: ['warning', 1, 1, 0],
    mediaDownloadFailed: ['warning', 1, 1, 0],
    tableThrottles: ['warning', 3, 5, 0],
    modelThrottles: ['warning', 3, 5, 0],
    toolCallsFailed: ['warning', 3, 5, 0],
    idleSweeperErrors: ['warning', 1, 1, 0],
    crmSyncErrors: ['warning', 1, 1, 0],
    crmSyncBlocked: ['warning', 1, 1, 0],
    crmSyncUncertain: ['warning', 1, 1, 0],
    operatorErrors: ['critical', 1, 1, 0],
    handoffSweeperErrors: ['warning', 1, 1, 0],
    oldestHandoffWaiting: ['warning', 1, 1, 1_800],
    evaluatorErrors: ['warning', 1, 1, 0],
    pipelineBudgetNear: ['warning', 1, 1, 800_000],
    pipelineBudgetRefusals: ['critical', 1, 1, 0],
    inboundDeadLetterQueue: ['critical', 1, 1, 0],
    inboundEnvelopeRefused: ['warning', 1, 1, 0],
    dailyCost: ['warning', 1, 1, 50],
  };
  /** What an alarm's periods are, as the docs' table says it: a minute but for the cost alarm. */
  const periodUnit = (id: string) => (id === 'dailyCost' ? 'day' : 'min');

  /** Every alarm of the template by the id its name ends with. */
  function alarmsById(synth: SynthesizedPipeline, prefix = 'TestStack-Pipeline'): Record<string, ReturnType<SynthesizedPipeline['template']['findResources']>[string]> {
    const alarms = Object.values(synth.template.findResources('AWS::CloudWatch::Alarm')).map((alarm) => alarm.Properties);
    for (const alarm of alarms) expect(alarm.AlarmName).toMatch(new RegExp(`^${prefix}-[a-zA-Z]+$`));
    return Object.fromEntries(alarms.map((alarm) => [alarm.AlarmName.slice(prefix.length + 1), alarm]));
  }

  /** Both severities on their own topics, with every optional alarm the Cloud API can have. */
  function everyAlarm(overrides: Partial<AgentPipelineProps> = {}, alarms: PipelineAlarmOptions = {}) {
    const topics: { critical?: sns.Topic; warning?: sns.Topic } = {};
    const synth = synthPipeline(
      { adminPhoneNumbers: ['5511912345678'], pipelineBudget: { agentTokensPerDay: BUDGET }, ...overrides },
      (stack) => {
        topics.critical = new sns.Topic(stack, 'Critical');
        topics.warning = new sns.Topic(stack, 'Warning');
        const orders = lambda.Function.fromFunctionName(stack, 'Orders', 'orders-service');
        const tools = [AgentTool.fromFunction(orders, { name: 'check_order', description: 'An order by its number.', inputSchema: { type: 'object', properties: { number: { type: 'string' } } } })];
        return {
          agentBackend: overrides.agentBackend ?? AgentBackend.bedrock({ modelId: MODEL, tools }),
          crmSync: CrmTarget.fromFunction(consumerCrmFunction(stack)),
          alarms: { criticalTopic: topics.critical, warningTopic: topics.warning, dailyCostUsd: 50, ...alarms },
        };
      },
    );
    const arnOf = { critical: synth.stack.resolve(topics.critical!.topicArn), warning: synth.stack.resolve(topics.warning!.topicArn) };
    return { synth, arnOf };
  }

  test('every alarm is named `${prefix}-${alarmId}` and has its documented defaults: critical ones to the critical topic, warnings to the warning topic', () => {
    const { synth, arnOf } = everyAlarm();
    const eum = synthPipeline({ channel: WhatsAppChannel.endUserMessaging({ phoneNumbers: PHONE_NUMBERS }) }, (stack) => ({ alarmTopic: new sns.Topic(stack, 'OnCall') }));
    const byId = { ...alarmsById(eum), ...alarmsById(synth) };
    expect(Object.keys(byId).sort()).toEqual(Object.keys(DEFAULTS).sort());
    for (const [id, [severity, datapoints, periods, threshold]] of Object.entries(DEFAULTS)) {
      const alarm = byId[id];
      expect({ id, ...alarm }).toMatchObject({ id, DatapointsToAlarm: datapoints, EvaluationPeriods: periods, Threshold: threshold });
      expect(alarm.ActionsEnabled).toBeUndefined();
      if (!id.startsWith('inbound')) {
        expect({ id, actions: alarm.AlarmActions, ok: alarm.OKActions }).toEqual({ id, actions: [arnOf[severity]], ok: [arnOf[severity]] });
      }
    }
    expect(synth.pipeline.webhookSignatureRejectedAlarm.node.id).toBe('WebhookSignatureRejectedAlarm');
  });

  test('docs/OPERATIONS.md lists every alarm with its id, severity and defaults', () => {
    const readme = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'OPERATIONS.md'), 'utf8');
    for (const [id, [severity, datapoints, periods]] of Object.entries(DEFAULTS)) {
      const row = readme.split('\n').find((line) => line.startsWith(`| \`${id}\` |`));
      expect({ id, row }).toEqual({ id, row: expect.stringContaining(`| ${severity} |`) });
      expect({ id, row }).toEqual({ id, row: expect.stringContaining(`${datapoints} of ${periods} ${periodUnit(id)}`) });
    }
  });

  test('docs/RELIABILITY.md has the runbook entry every alarm description points to', () => {
    const runbook = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'RELIABILITY.md'), 'utf8').split('\n');
    const eum = synthPipeline({ channel: WhatsAppChannel.endUserMessaging({ phoneNumbers: PHONE_NUMBERS }) });
    const descriptions = Object.values({ ...alarmsById(eum), ...alarmsById(everyAlarm().synth) }).map((alarm) => alarm.AlarmDescription as string);
    expect(descriptions).toHaveLength(Object.keys(DEFAULTS).length);
    for (const description of descriptions) {
      const [, alarm] = /Runbook: docs\/RELIABILITY\.md, alarm (\w+)\.$/.exec(description)!;
      expect({ alarm, entry: runbook.some((line) => line.startsWith(`| \`${alarm}\``)) }).toEqual({ alarm, entry: true });
    }
  });

  test('alarmTopic takes both severities, or the one without a topic of its own', () => {
    let onCall!: sns.Topic;
    let warnings!: sns.Topic;
    const synth = synthPipeline({}, (stack) => {
      onCall = new sns.Topic(stack, 'OnCall');
      warnings = new sns.Topic(stack, 'Warnings');
      return { alarmTopic: onCall, alarms: { warningTopic: warnings } };
    });
    const byId = alarmsById(synth);
    expect(byId.deadLetterQueue.AlarmActions).toEqual([synth.stack.resolve(onCall.topicArn)]);
    expect(byId.webhookSignatureRejected.AlarmActions).toEqual([synth.stack.resolve(warnings.topicArn)]);

    const single = alarmsById(synthPipeline({}, (stack) => ({ alarmTopic: new sns.Topic(stack, 'OnCall') })));
    for (const alarm of Object.values(single)) expect(alarm.AlarmActions).toEqual([{ Ref: expect.stringMatching(/^OnCall/) }]);
  });

  test('a critical topic alone leaves the warnings without actions', () => {
    const byId = alarmsById(synthPipeline({}, (stack) => ({ alarms: { criticalTopic: new sns.Topic(stack, 'Critical') } })));
    expect(byId.deadLetterQueue.AlarmActions).toHaveLength(1);
    expect(byId.webhookSignatureRejected.AlarmActions).toBeUndefined();
  });

  test('overrides tune one alarm each: threshold, periods, severity, enabled; the rest keep their defaults', () => {
    const { synth, arnOf } = everyAlarm(
      { alarmThresholds: { functionErrors: 2 }, oldestMessageAgeAlarmThreshold: Duration.minutes(20) },
      {
        overrides: {
          webhookSignatureRejected: { threshold: 20, evaluationPeriods: 15, datapointsToAlarm: 10, severity: AlarmSeverity.CRITICAL },
          orchestratorErrors: { threshold: 0 },
          oldestMessageAge: { threshold: 300, severity: AlarmSeverity.WARNING },
          tableThrottles: { enabled: false },
          deadLetterQueue: { datapointsToAlarm: 3 },
          webhookServerErrors: { evaluationPeriods: 2 },
          orchestratorDuration: { threshold: 60_000 },
        },
      },
    );
    const byId = alarmsById(synth);
    expect(byId.webhookSignatureRejected).toMatchObject({ Threshold: 20, EvaluationPeriods: 15, DatapointsToAlarm: 10, AlarmActions: [arnOf.critical] });
    // The per-alarm threshold wins over alarmThresholds and oldestMessageAgeAlarmThreshold.
    expect(byId.orchestratorErrors.Threshold).toBe(0);
    expect(byId.webhookErrors.Threshold).toBe(2);
    expect(byId.oldestMessageAge).toMatchObject({ Threshold: 300, AlarmActions: [arnOf.warning], AlarmDescription: expect.stringContaining('older than 300 s') });
    expect(byId.orchestratorDuration).toMatchObject({ Threshold: 60_000, AlarmDescription: expect.stringContaining('p99 above 60000 ms') });
    // Disabled: kept, with its property, on the dashboard and in `alarms`, but notifying nobody.
    expect(byId.tableThrottles.ActionsEnabled).toBe(false);
    expect(byId.tableThrottles.AlarmActions).toBeUndefined();
    expect(byId.tableThrottles.OKActions).toBeUndefined();
    expect(synth.pipeline.alarms).toContain(synth.pipeline.tableThrottlesAlarm);
    expect(dashboardBody(synth)).toContain('PipelineTableThrottlesAlarm');
    // A datapoint count above the default periods raises them; fewer periods lower the datapoints.
    expect(byId.deadLetterQueue).toMatchObject({ EvaluationPeriods: 3, DatapointsToAlarm: 3 });
    expect(byId.webhookServerErrors).toMatchObject({ EvaluationPeriods: 2, DatapointsToAlarm: 2 });
    expect(byId.webhookThrottles).toMatchObject({ EvaluationPeriods: 5, DatapointsToAlarm: 3, AlarmActions: [arnOf.warning] });
  });

  test('alarmNamePrefix names every alarm; the default comes from the stack and the construct path', () => {
    const named = synthPipeline({ alarms: { alarmNamePrefix: 'orders-prod' } });
    expect(Object.keys(alarmsById(named, 'orders-prod'))).toHaveLength(17);
    expect(named.pipeline.deadLetterQueueAlarm.node.id).toBe('DeadLetterQueueAlarm');

    const stack = new Stack(new App(), 'Shop');
    const pipeline = new AgentPipeline(new Construct(stack, 'Messaging'), 'Pipeline', pipelineProps());
    expect(stack.resolve((pipeline.deadLetterQueueAlarm.node.defaultChild as cloudwatch.CfnAlarm).alarmName)).toBe('Shop-Messaging-Pipeline-deadLetterQueue');
  });

  test("dashboardName names the dashboard; by default it is the alarms' name prefix and the Region, since dashboards are named once per account", () => {
    const named = synthPipeline({ dashboardName: 'orders_prod-ops' });
    named.template.hasResourceProperties('AWS::CloudWatch::Dashboard', { DashboardName: 'orders_prod-ops' });
    synthPipeline({ environment: 'prod' }).template.hasResourceProperties('AWS::CloudWatch::Dashboard', {
      DashboardName: { 'Fn::Join': ['', ['TestStack-Pipeline-', { Ref: 'AWS::Region' }]] },
    });
    const stack = new Stack(new App(), 'Shop', { env: { region: 'sa-east-1' } });
    const dashboardName = (pipeline: AgentPipeline) => stack.resolve((pipeline.dashboard!.node.defaultChild as cloudwatch.CfnDashboard).dashboardName);
    expect(dashboardName(new AgentPipeline(stack, 'Pipeline', pipelineProps({ alarms: { alarmNamePrefix: 'orders prod' } })))).toBe('orders-prod-sa-east-1');
  });
});
