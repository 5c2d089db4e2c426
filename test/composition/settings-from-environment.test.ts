import { COST_GUARD_DEFAULTS, CRM_TARGET_KINDS, DEFAULT_HANDOFF_TEXTS, handoffTextsOf, Locale, LOCALE_PRESETS, OPERATOR_DEFAULTS, OPERATOR_ENV, PIPELINE_BUDGET_DEFAULTS, PIPELINE_DEFAULTS, RUNTIME_ENV } from '../../lib/contract';
import {
  AgentConfigurationError,
  keyLayoutFromEnvironment,
  readCrmSyncSettings,
  readEndUserMessagingInboundSettings,
  readHandoffSweeperSettings,
  localeFromEnvironment,
  readIdleSweeperSettings,
  readOperatorSettings,
  readOrchestratorSettings,
  readWebhookSettings,
  RuntimeConfigError,
} from '../../lambda/composition/settings-from-environment';
import { DEFAULT_RETENTION } from '../../lambda/core/domain/privacy';
import { handler as webhookHandler } from '../../lambda/webhook';
import { functionUrlEvent } from '../support/webhook-events';

const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:whatsapp-AbCdEf';

const webhookEnvironment = {
  [RUNTIME_ENV.tableName]: 'agent-table',
  [RUNTIME_ENV.turnQueueUrl]: 'https://sqs.us-east-1.amazonaws.com/123456789012/agent-debounce-prod.fifo',
  [RUNTIME_ENV.whatsAppSecretArn]: SECRET_ARN,
};

const orchestratorEnvironment = {
  [RUNTIME_ENV.tableName]: 'agent-table',
  [RUNTIME_ENV.whatsAppSecretArn]: SECRET_ARN,
  [RUNTIME_ENV.agentBackend]: 'bedrock',
  [RUNTIME_ENV.bedrockModelId]: 'amazon.nova-pro-v1:0',
};

function without(env: Record<string, string>, name: string): Record<string, string> {
  const { [name]: _removed, ...rest } = env;
  return rest;
}

/** Each function's reader with the least environment the construct gives that function. */
const FUNCTIONS: Record<string, { read: (env: NodeJS.ProcessEnv) => { tableName: string; locale: Locale }; env: Record<string, string> }> = {
  webhook: { read: readWebhookSettings, env: webhookEnvironment },
  'End User Messaging inbound function': {
    read: readEndUserMessagingInboundSettings,
    env: {
      [RUNTIME_ENV.tableName]: 'agent-table',
      [RUNTIME_ENV.turnQueueUrl]: webhookEnvironment[RUNTIME_ENV.turnQueueUrl],
      [RUNTIME_ENV.endUserMessagingPhoneNumbers]: '106540352242922=phone-number-id-976c72a700aac43eaf573ae050example, 2=phone-number-id-0123abc',
      [RUNTIME_ENV.endUserMessagingEventTopicArn]: 'arn:aws:sns:us-east-1:123456789012:whatsapp-events',
      [RUNTIME_ENV.endUserMessagingAccountId]: '123456789012',
    },
  },
  orchestrator: { read: readOrchestratorSettings, env: orchestratorEnvironment },
  'operator function': {
    read: readOperatorSettings,
    env: {
      [RUNTIME_ENV.tableName]: 'agent-table',
      [RUNTIME_ENV.whatsAppSecretArn]: SECRET_ARN,
      [RUNTIME_ENV.turnQueueUrl]: webhookEnvironment[RUNTIME_ENV.turnQueueUrl],
      [OPERATOR_ENV.deadLetterQueueUrl]: 'https://sqs.us-east-1.amazonaws.com/123456789012/agent-dlq-prod.fifo',
      [OPERATOR_ENV.adminPhoneNumbers]: '5511999990000',
    },
  },
  'handoff sweeper': {
    read: readHandoffSweeperSettings,
    env: { [RUNTIME_ENV.tableName]: 'agent-table', [RUNTIME_ENV.whatsAppSecretArn]: SECRET_ARN, [OPERATOR_ENV.adminPhoneNumbers]: '5511999990000', [OPERATOR_ENV.consoleUrl]: 'https://console.lambda-url.us-east-1.on.aws/' },
  },
  'CRM sync worker': {
    read: readCrmSyncSettings,
    env: { [RUNTIME_ENV.tableName]: 'agent-table', [RUNTIME_ENV.crmTarget]: CRM_TARGET_KINDS.function, [RUNTIME_ENV.crmFunctionName]: 'crm-bridge' },
  },
  'idle sweeper': { read: readIdleSweeperSettings, env: { [RUNTIME_ENV.tableName]: 'agent-table', [RUNTIME_ENV.conversationIdleTimeoutSeconds]: '21600' } },
};

