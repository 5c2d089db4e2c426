import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { AgentBackend, CrmTarget } from '../../lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import { COST_GUARD_DEFAULTS, CUSTOM_METRICS, localePreset, RUNTIME_ENV } from '../../lib/contract';
import { consumerCrmFunction, roleStatements, synthPipeline, toldTo } from '../support/synthesized-pipeline';

const PHONE_NUMBER_ID = '106540352242922';

function webhookEnvironment(synth: ReturnType<typeof synthPipeline>): Record<string, unknown> {
  const resource = synth.template.findResources('AWS::Lambda::Function')[synth.stack.getLogicalId(synth.pipeline.webhookFunction.node.defaultChild as never)];
  return resource.Properties.Environment.Variables as Record<string, unknown>;
}

function warnings(synth: ReturnType<typeof synthPipeline>, text: string) {
  return Annotations.fromStack(synth.stack).findWarning('*', Match.stringLikeRegexp(text));
}

describe('business numbers', () => {
  test('phoneNumberIds reach the webhook, without a warning', () => {
    const synth = synthPipeline({ phoneNumberIds: [PHONE_NUMBER_ID, '1', PHONE_NUMBER_ID] });

    expect(webhookEnvironment(synth)[RUNTIME_ENV.businessPhoneNumberIds]).toBe(`${PHONE_NUMBER_ID},1`);
    expect(warnings(synth, 'phoneNumberIds is not set')).toHaveLength(0);
  });

  test('without phoneNumberIds every number is served, and synth warns about it', () => {
    const synth = synthPipeline();

    expect(webhookEnvironment(synth)[RUNTIME_ENV.businessPhoneNumberIds]).toBeUndefined();
    expect(warnings(synth, 'phoneNumberIds is not set')).toHaveLength(1);
  });

  test.each([['+5511987654321'], ['../me'], ['']])('refuses the id %p, which is not a Meta phone number id', (id) => {
    expect(() => synthPipeline({ phoneNumberIds: [id] })).toThrow('is not a Meta phone number id');
  });

  test('refuses an empty list', () => {
    expect(() => synthPipeline({ phoneNumberIds: [] })).toThrow('phoneNumberIds is empty');
  });
});

describe('webhook concurrency', () => {
  test('webhookReservedConcurrency reserves concurrency for the webhook only', () => {
    const synth = synthPipeline({ webhookReservedConcurrency: 20 });

    synth.template.hasResourceProperties('AWS::Lambda::Function', { Description: Match.stringLikeRegexp('^WhatsApp webhook'), ReservedConcurrentExecutions: 20 });
    synth.template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('^Turn orchestrator'),
      ReservedConcurrentExecutions: Match.absent(),
    });
  });

  test.each([0, 1.5, 1001])('refuses webhookReservedConcurrency %p', (webhookReservedConcurrency) => {
    expect(() => synthPipeline({ webhookReservedConcurrency })).toThrow('webhookReservedConcurrency must be a whole number from 1 to 1000');
  });
});

describe('the scripted agent in production', () => {
  test.each(['prod', 'production', 'prd', 'live', 'prod-eu', 'eu-prod'])('warns when the stage %p uses it', (environment) => {
    expect(warnings(synthPipeline({ environment, agentBackend: AgentBackend.scripted() }), 'looks like production')).toHaveLength(1);
  });

  test('the warning names the agents to use instead, not the deprecated AgentBackend.lambda()', () => {
    const [warning] = warnings(synthPipeline({ environment: 'prod', agentBackend: AgentBackend.scripted() }), 'looks like production');
    expect(String(warning.entry.data)).toMatch(/Use AgentBackend\.bedrock\(\) or AgentBackend\.fromFunction\(\)\.( \[ack: .*\])?$/);
    expect(String(warning.entry.data)).not.toContain('AgentBackend.lambda()');
  });

  test.each(['dev', 'staging', 'product-demo', 'test'])('stays quiet for the stage %p', (environment) => {
    expect(warnings(synthPipeline({ environment, agentBackend: AgentBackend.scripted() }), 'looks like production')).toHaveLength(0);
  });
});

/** What the orchestrator's settings document says. */
const orchestratorSettings = (synth: ReturnType<typeof synthPipeline>) => toldTo(synth, synth.pipeline.orchestratorFunction).document;

