import { App, Duration, Stack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { AwsSolutionsChecks } from 'cdk-nag';
import { AgentBackend, AgentPipeline } from '../../lib';
import { CUSTOM_METRICS, DEFAULT_HANDOFF_TEXTS } from '../../lib/contract';
import { everyFunctionTold, synthPipeline, type SynthesizedPipeline, toldTo } from '../support/synthesized-pipeline';

const ADMIN = '5511912345678';

describe('AgentPipeline without adminPhoneNumbers', () => {
  test('creates no operator plane', () => {
    const synth = synthPipeline({ environment: 'prod' });
    // Webhook, orchestrator and the idle sweeper, on its schedule.
    expect([synth.pipeline.operatorErrorsAlarm, synth.pipeline.handoffSweeperErrorsAlarm, synth.pipeline.oldestHandoffWaitingAlarm, synth.pipeline.evaluatorErrorsAlarm]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    synth.template.resourceCountIs('AWS::Lambda::Function', 3);
    synth.template.resourceCountIs('AWS::Lambda::Url', 1);
    synth.template.resourceCountIs('AWS::Events::Rule', 1);
    expect(synth.pipeline.handoffSweeperFunction).toBeUndefined();
    expect(synth.pipeline.operatorFunction).toBeUndefined();
    expect(synth.pipeline.consoleUrl).toBeUndefined();
    const orchestrator = toldTo(synth, synth.pipeline.orchestratorFunction);
    expect(orchestrator.environment.CONSOLE_URL).toBeUndefined();
    expect([orchestrator.document.operatorAccess, orchestrator.document.handoffs]).toEqual([null, null]);
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
    // Webhook, orchestrator, idle sweeper, operator function, handoff sweeper and evaluator.
    template.resourceCountIs('AWS::Lambda::Function', 6);
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
          TURN_QUEUE_URL: stack.resolve(pipeline.queue.queueUrl),
          DEAD_LETTER_QUEUE_URL: stack.resolve(pipeline.deadLetterQueue.queueUrl),
        }),
      },
    });
    expect(toldTo(synth, pipeline.operatorFunction!).document.operatorAccess).toEqual({ adminPhoneNumbers: [ADMIN, '351912345678'], timeZone: 'Europe/Lisbon' });
    expect(stack.resolve(pipeline.consoleUrl)).toEqual(stack.resolve(pipeline.operatorFunctionUrl!.url));
  });

  test('the orchestrator learns the console URL and the admins (the URL belongs to the operator function: no cycle)', () => {
    const { template, pipeline, stack } = synth;
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('^Turn orchestrator'),
      Environment: { Variables: Match.objectLike({ CONSOLE_URL: stack.resolve(pipeline.operatorFunctionUrl!.url) }) },
    });
    const { document } = toldTo(synth, pipeline.orchestratorFunction);
    expect(document.operatorAccess).toEqual({ adminPhoneNumbers: [ADMIN, '351912345678'], timeZone: 'Europe/Lisbon' });
    expect(document.handoffs?.texts).toEqual({ ...DEFAULT_HANDOFF_TEXTS, fallback: 'Um momento, já chamo alguém.' });
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
      Environment: { Variables: Match.objectLike({ CONSOLE_URL: stack.resolve(pipeline.operatorFunctionUrl!.url) }) },
    });
    expect(toldTo(synth, pipeline.handoffSweeperFunction!).document.handoffs).toEqual({
      texts: { ...DEFAULT_HANDOFF_TEXTS, fallback: 'Um momento, já chamo alguém.' },
      renotifyOperatorsAfterMs: 180_000,
      remindCustomerAfterMs: 1_200_000,
      operatorNoticeTemplate: null,
    });
  });

  test('defaults: America/Sao_Paulo, renotify after 5 minutes, remind after 10, the locale’s texts', () => {
    const defaults = synthPipeline({ adminPhoneNumbers: [ADMIN] });
    expect(toldTo(defaults, defaults.pipeline.operatorFunction!).document.operatorAccess?.timeZone).toBe('America/Sao_Paulo');
    expect(toldTo(defaults, defaults.pipeline.handoffSweeperFunction!).document.handoffs).toMatchObject({ renotifyOperatorsAfterMs: 300_000, remindCustomerAfterMs: 600_000, texts: DEFAULT_HANDOFF_TEXTS });
  });

  test('the human side pages someone: operator and sweeper errors, and the customer waiting longest for a person, all exposed and on the dashboard', () => {
    const { pipeline, template, stack } = synth;
    const alarmOn = (alarm: cloudwatch.Alarm | undefined) => template.toJSON().Resources[stack.getLogicalId(alarm!.node.defaultChild as cloudwatch.CfnAlarm)].Properties;
    expect(alarmOn(pipeline.operatorErrorsAlarm)).toMatchObject({ MetricName: 'Errors', Namespace: 'AWS/Lambda', Dimensions: [{ Name: 'FunctionName', Value: stack.resolve(pipeline.operatorFunction!.functionName) }], Threshold: 0 });
    expect(alarmOn(pipeline.handoffSweeperErrorsAlarm)).toMatchObject({ MetricName: 'Errors', Dimensions: [{ Name: 'FunctionName', Value: stack.resolve(pipeline.handoffSweeperFunction!.functionName) }], Threshold: 0 });
    expect(alarmOn(pipeline.oldestHandoffWaitingAlarm)).toMatchObject({ MetricName: CUSTOM_METRICS.oldestHandoffWaitingSeconds, Statistic: 'Maximum', Threshold: 1800, TreatMissingData: 'ignore' });
    expect(alarmOn(pipeline.oldestHandoffWaitingAlarm).AlarmDescription).toMatch(/Runbook: docs\/RELIABILITY.md, alarm OldestHandoffWaitingAlarm\./);
    expect(pipeline.alarms).toEqual(expect.arrayContaining([pipeline.operatorErrorsAlarm, pipeline.handoffSweeperErrorsAlarm, pipeline.oldestHandoffWaitingAlarm]));
    expect(pipeline.metricOldestHandoffWaitingSeconds().metricName).toBe(CUSTOM_METRICS.oldestHandoffWaitingSeconds);
    expect(pipeline.metricHandoffsWaiting().metricName).toBe(CUSTOM_METRICS.handoffsWaiting);
    const body = JSON.stringify(stack.resolve((pipeline.dashboard!.node.defaultChild as cloudwatch.CfnDashboard).dashboardBody));
    for (const name of [CUSTOM_METRICS.handoffsWaiting, CUSTOM_METRICS.oldestHandoffWaitingSeconds, CUSTOM_METRICS.operatorRequestFailed]) expect(body).toContain(name);
  });

  test('the prompt evaluator crashing or timing out warns: its errors, exposed, tunable and on the dashboard', () => {
    const { pipeline, template, stack } = synth;
    const alarm = template.toJSON().Resources[stack.getLogicalId(pipeline.evaluatorErrorsAlarm!.node.defaultChild as cloudwatch.CfnAlarm)].Properties;
    expect(alarm).toMatchObject({ MetricName: 'Errors', Namespace: 'AWS/Lambda', Dimensions: [{ Name: 'FunctionName', Value: stack.resolve(pipeline.evaluatorFunction!.functionName) }], Threshold: 0 });
    expect(alarm.AlarmDescription).toMatch(/not finished.*cannot pass the gate.*eval --stack fails\. Runbook: docs\/RELIABILITY.md, alarm EvaluatorErrorsAlarm\.$/);
    expect(pipeline.alarms).toContain(pipeline.evaluatorErrorsAlarm);
    const body = JSON.stringify(stack.resolve((pipeline.dashboard!.node.defaultChild as cloudwatch.CfnDashboard).dashboardBody));
    expect(body).toContain('Prompt evaluator errors');
    expect(body).toContain(stack.resolve(pipeline.evaluatorFunction!.functionName).Ref);
    const tuned = synthPipeline({ adminPhoneNumbers: [ADMIN], alarmThresholds: { functionErrors: 2 }, alarms: { overrides: { evaluatorErrors: { threshold: 4 } } } });
    expect(tuned.template.toJSON().Resources[tuned.stack.getLogicalId(tuned.pipeline.evaluatorErrorsAlarm!.node.defaultChild as cloudwatch.CfnAlarm)].Properties.Threshold).toBe(4);
  });

  test('the handoff wait threshold is a prop', () => {
    const custom = synthPipeline({ adminPhoneNumbers: [ADMIN], alarmThresholds: { handoffWaitingMinutes: 5 } });
    custom.template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: CUSTOM_METRICS.oldestHandoffWaitingSeconds, Threshold: 300 });
  });

  test('the operator function has reserved concurrency, 10 unless set: a flood of its public URL cannot take the account’s', () => {
    const reservedOf = (synthesized: SynthesizedPipeline) =>
      synthesized.template.toJSON().Resources[synthesized.stack.getLogicalId(synthesized.pipeline.operatorFunction!.node.defaultChild as never)].Properties.ReservedConcurrentExecutions;
    expect(reservedOf(synth)).toBe(10);
    expect(reservedOf(synthPipeline({ adminPhoneNumbers: [ADMIN], operatorReservedConcurrency: 25 }))).toBe(25);
    // The sweeper is invoked by its schedule alone; the orchestrator is capped by its event source.
    synth.template.hasResourceProperties('AWS::Lambda::Function', { Description: Match.stringLikeRegexp('^Handoff sweeper'), ReservedConcurrentExecutions: Match.absent() });
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

describe('consoleFrontDoor', () => {
  const WEB_ACL = 'arn:aws:wafv2:us-east-1:123456789012:global/webacl/console/a1b2c3d4-5678-90ab-cdef-EXAMPLE11111';

  test('a CloudFront distribution signs every request to the operator URL, which then takes AWS_IAM only, with the web ACL attached', () => {
    const { template, pipeline, stack } = synthPipeline({ adminPhoneNumbers: [ADMIN], consoleFrontDoor: { webAclArn: WEB_ACL } });
    template.hasResourceProperties('AWS::Lambda::Url', { AuthType: 'AWS_IAM', TargetFunctionArn: stack.resolve(pipeline.operatorFunction!.functionArn) });
    template.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        WebACLId: WEB_ACL,
        DefaultCacheBehavior: Match.objectLike({ ViewerProtocolPolicy: 'https-only', AllowedMethods: Match.arrayWith(['PUT', 'POST', 'DELETE']) }),
      }),
    });
    // Only CloudFront, and only this distribution, may invoke it; principal '*' is left to the webhook's URL.
    const operatorLogicalId = stack.getLogicalId(pipeline.operatorFunction!.node.defaultChild as never);
    const permissions = Object.values(template.findResources('AWS::Lambda::Permission')).filter((permission) => JSON.stringify(permission.Properties.FunctionName).includes(operatorLogicalId.slice(0, -8)));
    expect(permissions.map((permission) => [permission.Properties.Action, permission.Properties.Principal, permission.Properties.SourceArn !== undefined]).sort()).toEqual([
      ['lambda:InvokeFunction', 'cloudfront.amazonaws.com', true],
      ['lambda:InvokeFunctionUrl', 'cloudfront.amazonaws.com', true],
    ]);
    expect(pipeline.consoleDistribution).toBeDefined();
  });

  test('login links and the stack output point at the distribution', () => {
    const { template, pipeline, stack } = synthPipeline({ adminPhoneNumbers: [ADMIN], consoleFrontDoor: {} });
    const distributionUrl = stack.resolve(`https://${pipeline.consoleDistribution!.distributionDomainName}/`);
    expect(stack.resolve(pipeline.consoleUrl)).toEqual(distributionUrl);
    expect(template.toJSON().Outputs.PipelineConsoleUrl.Value).toEqual(distributionUrl);
    for (const description of ['^Turn orchestrator', '^Handoff sweeper']) {
      template.hasResourceProperties('AWS::Lambda::Function', { Description: Match.stringLikeRegexp(description), Environment: { Variables: Match.objectLike({ CONSOLE_URL: distributionUrl }) } });
    }
  });

  test('with its own domain the links use the first name, and viewers need TLS 1.2', () => {
    const { template, pipeline, stack } = synthPipeline({ adminPhoneNumbers: [ADMIN] }, (scope) => ({
      consoleFrontDoor: { domainNames: ['console.example.com'], certificate: acm.Certificate.fromCertificateArn(scope, 'Certificate', 'arn:aws:acm:us-east-1:123456789012:certificate/abc') },
    }));
    expect(stack.resolve(pipeline.consoleUrl)).toBe('https://console.example.com/');
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({ Aliases: ['console.example.com'], ViewerCertificate: Match.objectLike({ MinimumProtocolVersion: 'TLSv1.2_2021' }) }),
    });
  });

  test('cdk-nag AwsSolutions reports nothing, with or without a web ACL', () => {
    for (const consoleFrontDoor of [{}, { webAclArn: WEB_ACL }]) {
      const app = new App();
      new AgentPipeline(new Stack(app, 'FrontDoor'), 'Pipeline', { environment: 'prod', agentBackend: AgentBackend.scripted(), adminPhoneNumbers: [ADMIN], consoleFrontDoor });
      const findings = new AwsSolutionsChecks(app)
        .validateScope(app)
        .violations.flatMap((violation) => violation.violatingResources.map((resource) => `${violation.ruleName} at ${resource.constructPath}`));
      expect(findings).toEqual([]);
    }
  });

  test('names the deploy-time admins to the operator function alone, trimmed; without names it gets none', () => {
    const named = synthPipeline({ adminPhoneNumbers: [ADMIN, '351912345678'], adminDisplayNames: { [ADMIN]: '  Ana Lima ', '351912345678': 'João' } });
    const namesOf = (synth: SynthesizedPipeline) => toldTo(synth, synth.pipeline.operatorFunction!).document.adminDisplayNames;
    expect(namesOf(named)).toEqual({ [ADMIN]: 'Ana Lima', '351912345678': 'João' });
    const withNames = Object.values(everyFunctionTold(named)).filter(({ document }) => document.adminDisplayNames !== undefined);
    expect(withNames).toHaveLength(1);
    expect(namesOf(synthPipeline({ adminPhoneNumbers: [ADMIN] }))).toEqual({});
  });

  test('without it the console keeps its own public URL and no distribution is created', () => {
    const { template } = synthPipeline({ adminPhoneNumbers: [ADMIN] });
    template.resourceCountIs('AWS::CloudFront::Distribution', 0);
    template.hasResourceProperties('AWS::Lambda::Url', { AuthType: 'NONE' });
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
    [{ operatorReservedConcurrency: 5 }, /operatorReservedConcurrency only apply to the operator plane/],
    [{ consoleFrontDoor: {} }, /consoleFrontDoor only apply to the operator plane/],
    [{ adminPhoneNumbers: [ADMIN], consoleFrontDoor: { domainNames: ['console.example.com'] } }, /consoleFrontDoor.domainNames and consoleFrontDoor.certificate go together/],
    [{ adminPhoneNumbers: [ADMIN], operatorReservedConcurrency: 0 }, /operatorReservedConcurrency must be a whole number from 1 to 900; got 0/],
    [{ adminPhoneNumbers: [ADMIN], operatorReservedConcurrency: 1000 }, /operatorReservedConcurrency must be a whole number from 1 to 900; got 1000/],
    [{ adminPhoneNumbers: [ADMIN], operatorReservedConcurrency: 2.5 }, /operatorReservedConcurrency must be a whole number/],
    [{ adminPhoneNumbers: [ADMIN], handoffTexts: { operatorNotification: 'Abra {link} e atenda {name}' } }, /handoffTexts.operatorNotification: the console link goes last; put \{link\} at the end/],
    [{ adminDisplayNames: { [ADMIN]: 'Ana' } }, /adminDisplayNames only apply to the operator plane/],
    [{ adminPhoneNumbers: [ADMIN], adminDisplayNames: { '5511900000009': 'Ana' } }, /adminDisplayNames names '5511900000009', not in adminPhoneNumbers/],
    [{ adminPhoneNumbers: [ADMIN], adminDisplayNames: { [ADMIN]: '   ' } }, /adminDisplayNames must give each admin a name of 1 to 60 characters; fix the names of '\d+'/],
    [{ adminPhoneNumbers: [ADMIN], adminDisplayNames: { [ADMIN]: 'A'.repeat(61) } }, /adminDisplayNames must give each admin a name of 1 to 60 characters/],
  ])('%o is refused with a message that says what to change', (props, message) => {
    expect(() => synthPipeline(props)).toThrow(message);
  });
});