describe('the webhook', () => {
  it('reads what the construct sets', () => {
    expect(readWebhookSettings({ ...webhookEnvironment, [RUNTIME_ENV.serviceName]: 'clinic', [RUNTIME_ENV.metricsNamespace]: 'Clinic' })).toEqual({
      tableName: 'agent-table',
      turnQueueUrl: webhookEnvironment[RUNTIME_ENV.turnQueueUrl],
      whatsAppSecretArn: SECRET_ARN,
      observability: { serviceName: 'clinic', metricsNamespace: 'Clinic' },
      keyLayout: 'seed',
      crmSyncEnabled: false,
      retention: DEFAULT_RETENTION,
      locale: Locale.PT_BR,
    });
  });

  it('reads the business numbers it serves', () => {
    expect(readWebhookSettings({ ...webhookEnvironment, [RUNTIME_ENV.businessPhoneNumberIds]: '106540352242922, 1' }).businessPhoneNumberIds).toEqual(['106540352242922', '1']);
    expect(readWebhookSettings(webhookEnvironment).businessPhoneNumberIds).toBeUndefined();
  });

  it('refuses business numbers that are not Meta ids', () => {
    expect(() => readWebhookSettings({ ...webhookEnvironment, [RUNTIME_ENV.businessPhoneNumberIds]: '1,../me' })).toThrow(RuntimeConfigError);
  });

  it.each([RUNTIME_ENV.tableName, RUNTIME_ENV.turnQueueUrl, RUNTIME_ENV.whatsAppSecretArn])('names %s when it is missing', (name) => {
    expect(() => readWebhookSettings(without(webhookEnvironment, name))).toThrow(RuntimeConfigError);
    expect(() => readWebhookSettings(without(webhookEnvironment, name))).toThrow(`Environment variable ${name} is not set`);
  });
});