/** The texts of the pipeline's default locale, which the construct writes where no prop replaces them. */
const LOCALE_TEXTS = localePreset().texts;

describe('fallback texts', () => {
  test('the texts set reach the orchestrator; unset, the locale speaks', () => {
    const settings = orchestratorSettings(synthPipeline({ fallbackText: 'Tivemos um problema; tente de novo.', deadlineFallbackText: 'Um instante, por favor.' }));
    expect(settings.fallbackText).toBe('Tivemos um problema; tente de novo.');
    expect(settings.deadlineFallbackText).toBe('Um instante, por favor.');
    const defaults = orchestratorSettings(synthPipeline());
    expect(defaults.fallbackText).toBe(LOCALE_TEXTS.turnFailed);
    expect(defaults.deadlineFallbackText).toBe(LOCALE_TEXTS.agentDeadline);
  });

  test('the unsupported-message notice set reaches the orchestrator; unset, the locale speaks', () => {
    expect(orchestratorSettings(synthPipeline({ unsupportedMessageText: 'Só leio texto, fotos, áudios e documentos.' })).unsupportedMessageText).toBe('Só leio texto, fotos, áudios e documentos.');
    expect(orchestratorSettings(synthPipeline()).unsupportedMessageText).toBe(LOCALE_TEXTS.unsupportedMessage);
  });

  test.each([
    [{ fallbackText: ' ' }, 'fallbackText must be a non-blank text of at most 4096 characters'],
    [{ unsupportedMessageText: '' }, 'unsupportedMessageText must be a non-blank text of at most 4096 characters'],
    [{ deadlineFallbackText: 'x'.repeat(4097) }, 'deadlineFallbackText must be a non-blank text of at most 4096 characters (one WhatsApp message); got 4097 characters. Shorten it'],
  ])('refuses %p, saying what to change', (props, message) => {
    expect(() => synthPipeline(props)).toThrow(message);
  });
});

describe('cost guards', () => {
  test('the orchestrator runs at most 20 turns at once unless told otherwise', () => {
    synthPipeline().template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { ScalingConfig: { MaximumConcurrency: COST_GUARD_DEFAULTS.orchestratorMaxConcurrency } });
  });

  test('the budget fields set and the history cap reach the orchestrator, with the defaults of the rest', () => {
    const settings = orchestratorSettings(synthPipeline({ customerBudget: { turnsPerMinute: 4, reply: 'Devagar, por favor.' }, agentHistoryMaxCharacters: 8_000 }));
    expect(settings.customerBudget).toEqual({ turnsPerMinute: 4, turnsPerHour: COST_GUARD_DEFAULTS.turnsPerHour, agentTokensPerDay: COST_GUARD_DEFAULTS.agentTokensPerDay, reply: 'Devagar, por favor.' });
    expect(settings.agentHistoryMaxCharacters).toBe(8000);
  });

  test('without budget props the orchestrator runs on the defaults, and the locale’s reply', () => {
    const settings = orchestratorSettings(synthPipeline());
    expect(settings.customerBudget).toEqual({
      turnsPerMinute: COST_GUARD_DEFAULTS.turnsPerMinute,
      turnsPerHour: COST_GUARD_DEFAULTS.turnsPerHour,
      agentTokensPerDay: COST_GUARD_DEFAULTS.agentTokensPerDay,
      reply: LOCALE_TEXTS.customerOverBudgetReply,
    });
    expect(settings.agentHistoryMaxCharacters).toBe(COST_GUARD_DEFAULTS.historyMaxCharacters);
  });

  test.each([
    [{ customerBudget: { turnsPerMinute: 0 } }, 'customerBudget.turnsPerMinute must be a whole number from 1 to 10000; got 0.'],
    [{ customerBudget: { agentTokensPerDay: 2.5 } }, 'customerBudget.agentTokensPerDay must be a whole number'],
    [{ customerBudget: { turnsPerMinute: 30, turnsPerHour: 20 } }, 'customerBudget.turnsPerMinute (30) is more than turnsPerHour (20)'],
    [{ customerBudget: { reply: '  ' } }, 'customerBudget.reply must be a text of 1 to 1024 characters'],
    [{ customerBudget: { reply: 'x'.repeat(1025) } }, 'customerBudget.reply must be a text of 1 to 1024 characters'],
    [{ agentHistoryMaxCharacters: 10 }, 'agentHistoryMaxCharacters must be a whole number from 1000 to 200000; got 10.'],
  ])('refuses %p, saying what to change', (props, message) => {
    expect(() => synthPipeline(props)).toThrow(message);
  });

  test('metricTurnsOverBudget reads the metric the orchestrator emits', () => {
    expect(synthPipeline().pipeline.metricTurnsOverBudget().metricName).toBe(CUSTOM_METRICS.turnOverBudget);
  });
});