describe('the orchestrator', () => {
  it('reads what the construct sets, with the defaults for what it may leave out', () => {
    expect(readOrchestratorSettings(orchestratorEnvironment)).toEqual({
      tableName: 'agent-table',
      whatsApp: { kind: 'cloud-api', whatsAppSecretArn: SECRET_ARN, apiBaseUrl: PIPELINE_DEFAULTS.whatsAppApiBaseUrl },
      agent: { backend: 'bedrock', modelId: 'amazon.nova-pro-v1:0' },
      maxReceiveCount: PIPELINE_DEFAULTS.maxReceiveCount,
      observability: {},
      keyLayout: 'seed',
      crmSyncEnabled: false,
      retention: DEFAULT_RETENTION,
      locale: Locale.PT_BR,
      customerBudget: {
        turnsPerMinute: COST_GUARD_DEFAULTS.turnsPerMinute,
        turnsPerHour: COST_GUARD_DEFAULTS.turnsPerHour,
        agentTokensPerDay: COST_GUARD_DEFAULTS.agentTokensPerDay,
        reply: COST_GUARD_DEFAULTS.overBudgetReply,
      },
      historyMaxCharacters: COST_GUARD_DEFAULTS.historyMaxCharacters,
    });
  });

  it('reads the fallback texts the construct sets: the turn’s for the use case, the deadline’s for the agent adapter', () => {
    const config = readOrchestratorSettings({
      ...orchestratorEnvironment,
      [RUNTIME_ENV.fallbackText]: 'Tivemos um problema; tente de novo.',
      [RUNTIME_ENV.deadlineFallbackText]: 'Um instante, por favor.',
    });
    expect(config.fallbackText).toBe('Tivemos um problema; tente de novo.');
    expect(config.agent).toEqual({ backend: 'bedrock', modelId: 'amazon.nova-pro-v1:0', fallbackReply: 'Um instante, por favor.' });
  });

  it('reads the unsupported-message notice the construct sets; unset, the locale’s text is used', () => {
    expect(readOrchestratorSettings({ ...orchestratorEnvironment, [RUNTIME_ENV.unsupportedMessageText]: 'Só leio texto.' }).unsupportedMessageText).toBe('Só leio texto.');
    expect(readOrchestratorSettings(orchestratorEnvironment).unsupportedMessageText).toBeUndefined();
  });

  it('reads the customer budget and the history cap, keeping the defaults of what the budget leaves out', () => {
    const config = readOrchestratorSettings({
      ...orchestratorEnvironment,
      [RUNTIME_ENV.customerBudget]: JSON.stringify({ turnsPerMinute: 4, reply: 'Devagar, por favor.' }),
      [RUNTIME_ENV.agentHistoryMaxCharacters]: '8000',
    });
    expect(config.customerBudget).toEqual({ turnsPerMinute: 4, turnsPerHour: COST_GUARD_DEFAULTS.turnsPerHour, agentTokensPerDay: COST_GUARD_DEFAULTS.agentTokensPerDay, reply: 'Devagar, por favor.' });
    expect(config.historyMaxCharacters).toBe(8000);
  });

  it.each(['not json', '[]', '{"turnsPerMinute":0}', '{"turnsPerHour":1.5}', '{"reply":""}', '{"turnsPerDay":3}'])('refuses the budget %s, naming the variable', (value) => {
    expect(() => readOrchestratorSettings({ ...orchestratorEnvironment, [RUNTIME_ENV.customerBudget]: value })).toThrow(RUNTIME_ENV.customerBudget);
  });

  it('transcribes voice notes only when the construct names a language, waiting as long as it says', () => {
    const media = { ...orchestratorEnvironment, [RUNTIME_ENV.mediaBucketName]: 'media-bucket' };
    expect(readOrchestratorSettings(media).media?.transcription).toBeUndefined();
    expect(readOrchestratorSettings({ ...media, [RUNTIME_ENV.mediaTranscriptionLanguageCode]: 'pt-BR', [RUNTIME_ENV.mediaTranscriptionMaxWaitSeconds]: '20' }).media?.transcription).toEqual({
      languageCode: 'pt-BR',
      maxWaitMs: 20_000,
      pollIntervalMs: 2_000,
    });
    expect(() => readOrchestratorSettings({ ...media, [RUNTIME_ENV.mediaTranscriptionLanguageCode]: 'pt-BR', [RUNTIME_ENV.mediaTranscriptionMaxWaitSeconds]: '0' })).toThrow(RUNTIME_ENV.mediaTranscriptionMaxWaitSeconds);
  });

  it('reads the pipeline-wide budget when the construct sets one, with the default reply; none without it', () => {
    expect(readOrchestratorSettings(orchestratorEnvironment).pipelineBudget).toBeUndefined();
    const set = (value: object) => readOrchestratorSettings({ ...orchestratorEnvironment, [RUNTIME_ENV.pipelineBudget]: JSON.stringify(value) }).pipelineBudget;
    expect(set({ agentTokensPerDay: 5_000_000 })).toEqual({ agentTokensPerDay: 5_000_000, reply: PIPELINE_BUDGET_DEFAULTS.overBudgetReply });
    expect(set({ agentTokensPerDay: 10, reply: 'Volte amanhã.' })).toEqual({ agentTokensPerDay: 10, reply: 'Volte amanhã.' });
  });

  it.each(['not json', '{}', '{"agentTokensPerDay":0}', '{"agentTokensPerDay":10,"reply":" "}', '{"agentTokensPerDay":10,"turnsPerMinute":3}'])('refuses the pipeline budget %s, naming the variable', (value) => {
    expect(() => readOrchestratorSettings({ ...orchestratorEnvironment, [RUNTIME_ENV.pipelineBudget]: value })).toThrow(RUNTIME_ENV.pipelineBudget);
  });

  it('takes an overridden Graph API root and receive count', () => {
    const config = readOrchestratorSettings({ ...orchestratorEnvironment, [RUNTIME_ENV.whatsAppApiBaseUrl]: 'http://127.0.0.1:9999/v23.0', [RUNTIME_ENV.maxReceiveCount]: '5' });
    expect(config).toMatchObject({ whatsApp: { apiBaseUrl: 'http://127.0.0.1:9999/v23.0' }, maxReceiveCount: 5 });
  });

  it.each(['0', '2.5', 'three'])('refuses a receive count of %s, naming the variable', (value) => {
    expect(() => readOrchestratorSettings({ ...orchestratorEnvironment, [RUNTIME_ENV.maxReceiveCount]: value })).toThrow(`${RUNTIME_ENV.maxReceiveCount}="${value}"`);
  });

  it.each([RUNTIME_ENV.tableName, RUNTIME_ENV.whatsAppSecretArn])('names %s when it is missing', (name) => {
    expect(() => readOrchestratorSettings(without(orchestratorEnvironment, name))).toThrow(`Environment variable ${name} is not set`);
  });

  it('names the agent variable that is missing', () => {
    expect(() => readOrchestratorSettings(without(orchestratorEnvironment, RUNTIME_ENV.bedrockModelId))).toThrow(AgentConfigurationError);
    expect(() => readOrchestratorSettings(without(orchestratorEnvironment, RUNTIME_ENV.bedrockModelId))).toThrow(RUNTIME_ENV.bedrockModelId);
  });
});

describe('the WhatsApp channel', () => {
  const endUserMessaging = {
    ...without(orchestratorEnvironment, RUNTIME_ENV.whatsAppSecretArn),
    [RUNTIME_ENV.whatsAppChannel]: 'end-user-messaging',
    [RUNTIME_ENV.endUserMessagingPhoneNumbers]: '106540352242922=phone-number-id-976c72a700aac43eaf573ae050example, 2=phone-number-id-0123abc',
  };

  it('reads End User Messaging numbers and needs no WhatsApp secret', () => {
    expect(readOrchestratorSettings(endUserMessaging).whatsApp).toEqual({
      kind: 'end-user-messaging',
      phoneNumbers: new Map([
        ['106540352242922', 'phone-number-id-976c72a700aac43eaf573ae050example'],
        ['2', 'phone-number-id-0123abc'],
      ]),
      metaApiVersion: PIPELINE_DEFAULTS.endUserMessagingMetaApiVersion,
    });
  });

  it.each(['106540352242922', '106540352242922=976c72a7', 'abc=phone-number-id-1', '1=phone-number-id-1=2'])('refuses the number pair %s, naming the variable', (value) => {
    expect(() => readOrchestratorSettings({ ...endUserMessaging, [RUNTIME_ENV.endUserMessagingPhoneNumbers]: value })).toThrow(RUNTIME_ENV.endUserMessagingPhoneNumbers);
  });

  it('refuses an unknown channel and End User Messaging without numbers', () => {
    expect(() => readOrchestratorSettings({ ...orchestratorEnvironment, [RUNTIME_ENV.whatsAppChannel]: 'telegram' })).toThrow(`${RUNTIME_ENV.whatsAppChannel}="telegram"`);
    expect(() => readOrchestratorSettings(without(endUserMessaging, RUNTIME_ENV.endUserMessagingPhoneNumbers))).toThrow(RUNTIME_ENV.endUserMessagingPhoneNumbers);
  });
});