describe('the pipeline-wide budget', () => {
  const alarmOn = (synth: ReturnType<typeof synthPipeline>, metricName: string) => {
    const found = Object.values(synth.template.findResources('AWS::CloudWatch::Alarm', { Properties: { MetricName: metricName } }));
    expect(found).toHaveLength(1);
    return found[0].Properties;
  };

  test('is off by default: none in the orchestrator’s settings, no alarm, no metric on the dashboard', () => {
    const synth = synthPipeline();
    expect(orchestratorSettings(synth).pipelineBudget).toBeNull();
    expect(synth.pipeline.pipelineBudgetNearAlarm).toBeUndefined();
    expect(synth.pipeline.pipelineBudgetRefusalsAlarm).toBeUndefined();
    expect(JSON.stringify(synth.template.toJSON())).not.toContain(CUSTOM_METRICS.pipelineAgentTokensToday);
  });

  test('reaches the orchestrator, and alarms at 80 % of the day’s use and on the first refused turn', () => {
    const synth = synthPipeline({ environment: 'prod', serviceName: 'gogenetic-agent', pipelineBudget: { agentTokensPerDay: 5_000_000 } });
    expect(orchestratorSettings(synth).pipelineBudget).toEqual({ agentTokensPerDay: 5_000_000, reply: LOCALE_TEXTS.pipelineOverBudgetReply });

    expect(alarmOn(synth, CUSTOM_METRICS.pipelineAgentTokensToday)).toMatchObject({
      Namespace: 'gogenetic-agent',
      Dimensions: [{ Name: 'service', Value: 'gogenetic-agent-prod' }],
      Statistic: 'Maximum',
      Period: 60,
      Threshold: 4_000_000,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'ignore',
      AlarmDescription: expect.stringContaining('Runbook: docs/RELIABILITY.md, alarm PipelineBudgetNearAlarm.'),
    });
    expect(alarmOn(synth, CUSTOM_METRICS.turnOverPipelineBudget)).toMatchObject({ Statistic: 'Sum', Threshold: 0, TreatMissingData: 'notBreaching' });
    expect(synth.pipeline.alarms).toEqual(expect.arrayContaining([synth.pipeline.pipelineBudgetNearAlarm, synth.pipeline.pipelineBudgetRefusalsAlarm]));
    expect(synth.pipeline.metricPipelineAgentTokensToday().metricName).toBe(CUSTOM_METRICS.pipelineAgentTokensToday);
    expect(synth.pipeline.metricTurnsOverPipelineBudget().metricName).toBe(CUSTOM_METRICS.turnOverPipelineBudget);
  });

  test('takes the alarm share and the reply it is given', () => {
    const synth = synthPipeline({ pipelineBudget: { agentTokensPerDay: 1_000, alarmAtShareOfBudget: 0.5, reply: 'Voltamos amanhã.' } });
    expect(orchestratorSettings(synth).pipelineBudget).toEqual({ agentTokensPerDay: 1_000, reply: 'Voltamos amanhã.' });
    expect(alarmOn(synth, CUSTOM_METRICS.pipelineAgentTokensToday)).toMatchObject({ Threshold: 500 });
  });

  test.each([
    [{ agentTokensPerDay: 0 }, 'pipelineBudget.agentTokensPerDay must be a whole number from 1 to 1000000000000; got 0.'],
    [{ agentTokensPerDay: 1.5 }, 'pipelineBudget.agentTokensPerDay must be a whole number'],
    [{} as { agentTokensPerDay: number }, 'pipelineBudget.agentTokensPerDay is required'],
    [{ agentTokensPerDay: 10, alarmAtShareOfBudget: 0 }, 'pipelineBudget.alarmAtShareOfBudget must be above 0 and at most 1'],
    [{ agentTokensPerDay: 10, alarmAtShareOfBudget: 1.2 }, 'pipelineBudget.alarmAtShareOfBudget must be above 0 and at most 1'],
    [{ agentTokensPerDay: 10, reply: ' ' }, 'pipelineBudget.reply must be a text of 1 to 1024 characters'],
  ])('refuses %p, saying what to change', (pipelineBudget, message) => {
    expect(() => synthPipeline({ pipelineBudget })).toThrow(message);
  });
});