describe('the key layout (every function, read where it composes its repositories)', () => {
  it('is seed when the construct left it out, else the phase it set', () => {
    expect(keyLayoutFromEnvironment({})).toBe('seed');
    expect(keyLayoutFromEnvironment({ [RUNTIME_ENV.keyLayout]: 'migrating' })).toBe('migrating');
    expect(keyLayoutFromEnvironment({ [RUNTIME_ENV.keyLayout]: ' sharded ' })).toBe('sharded');
  });

  it('stops the cold start on an unknown phase, naming the variable and the choices', () => {
    const read = () => keyLayoutFromEnvironment({ [RUNTIME_ENV.keyLayout]: 'shards' });
    expect(read).toThrow(RuntimeConfigError);
    expect(read).toThrow(/KEY_LAYOUT: Unknown key layout "shards": use one of seed, migrating, sharded/);
  });

  it.each(Object.entries(FUNCTIONS))('is read by the %s, as are the CRM projection and the retention', (_name, { read, env }) => {
    const settings = read({
      ...env,
      [RUNTIME_ENV.keyLayout]: 'migrating',
      [RUNTIME_ENV.crmSyncEnabled]: 'true',
      [RUNTIME_ENV.conversationRetentionSeconds]: '86400',
      [RUNTIME_ENV.demandRetentionSeconds]: '172800',
    });
    expect(settings).toMatchObject({ tableName: 'agent-table', keyLayout: 'migrating', crmSyncEnabled: true, retention: { conversationSeconds: 86_400, demandSeconds: 172_800 } });
    expect(() => read({ ...env, [RUNTIME_ENV.keyLayout]: 'sharded-ish' })).toThrow(RuntimeConfigError);
  });

  it('reaches the repositories a handler composes: the first invocation stops on it', () => {
    const previous = { ...process.env };
    Object.assign(process.env, webhookEnvironment, { [RUNTIME_ENV.keyLayout]: 'sharded-ish' });
    try {
      expect(() => webhookHandler(functionUrlEvent('GET'))).toThrow(RuntimeConfigError);
    } finally {
      for (const name of [...Object.keys(webhookEnvironment), RUNTIME_ENV.keyLayout]) {
        if (previous[name] === undefined) delete process.env[name];
        else process.env[name] = previous[name];
      }
    }
  });
});