describe('least privilege on the table and its key', () => {
  /** The webhook's table statements: the partition patterns (dynamodb:LeadingKeys) and the actions of each. */
  function webhookTableStatements(synth: ReturnType<typeof synthPipeline>): { partitions: unknown[]; actions: unknown }[] {
    const tableArn = synth.stack.resolve(synth.pipeline.table.tableArn);
    return roleStatements(synth, synth.pipeline.webhookFunction.role!)
      .filter((entry) => JSON.stringify(entry.resources) === JSON.stringify([tableArn]))
      .map((entry) => ({ partitions: [(entry.condition as Record<string, Record<string, unknown>>)['ForAllValues:StringLike']['dynamodb:LeadingKeys']].flat(), actions: entry.actions }));
  }
  const webhookPartitions = (synth: ReturnType<typeof synthPipeline>) => webhookTableStatements(synth).flatMap((entry) => entry.partitions);

  // Besides the customer partitions, the inbox's version: a customer's message to the human inbox
  // changes a row people's lists show, and raises it — an UpdateItem of that one counter, nothing else.
  const WEBHOOK_PARTITIONS = new Set(['ADMIN#INBOX', 'DEBOUNCE#*', 'SESSION#*']);

  test('the webhook reaches only the customer inbound and session partitions, and the inbox version (dynamodb:LeadingKeys)', () => {
    const synth = synthPipeline();
    const partitions = webhookPartitions(synth);
    expect(partitions.length).toBeGreaterThan(0);
    expect(new Set(partitions)).toEqual(WEBHOOK_PARTITIONS);
    const onInboxVersion = webhookTableStatements(synth).filter((entry) => entry.partitions.includes('ADMIN#INBOX'));
    expect(onInboxVersion.map((entry) => entry.actions)).toEqual([['dynamodb:UpdateItem']]);
  });

  test('with CRM sync on, the webhook still reaches only those partitions: it reads the session to route, never its CRM row', () => {
    const synth = synthPipeline({}, (stack) => ({ crmSync: CrmTarget.fromFunction(consumerCrmFunction(stack)) }));
    expect(new Set(webhookPartitions(synth))).toEqual(WEBHOOK_PARTITIONS);
  });

  test('every grant on a customer managed key is usable only through DynamoDB, SQS, Secrets Manager or S3 (kms:ViaService)', () => {
    let keyArn: unknown;
    const synth = synthPipeline({ adminPhoneNumbers: ['5511999990000'] }, (stack) => {
      const key = new kms.Key(stack, 'Key');
      keyArn = key.keyArn;
      return { encryptionKey: key };
    });
    const resolvedKey = JSON.stringify(synth.stack.resolve(keyArn));
    const region = { Ref: 'AWS::Region' };
    const via = (service: string) => ({ 'Fn::Join': ['', [`${service}.`, region, '.amazonaws.com']] });
    const keyStatements = Object.values(synth.template.findResources('AWS::IAM::Policy'))
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Record<string, unknown>[])
      .filter((entry) => JSON.stringify(entry.Resource) === resolvedKey && entry.Condition !== undefined);
    // Webhook, orchestrator, operator, sweeper on the table; the webhook, orchestrator and operator on the queues.
    expect(keyStatements.length).toBeGreaterThanOrEqual(7);
    for (const entry of keyStatements) {
      const service = (entry.Condition as { StringEquals: { 'kms:ViaService': unknown } }).StringEquals['kms:ViaService'];
      expect([via('dynamodb'), via('sqs'), via('secretsmanager'), via('s3')]).toContainEqual(service);
    }
    // None without a condition: the orchestrator's event source no longer brings aws-cdk-lib's own Decrypt.
    const unconditioned = Object.values(synth.template.findResources('AWS::IAM::Policy'))
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Record<string, unknown>[])
      .filter((entry) => JSON.stringify(entry.Resource) === resolvedKey && entry.Condition === undefined);
    expect(unconditioned.map((entry) => entry.Action)).toEqual([]);
  });
});