describe('the operator plane', () => {
  const operatorEnvironment = {
    ...without(orchestratorEnvironment, RUNTIME_ENV.agentBackend),
    [RUNTIME_ENV.turnQueueUrl]: webhookEnvironment[RUNTIME_ENV.turnQueueUrl],
    [OPERATOR_ENV.deadLetterQueueUrl]: 'https://sqs.us-east-1.amazonaws.com/123456789012/agent-dlq-prod.fifo',
    [OPERATOR_ENV.adminPhoneNumbers]: '5511999990000, 5511999990001',
  };
  const planeEnvironment = { ...orchestratorEnvironment, [OPERATOR_ENV.adminPhoneNumbers]: '5511999990000', [OPERATOR_ENV.consoleUrl]: 'https://console.lambda-url.us-east-1.on.aws/' };

  it('is off in the orchestrator without admins or without the console URL', () => {
    expect(readOrchestratorSettings(orchestratorEnvironment).operatorPlane).toBeUndefined();
    expect(readOrchestratorSettings(without(planeEnvironment, OPERATOR_ENV.consoleUrl)).operatorPlane).toBeUndefined();
  });

  it('reaches the orchestrator and the sweeper whole, with the defaults the construct may leave out', () => {
    const plane = {
      adminPhoneNumbers: ['5511999990000'],
      consoleUrl: 'https://console.lambda-url.us-east-1.on.aws/',
      timeZone: OPERATOR_DEFAULTS.timeZone,
      texts: DEFAULT_HANDOFF_TEXTS,
      renotifyOperatorsAfterMs: OPERATOR_DEFAULTS.handoffRenotifyAfterSeconds * 1000,
      remindCustomerAfterMs: OPERATOR_DEFAULTS.customerRenotifyAfterSeconds * 1000,
    };
    expect(readOrchestratorSettings(planeEnvironment).operatorPlane).toEqual(plane);
    expect(readHandoffSweeperSettings(without(planeEnvironment, RUNTIME_ENV.agentBackend)).operatorPlane).toEqual(plane);
  });

  it('reads the texts, the time zone and the delays the construct set', () => {
    const plane = readOrchestratorSettings({
      ...planeEnvironment,
      [OPERATOR_ENV.timeZone]: 'Europe/Lisbon',
      [OPERATOR_ENV.handoffTexts]: JSON.stringify({ fallback: 'Um momento.' }),
      [OPERATOR_ENV.handoffRenotifyAfterSeconds]: '120',
      [OPERATOR_ENV.customerRenotifyAfterSeconds]: '900',
    }).operatorPlane;
    expect(plane).toMatchObject({ timeZone: 'Europe/Lisbon', texts: { ...DEFAULT_HANDOFF_TEXTS, fallback: 'Um momento.' }, renotifyOperatorsAfterMs: 120_000, remindCustomerAfterMs: 900_000 });
  });

  it.each([
    [OPERATOR_ENV.handoffTexts, '{"fallback":'],
    [OPERATOR_ENV.handoffRenotifyAfterSeconds, '0'],
    [OPERATOR_ENV.customerRenotifyAfterSeconds, 'soon'],
  ])('refuses %s=%s, naming the variable', (name, value) => {
    expect(() => readOrchestratorSettings({ ...planeEnvironment, [name]: value })).toThrow(RuntimeConfigError);
    expect(() => readOrchestratorSettings({ ...planeEnvironment, [name]: value })).toThrow(name);
  });

  it('stops the sweeper without it', () => {
    expect(() => readHandoffSweeperSettings(without(planeEnvironment, OPERATOR_ENV.consoleUrl))).toThrow(RuntimeConfigError);
  });

  it('gives the operator function who may sign in, and its queues', () => {
    expect(readOperatorSettings(operatorEnvironment)).toMatchObject({
      operatorPlane: { adminPhoneNumbers: ['5511999990000', '5511999990001'], timeZone: OPERATOR_DEFAULTS.timeZone },
      turnQueueUrl: webhookEnvironment[RUNTIME_ENV.turnQueueUrl],
      deadLetterQueueUrl: operatorEnvironment[OPERATOR_ENV.deadLetterQueueUrl],
      whatsApp: { kind: 'cloud-api', whatsAppSecretArn: SECRET_ARN },
    });
  });

  it('gives it the names the deployment gives its admins, and refuses a name that is not text', () => {
    const names = { '5511999990000': 'Ana Lima' };
    expect(readOperatorSettings({ ...operatorEnvironment, [OPERATOR_ENV.adminDisplayNames]: JSON.stringify(names) }).operatorPlane).toMatchObject({ adminDisplayNames: names });
    expect(readOperatorSettings(operatorEnvironment).operatorPlane).not.toHaveProperty('adminDisplayNames');
    expect(() => readOperatorSettings({ ...operatorEnvironment, [OPERATOR_ENV.adminDisplayNames]: '{"5511999990000":7}' })).toThrow(OPERATOR_ENV.adminDisplayNames);
  });

  it.each([RUNTIME_ENV.tableName, RUNTIME_ENV.turnQueueUrl, OPERATOR_ENV.deadLetterQueueUrl, OPERATOR_ENV.adminPhoneNumbers])('names %s when the operator function misses it', (name) => {
    expect(() => readOperatorSettings(without(operatorEnvironment, name))).toThrow(`Environment variable ${name} is not set`);
  });
});

describe('the End User Messaging inbound function', () => {
  it('serves the linked numbers', () => {
    expect(readEndUserMessagingInboundSettings(FUNCTIONS['End User Messaging inbound function'].env).businessPhoneNumberIds).toEqual(['106540352242922', '2']);
  });

  it.each([RUNTIME_ENV.tableName, RUNTIME_ENV.turnQueueUrl, RUNTIME_ENV.endUserMessagingPhoneNumbers, RUNTIME_ENV.endUserMessagingEventTopicArn, RUNTIME_ENV.endUserMessagingAccountId])(
    'names %s when it is missing',
    (name) => {
      expect(() => readEndUserMessagingInboundSettings(without(FUNCTIONS['End User Messaging inbound function'].env, name))).toThrow(`Environment variable ${name} is not set`);
    },
  );

  it('takes events only from the topic, the account, the linked numbers and, when given, the WABAs', () => {
    const env = FUNCTIONS['End User Messaging inbound function'].env;
    expect(readEndUserMessagingInboundSettings(env).eventSource).toEqual({
      topicArn: 'arn:aws:sns:us-east-1:123456789012:whatsapp-events',
      accountId: '123456789012',
      phoneNumbers: new Map([
        ['106540352242922', 'phone-number-id-976c72a700aac43eaf573ae050example'],
        ['2', 'phone-number-id-0123abc'],
      ]),
      wabaIds: undefined,
    });
    expect(readEndUserMessagingInboundSettings({ ...env, [RUNTIME_ENV.endUserMessagingWabaIds]: '102290129340398, 7' }).eventSource.wabaIds).toEqual(new Set(['102290129340398', '7']));
  });

  it.each([
    [RUNTIME_ENV.endUserMessagingAccountId, '1234', 'is not an AWS account id'],
    [RUNTIME_ENV.endUserMessagingWabaIds, 'waba-1', 'not Meta WABA ids'],
  ])('refuses %s=%s', (name, value, message) => {
    expect(() => readEndUserMessagingInboundSettings({ ...FUNCTIONS['End User Messaging inbound function'].env, [name]: value })).toThrow(message);
  });
});

describe('the CRM sync worker', () => {
  it('reads a function target and a webhook target', () => {
    expect(readCrmSyncSettings(FUNCTIONS['CRM sync worker'].env).crmTarget).toEqual({ kind: 'function', functionName: 'crm-bridge' });
    const webhook = { [RUNTIME_ENV.tableName]: 'agent-table', [RUNTIME_ENV.crmTarget]: CRM_TARGET_KINDS.webhook, [RUNTIME_ENV.crmWebhookUrl]: 'https://crm.example.com/hook', [RUNTIME_ENV.crmWebhookSecretArn]: SECRET_ARN };
    expect(readCrmSyncSettings(webhook).crmTarget).toEqual({ kind: 'webhook', url: 'https://crm.example.com/hook', secretArn: SECRET_ARN });
  });

  it('refuses an unknown target and a webhook without its secret', () => {
    expect(() => readCrmSyncSettings({ ...FUNCTIONS['CRM sync worker'].env, [RUNTIME_ENV.crmTarget]: 'email' })).toThrow(RuntimeConfigError);
    expect(() => readCrmSyncSettings({ [RUNTIME_ENV.tableName]: 'agent-table', [RUNTIME_ENV.crmTarget]: CRM_TARGET_KINDS.webhook, [RUNTIME_ENV.crmWebhookUrl]: 'https://crm.example.com/hook' })).toThrow(
      RUNTIME_ENV.crmWebhookSecretArn,
    );
  });
});

describe('the idle sweeper', () => {
  it('reads the idle timeout the construct set, or the default of 24 hours', () => {
    expect(readIdleSweeperSettings(FUNCTIONS['idle sweeper'].env).idleSweep).toEqual({ idleTimeoutMs: 6 * 3_600_000 });
    expect(readIdleSweeperSettings({ [RUNTIME_ENV.tableName]: 'agent-table' }).idleSweep).toEqual({ idleTimeoutMs: 24 * 3_600_000 });
  });

  it('refuses a timeout that is not a positive whole number of seconds', () => {
    expect(() => readIdleSweeperSettings({ [RUNTIME_ENV.tableName]: 'agent-table', [RUNTIME_ENV.conversationIdleTimeoutSeconds]: '1.5' })).toThrow(RuntimeConfigError);
  });

  it('re-engages only when the construct names the template, with its delay and the channel to send on', () => {
    expect(readIdleSweeperSettings(FUNCTIONS['idle sweeper'].env).reengagement).toBeUndefined();
    const env = {
      ...FUNCTIONS['idle sweeper'].env,
      [RUNTIME_ENV.reengagementTemplate]: JSON.stringify({ name: 'ainda_por_aqui', language: 'pt_BR' }),
      [RUNTIME_ENV.reengagementAfterSeconds]: '14400',
      [RUNTIME_ENV.whatsAppSecretArn]: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:whatsapp',
    };
    expect(readIdleSweeperSettings(env).reengagement).toMatchObject({ template: { name: 'ainda_por_aqui', language: 'pt_BR' }, afterMs: 14_400_000, whatsApp: { kind: 'cloud-api' } });
    expect(() => readIdleSweeperSettings({ ...env, [RUNTIME_ENV.reengagementAfterSeconds]: '' })).toThrow(RuntimeConfigError);
  });
});

describe('the locale', () => {
  const planeEnvironment = { ...orchestratorEnvironment, [OPERATOR_ENV.adminPhoneNumbers]: '5511999990000', [OPERATOR_ENV.consoleUrl]: 'https://console.lambda-url.us-east-1.on.aws/' };

  it('is pt-BR unless the construct set one, and reaches every function', () => {
    expect(localeFromEnvironment({})).toBe(Locale.PT_BR);
    for (const [name, { read, env }] of Object.entries(FUNCTIONS)) {
      expect([name, read({ ...env, [RUNTIME_ENV.locale]: 'es' }).locale]).toEqual([name, Locale.ES]);
    }
  });

  it('gives the budgets and the handoffs the locale’s texts, under the ones the construct set', () => {
    const english = { ...planeEnvironment, [RUNTIME_ENV.locale]: 'en', [RUNTIME_ENV.pipelineBudget]: JSON.stringify({ agentTokensPerDay: 10 }) };
    const { texts } = LOCALE_PRESETS[Locale.EN];
    const config = readOrchestratorSettings(english);
    expect(config.customerBudget.reply).toBe(texts.customerOverBudgetReply);
    expect(config.pipelineBudget?.reply).toBe(texts.pipelineOverBudgetReply);
    expect(config.operatorPlane?.texts).toEqual(handoffTextsOf(texts));
    expect(readHandoffSweeperSettings(english).operatorPlane.texts).toEqual(handoffTextsOf(texts));

    const replaced = readOrchestratorSettings({
      ...english,
      [RUNTIME_ENV.customerBudget]: JSON.stringify({ reply: 'Slow down, please.' }),
      [OPERATOR_ENV.handoffTexts]: JSON.stringify({ fallback: 'One moment.' }),
    });
    expect(replaced.customerBudget.reply).toBe('Slow down, please.');
    expect(replaced.operatorPlane?.texts).toEqual({ ...handoffTextsOf(texts), fallback: 'One moment.' });
  });

  it('refuses a locale the construct never writes, naming the variable', () => {
    expect(() => readWebhookSettings({ ...webhookEnvironment, [RUNTIME_ENV.locale]: 'pt' })).toThrow(RuntimeConfigError);
    expect(() => readWebhookSettings({ ...webhookEnvironment, [RUNTIME_ENV.locale]: 'pt' })).toThrow(RUNTIME_ENV.locale);
  });
});
