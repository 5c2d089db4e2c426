import {
  COST_GUARD_DEFAULTS,
  CRM_TARGET_KINDS,
  DEFAULT_HANDOFF_TEXTS,
  type DeploymentOptions,
  type DeploymentPlan,
  type FunctionSettings,
  handoffTextsOf,
  IDLE_SWEEP_DEFAULTS,
  Locale,
  LOCALE_PRESETS,
  MEDIA_DEFAULTS,
  OPERATOR_DEFAULTS,
  PIPELINE_DEFAULTS,
  type PipelineFunction,
  RUNTIME_ENV,
  WHATSAPP_CHANNEL_KINDS,
} from '../../lib/contract';
import { KeyLayout } from '../../lib/contract/key-layout';
import {
  AgentConfigurationError,
  readCrmSyncSettings,
  readEndUserMessagingInboundSettings,
  readEvaluatorSettings,
  readHandoffSweeperSettings,
  readIdleSweeperSettings,
  readOperatorSettings,
  readOrchestratorSettings,
  readWebhookSettings,
  RuntimeConfigError,
  type FunctionTold,
} from '../../lambda/composition/read-settings';
import { DEFAULT_RETENTION } from '../../lambda/core/domain/privacy';
import { handler as webhookHandler } from '../../lambda/webhook';
import { TEST_SECRET_ARN, testPlan } from '../support/deployment-settings';
import { functionUrlEvent } from '../support/webhook-events';

// What the plan's writer tells each function, read back by that function's reader: the reader takes
// what the writer writes, has no defaults of its own (the writer applied them), and stops the cold
// start on anything missing or unusable, naming it.

const TABLE = 'agent-table';
const TURN_QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/123456789012/agent-debounce-prod.fifo';
const CONSOLE_URL = 'https://console.lambda-url.us-east-1.on.aws/';
const ADMIN = '5511999990000';
const EVALUATOR = 'agent-evaluator';
const LINKED = [
  { metaPhoneNumberId: '106540352242922', originationPhoneNumberId: 'phone-number-id-976c72a700aac43eaf573ae050example' },
  { metaPhoneNumberId: '2', originationPhoneNumberId: 'phone-number-id-0123abc' },
];
const END_USER_MESSAGING: DeploymentOptions['channel'] = {
  kind: WHATSAPP_CHANNEL_KINDS.endUserMessaging,
  phoneNumbers: LINKED,
  eventTopicArn: 'arn:aws:sns:us-east-1:123456789012:whatsapp-events',
  accountId: '123456789012',
};
const EVERYTHING: Partial<DeploymentOptions> = {
  operatorPlane: { adminPhoneNumbers: [ADMIN], consoleUrl: CONSOLE_URL, evaluatorFunctionName: EVALUATOR },
  crmSync: { kind: CRM_TARGET_KINDS.function, functionName: 'crm-bridge' },
  agent: { backend: 'bedrock', modelId: 'amazon.nova-pro-v1:0' },
};

const planOf = (overrides: Partial<DeploymentOptions> = {}): DeploymentPlan => testPlan(TABLE, TURN_QUEUE_URL, overrides);
const told = <F extends PipelineFunction>(fn: F, overrides: Partial<DeploymentOptions> = {}): FunctionSettings<F> => planOf({ ...EVERYTHING, ...overrides })[fn]!;

/** `settings` with a variable removed or replaced. */
const withVariable = (settings: FunctionTold, name: string, value?: string): FunctionTold => {
  const { [name]: _removed, ...rest } = settings.environment;
  return { ...settings, environment: value === undefined ? rest : { ...rest, [name]: value } };
};
/** `settings` with a setting of its document removed or replaced. */
const withSetting = (settings: FunctionTold, name: string, value?: unknown): FunctionTold => {
  const { [name]: _removed, ...rest } = settings.document as Record<string, unknown>;
  return { ...settings, document: value === undefined ? rest : { ...rest, [name]: value } };
};

/** Each function's reader, with what its plan tells it. */
const FUNCTIONS = {
  'webhook': { read: readWebhookSettings, told: () => told('webhook') },
  'End User Messaging inbound function': { read: readEndUserMessagingInboundSettings, told: () => told('eum-inbound', { channel: END_USER_MESSAGING }) },
  'orchestrator': { read: readOrchestratorSettings, told: () => told('orchestrator') },
  'operator function': { read: readOperatorSettings, told: () => told('operator') },
  'handoff sweeper': { read: readHandoffSweeperSettings, told: () => told('handoff-sweeper') },
  'CRM sync worker': { read: readCrmSyncSettings, told: () => told('crm-sync') },
  'idle sweeper': { read: readIdleSweeperSettings, told: () => told('idle-sweeper') },
  'evaluator': { read: readEvaluatorSettings, told: () => told('evaluator') },
} satisfies Record<string, { read: (told: FunctionTold) => { tableName: string; locale: Locale }; told: () => FunctionTold }>;

describe('every function', () => {
  it.each(Object.entries(FUNCTIONS))('the %s reads the table, the key layout a new deployment gets, the locale, the CRM projection and the retention', (_name, { read, told: toldTo }) => {
    expect(read(toldTo())).toMatchObject({
      tableName: TABLE,
      observability: { serviceName: TABLE, metricsNamespace: PIPELINE_DEFAULTS.serviceName },
      keyLayout: KeyLayout.SHARDED,
      locale: Locale.PT_BR,
      crmSyncEnabled: true,
      retention: DEFAULT_RETENTION,
    });
  });

  it.each(Object.entries(FUNCTIONS))('the %s reads the phase, the locale and the retention the deployment chose', (_name, { read, told: toldTo }) => {
    const chosen = toldTo();
    const settings = read({
      ...chosen,
      document: { ...chosen.document, keyLayout: KeyLayout.MIGRATING, locale: Locale.ES, retention: { conversationSeconds: 86_400, demandSeconds: 172_800 } },
    });
    expect(settings).toMatchObject({ keyLayout: 'migrating', locale: Locale.ES, retention: { conversationSeconds: 86_400, demandSeconds: 172_800 } });
  });

  it.each(Object.entries(FUNCTIONS))('the %s names a setting missing from its document, and one that is not its', (_name, { read, told: toldTo }) => {
    for (const setting of ['keyLayout', 'retention', 'crmSyncEnabled']) {
      expect(() => read(withSetting(toldTo(), setting))).toThrow(RuntimeConfigError);
      expect(() => read(withSetting(toldTo(), setting))).toThrow(`Setting ${setting} is missing from the`);
    }
    expect(() => read(withSetting(toldTo(), 'stranger', 1))).toThrow(`Setting stranger is not a setting of the`);
    expect(() => read(withSetting(toldTo(), 'keyLayout', 'sharded-ish'))).toThrow('Setting keyLayout is not one of seed, migrating, sharded');
    expect(() => read(withSetting(toldTo(), 'locale', 'pt'))).toThrow('Setting locale is not one of pt-BR, en, es');
    expect(() => read(withVariable(toldTo(), RUNTIME_ENV.tableName))).toThrow(`Environment variable ${RUNTIME_ENV.tableName} is not set`);
  });

  it('the handler stops its first invocation when its settings document is not beside it', () => {
    // Run from the source, the webhook's entry point has no document beside it: nothing is composed, the error says what is missing.
    expect(() => webhookHandler(functionUrlEvent('GET'))).toThrow(RuntimeConfigError);
    expect(() => webhookHandler(functionUrlEvent('GET'))).toThrow(/settings document .*settings\.json is missing/);
  });
});

describe('the webhook', () => {
  it('reads what the plan tells it', () => {
    expect(readWebhookSettings(told('webhook'))).toMatchObject({ turnQueueUrl: TURN_QUEUE_URL, whatsAppSecretArn: TEST_SECRET_ARN, applyTemplateStatusUpdates: false });
    expect(readWebhookSettings(told('webhook')).businessPhoneNumberIds).toBeUndefined();
  });

  it('reads the business numbers it serves, and refuses what is not a Meta id', () => {
    const channel = { kind: WHATSAPP_CHANNEL_KINDS.cloudApi, whatsAppSecretArn: TEST_SECRET_ARN, phoneNumberIds: ['106540352242922', '1'] } as const;
    expect(readWebhookSettings(told('webhook', { channel })).businessPhoneNumberIds).toEqual(['106540352242922', '1']);
    expect(() => readWebhookSettings(withVariable(told('webhook'), RUNTIME_ENV.businessPhoneNumberIds, '1,../me'))).toThrow(RuntimeConfigError);
  });

  it.each([RUNTIME_ENV.tableName, RUNTIME_ENV.turnQueueUrl, RUNTIME_ENV.whatsAppSecretArn, RUNTIME_ENV.serviceName])('names %s when it is missing', (name) => {
    expect(() => readWebhookSettings(withVariable(told('webhook'), name))).toThrow(`Environment variable ${name} is not set`);
  });
});

describe('the orchestrator', () => {
  it('reads what the plan tells it: the defaults are the writer’s', () => {
    const { texts } = LOCALE_PRESETS[Locale.PT_BR];
    expect(readOrchestratorSettings(told('orchestrator', { operatorPlane: undefined }))).toMatchObject({
      whatsApp: { kind: 'cloud-api', whatsAppSecretArn: TEST_SECRET_ARN, apiBaseUrl: 'http://127.0.0.1:9' },
      agent: { backend: 'bedrock', modelId: 'amazon.nova-pro-v1:0', fallbackReply: texts.agentDeadline },
      maxReceiveCount: PIPELINE_DEFAULTS.maxReceiveCount,
      agentHistoryMaxCharacters: COST_GUARD_DEFAULTS.historyMaxCharacters,
      fallbackText: texts.turnFailed,
      deadlineFallbackText: texts.agentDeadline,
      unsupportedMessageText: texts.unsupportedMessage,
      customerBudget: {
        turnsPerMinute: COST_GUARD_DEFAULTS.turnsPerMinute,
        turnsPerHour: COST_GUARD_DEFAULTS.turnsPerHour,
        agentTokensPerDay: COST_GUARD_DEFAULTS.agentTokensPerDay,
        reply: COST_GUARD_DEFAULTS.overBudgetReply,
      },
    });
    const settings = readOrchestratorSettings(told('orchestrator', { operatorPlane: undefined, media: undefined }));
    expect([settings.operatorPlane, settings.media, settings.pipelineBudget, settings.deployedSystemPrompt]).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('reads the texts the deployment set: the turn’s for the use case, the deadline’s for the agent adapter, the prompt for the prompt resource', () => {
    const settings = readOrchestratorSettings(
      told('orchestrator', {
        fallbackText: 'Tivemos um problema; tente de novo.',
        deadlineFallbackText: 'Um instante, por favor.',
        unsupportedMessageText: 'Só leio texto.',
        agent: { backend: 'bedrock', modelId: 'amazon.nova-pro-v1:0', systemPrompt: 'Você é a assistente.' },
      }),
    );
    expect(settings.fallbackText).toBe('Tivemos um problema; tente de novo.');
    expect(settings.unsupportedMessageText).toBe('Só leio texto.');
    expect(settings.agent).toEqual({ backend: 'bedrock', modelId: 'amazon.nova-pro-v1:0', fallbackReply: 'Um instante, por favor.', memory: { foldEveryTurns: 5, modelId: null } });
    expect(settings.deployedSystemPrompt).toBe('Você é a assistente.');
  });

  it('reads the customer budget and the history cap, the writer keeping the defaults of what the budget leaves out', () => {
    const settings = readOrchestratorSettings(told('orchestrator', { customerBudget: { turnsPerMinute: 4, reply: 'Devagar, por favor.' }, agentHistoryMaxCharacters: 8000 }));
    expect(settings.customerBudget).toEqual({ turnsPerMinute: 4, turnsPerHour: COST_GUARD_DEFAULTS.turnsPerHour, agentTokensPerDay: COST_GUARD_DEFAULTS.agentTokensPerDay, reply: 'Devagar, por favor.' });
    expect(settings.agentHistoryMaxCharacters).toBe(8000);
  });

  it.each([[[]], [{ turnsPerMinute: 0 }], [{ turnsPerHour: 1.5 }], [{ reply: '' }], [{ turnsPerDay: 3 }]])('refuses the budget %j, naming the setting', (budget) => {
    const written = told('orchestrator').document.customerBudget;
    const value = Array.isArray(budget) ? budget : { ...written, ...budget };
    expect(() => readOrchestratorSettings(withSetting(told('orchestrator'), 'customerBudget', value))).toThrow(/Setting customerBudget/);
  });

  it('transcribes voice notes only when the deployment turns it on, waiting as long as it says', () => {
    expect(readOrchestratorSettings(told('orchestrator', { media: { bucketName: 'media-bucket' } })).media).toEqual({
      bucketName: 'media-bucket',
      limits: { maxBytes: MEDIA_DEFAULTS.maxBytes, allowedMimeTypes: MEDIA_DEFAULTS.allowedMimeTypes },
    });
    const transcribing = told('orchestrator', { media: { bucketName: 'media-bucket', transcription: { maxWaitMs: 20_000 } } });
    expect(readOrchestratorSettings(transcribing).media?.transcription).toEqual({ languageCode: 'pt-BR', maxWaitMs: 20_000, pollIntervalMs: MEDIA_DEFAULTS.transcriptionPollIntervalMs });
    const noWait = withSetting(transcribing, 'media', { ...transcribing.document.media, transcription: { languageCode: 'pt-BR', maxWaitMs: 0, pollIntervalMs: 2_000 } });
    expect(() => readOrchestratorSettings(noWait)).toThrow('Setting media.transcription.maxWaitMs is not a whole number');
    expect(() => readOrchestratorSettings(withVariable(transcribing, RUNTIME_ENV.mediaBucketName))).toThrow(`Environment variable ${RUNTIME_ENV.mediaBucketName} is not set`);
  });

  it('reads the pipeline-wide budget when the deployment sets one, with the locale’s reply; none without it', () => {
    const { texts } = LOCALE_PRESETS[Locale.PT_BR];
    expect(readOrchestratorSettings(told('orchestrator', { pipelineBudget: { agentTokensPerDay: 5_000_000 } })).pipelineBudget).toEqual({ agentTokensPerDay: 5_000_000, reply: texts.pipelineOverBudgetReply });
    expect(readOrchestratorSettings(told('orchestrator', { pipelineBudget: { agentTokensPerDay: 10, reply: 'Volte amanhã.' } })).pipelineBudget).toEqual({ agentTokensPerDay: 10, reply: 'Volte amanhã.' });
  });

  it.each([[{}], [{ agentTokensPerDay: 0, reply: 'x' }], [{ agentTokensPerDay: 10, reply: ' ' }], [{ agentTokensPerDay: 10, reply: 'x', turnsPerMinute: 3 }]])('refuses the pipeline budget %j, naming the setting', (budget) => {
    expect(() => readOrchestratorSettings(withSetting(told('orchestrator'), 'pipelineBudget', budget))).toThrow(/Setting pipelineBudget/);
  });

  it('takes the Graph API root and the receive count it is told', () => {
    const channel = { kind: WHATSAPP_CHANNEL_KINDS.cloudApi, whatsAppSecretArn: TEST_SECRET_ARN, apiBaseUrl: 'http://127.0.0.1:9999/v23.0' } as const;
    expect(readOrchestratorSettings(told('orchestrator', { channel, maxReceiveCount: 5 }))).toMatchObject({ whatsApp: { apiBaseUrl: 'http://127.0.0.1:9999/v23.0' }, maxReceiveCount: 5 });
  });

  it.each([0, 2.5, 'three'])('refuses a receive count of %p, naming the setting', (value) => {
    expect(() => readOrchestratorSettings(withSetting(told('orchestrator'), 'maxReceiveCount', value))).toThrow('Setting maxReceiveCount is not a whole number from 1 to 1000');
  });

  it.each([RUNTIME_ENV.tableName, RUNTIME_ENV.whatsAppSecretArn, RUNTIME_ENV.whatsAppApiBaseUrl, RUNTIME_ENV.consoleUrl])('names %s when it is missing', (name) => {
    expect(() => readOrchestratorSettings(withVariable(told('orchestrator'), name))).toThrow(`Environment variable ${name} is not set`);
  });

  it('names the agent variable that is missing', () => {
    expect(() => readOrchestratorSettings(withVariable(told('orchestrator'), RUNTIME_ENV.bedrockModelId))).toThrow(AgentConfigurationError);
    expect(() => readOrchestratorSettings(withVariable(told('orchestrator'), RUNTIME_ENV.bedrockModelId))).toThrow(RUNTIME_ENV.bedrockModelId);
  });
});

describe('the WhatsApp channel', () => {
  it('reads End User Messaging numbers and needs no WhatsApp secret', () => {
    const orchestrator = told('orchestrator', { channel: END_USER_MESSAGING });
    expect(orchestrator.environment[RUNTIME_ENV.whatsAppSecretArn]).toBeUndefined();
    expect(readOrchestratorSettings(orchestrator).whatsApp).toEqual({
      kind: 'end-user-messaging',
      phoneNumbers: new Map(LINKED.map((number) => [number.metaPhoneNumberId, number.originationPhoneNumberId])),
      metaApiVersion: PIPELINE_DEFAULTS.endUserMessagingMetaApiVersion,
      businessAccountId: undefined,
    });
  });

  it.each([
    [{ metaPhoneNumberId: '106540352242922', originationPhoneNumberId: '976c72a7' }],
    [{ metaPhoneNumberId: 'abc', originationPhoneNumberId: 'phone-number-id-1' }],
    [{ metaPhoneNumberId: '1' }],
  ])('refuses the linked number %j, naming the setting', (number) => {
    const orchestrator = told('orchestrator', { channel: END_USER_MESSAGING });
    expect(() => readOrchestratorSettings(withSetting(orchestrator, 'whatsApp', { ...orchestrator.document.whatsApp, phoneNumbers: [number] }))).toThrow(/Setting whatsApp.phoneNumbers\[0\]/);
  });

  it('refuses an unknown channel and End User Messaging without numbers', () => {
    expect(() => readOrchestratorSettings(withSetting(told('orchestrator'), 'whatsApp', { kind: 'telegram', businessAccountId: null }))).toThrow('Setting whatsApp.kind is not one of cloud-api');
    const orchestrator = told('orchestrator', { channel: END_USER_MESSAGING });
    expect(() => readOrchestratorSettings(withSetting(orchestrator, 'whatsApp', { ...orchestrator.document.whatsApp, phoneNumbers: [] }))).toThrow('Setting whatsApp.phoneNumbers is not a list of at least 1');
  });
});

describe('the operator plane', () => {
  const plane = {
    adminPhoneNumbers: [ADMIN],
    consoleUrl: CONSOLE_URL,
    timeZone: OPERATOR_DEFAULTS.timeZone,
    texts: DEFAULT_HANDOFF_TEXTS,
    renotifyOperatorsAfterMs: OPERATOR_DEFAULTS.handoffRenotifyAfterSeconds * 1000,
    remindCustomerAfterMs: OPERATOR_DEFAULTS.customerRenotifyAfterSeconds * 1000,
  };

  it('is off in the orchestrator without it', () => {
    expect(readOrchestratorSettings(told('orchestrator', { operatorPlane: undefined })).operatorPlane).toBeUndefined();
    expect(() => readOrchestratorSettings(withSetting(told('orchestrator'), 'handoffs', null))).toThrow('Setting handoffs is null while the rest of the operator plane is set');
  });

  it('reaches the orchestrator and the sweeper whole, with the defaults the writer applied', () => {
    expect(readOrchestratorSettings(told('orchestrator')).operatorPlane).toEqual(plane);
    expect(readHandoffSweeperSettings(told('handoff-sweeper')).operatorPlane).toEqual(plane);
  });

  it('reads the texts, the time zone and the delays the deployment set', () => {
    const operatorPlane = { adminPhoneNumbers: [ADMIN], consoleUrl: CONSOLE_URL, evaluatorFunctionName: EVALUATOR, timeZone: 'Europe/Lisbon', handoffTexts: { fallback: 'Um momento.' }, renotifyOperatorsAfterMs: 120_000, remindCustomerAfterMs: 900_000 };
    expect(readOrchestratorSettings(told('orchestrator', { operatorPlane })).operatorPlane).toMatchObject({
      timeZone: 'Europe/Lisbon',
      texts: { ...DEFAULT_HANDOFF_TEXTS, fallback: 'Um momento.' },
      renotifyOperatorsAfterMs: 120_000,
      remindCustomerAfterMs: 900_000,
    });
  });

  it.each([
    ['texts', { fallback: 'Um momento.' }, 'Setting handoffs.texts.noOperatorAvailable is missing'],
    ['renotifyOperatorsAfterMs', -1, 'Setting handoffs.renotifyOperatorsAfterMs is not a whole number'],
    ['remindCustomerAfterMs', 'soon', 'Setting handoffs.remindCustomerAfterMs is not a whole number'],
  ])('refuses handoffs.%s %j, naming the setting', (field, value, message) => {
    const orchestrator = told('orchestrator');
    expect(() => readOrchestratorSettings(withSetting(orchestrator, 'handoffs', { ...orchestrator.document.handoffs, [field]: value }))).toThrow(message);
  });

  it('stops the sweeper without it', () => {
    expect(() => readHandoffSweeperSettings(withVariable(told('handoff-sweeper'), RUNTIME_ENV.consoleUrl))).toThrow(RuntimeConfigError);
    expect(() => readHandoffSweeperSettings(withSetting(withSetting(told('handoff-sweeper'), 'operatorAccess', null), 'handoffs', null))).toThrow(RuntimeConfigError);
  });

  it('gives the operator function who may sign in, its queues and the evaluator it invokes', () => {
    expect(readOperatorSettings(told('operator', { operatorPlane: { adminPhoneNumbers: [ADMIN, '5511999990001'], consoleUrl: CONSOLE_URL, evaluatorFunctionName: EVALUATOR } }))).toMatchObject({
      operatorPlane: { adminPhoneNumbers: [ADMIN, '5511999990001'], timeZone: OPERATOR_DEFAULTS.timeZone },
      evaluatorFunctionName: EVALUATOR,
      turnQueueUrl: TURN_QUEUE_URL,
      deadLetterQueueUrl: 'http://127.0.0.1:9/dead-letters.fifo',
      whatsApp: { kind: 'cloud-api', whatsAppSecretArn: TEST_SECRET_ARN },
    });
  });

  it('gives it the names the deployment gives its admins, and refuses a name that is not text', () => {
    const names = { [ADMIN]: 'Ana Lima' };
    expect(readOperatorSettings(told('operator', { operatorPlane: { adminPhoneNumbers: [ADMIN], consoleUrl: CONSOLE_URL, evaluatorFunctionName: EVALUATOR, adminDisplayNames: names } })).operatorPlane).toMatchObject({ adminDisplayNames: names });
    expect(readOperatorSettings(told('operator')).operatorPlane).not.toHaveProperty('adminDisplayNames');
    expect(() => readOperatorSettings(withSetting(told('operator'), 'adminDisplayNames', { [ADMIN]: 7 }))).toThrow(`Setting adminDisplayNames.${ADMIN} is not a non-blank text`);
  });

  it.each([RUNTIME_ENV.tableName, RUNTIME_ENV.turnQueueUrl, RUNTIME_ENV.deadLetterQueueUrl, RUNTIME_ENV.evaluatorFunctionName])('names %s when the operator function misses it', (name) => {
    expect(() => readOperatorSettings(withVariable(told('operator'), name))).toThrow(`Environment variable ${name} is not set`);
  });

  it('names the admins when the operator function has none', () => {
    expect(() => readOperatorSettings(withSetting(told('operator'), 'operatorAccess', { adminPhoneNumbers: [], timeZone: OPERATOR_DEFAULTS.timeZone }))).toThrow('Setting operatorAccess.adminPhoneNumbers is not a list of at least 1');
  });
});

describe('the evaluator', () => {
  it('exists with the operator plane only', () => {
    expect(planOf({ ...EVERYTHING }).evaluator).toBeDefined();
    expect(planOf({ ...EVERYTHING, operatorPlane: undefined }).evaluator).toBeUndefined();
  });

  it("reads the orchestrator's turn path: the same agent, channel, texts, history bound and pipeline budget", () => {
    const choices = { agent: EVERYTHING.agent, pipelineBudget: { agentTokensPerDay: 5_000_000 }, fallbackText: 'Volto já.', agentHistoryMaxCharacters: 8_000 } as const;
    const orchestrator = readOrchestratorSettings(told('orchestrator', choices));
    const evaluator = readEvaluatorSettings(told('evaluator', choices));
    expect(evaluator).toEqual({
      tableName: orchestrator.tableName,
      observability: orchestrator.observability,
      keyLayout: orchestrator.keyLayout,
      locale: orchestrator.locale,
      crmSyncEnabled: orchestrator.crmSyncEnabled,
      retention: orchestrator.retention,
      agentHistoryMaxCharacters: 8_000,
      fallbackText: 'Volto já.',
      deadlineFallbackText: orchestrator.deadlineFallbackText,
      unsupportedMessageText: orchestrator.unsupportedMessageText,
      whatsApp: orchestrator.whatsApp,
      agent: orchestrator.agent,
      pipelineBudget: orchestrator.pipelineBudget,
    });
  });

  it('is told neither the queue, nor the customer budget, the operator plane or the attachments', () => {
    const { environment, document } = told('evaluator', { media: { bucketName: 'media-bucket' } });
    for (const name of [RUNTIME_ENV.turnQueueUrl, RUNTIME_ENV.deadLetterQueueUrl, RUNTIME_ENV.mediaBucketName, RUNTIME_ENV.consoleUrl]) expect(environment).not.toHaveProperty(name);
    for (const name of ['maxReceiveCount', 'burstSettleMs', 'customerBudget', 'operatorAccess', 'handoffs', 'media']) expect(document).not.toHaveProperty(name);
    expect(() => readEvaluatorSettings(withSetting(told('evaluator'), 'customerBudget', told('orchestrator').document.customerBudget))).toThrow('Setting customerBudget is not a setting of the evaluator function');
  });
});

describe('the End User Messaging inbound function', () => {
  const inbound = () => told('eum-inbound', { channel: END_USER_MESSAGING });

  it('serves the linked numbers', () => {
    expect(readEndUserMessagingInboundSettings(inbound()).businessPhoneNumberIds).toEqual(['106540352242922', '2']);
  });

  it.each([RUNTIME_ENV.tableName, RUNTIME_ENV.turnQueueUrl, RUNTIME_ENV.endUserMessagingEventTopicArn, RUNTIME_ENV.endUserMessagingAccountId])('names %s when it is missing', (name) => {
    expect(() => readEndUserMessagingInboundSettings(withVariable(inbound(), name))).toThrow(`Environment variable ${name} is not set`);
  });

  it('takes events only from the topic, the account, the linked numbers and, when given, the WABAs', () => {
    expect(readEndUserMessagingInboundSettings(inbound()).eventSource).toEqual({
      topicArn: 'arn:aws:sns:us-east-1:123456789012:whatsapp-events',
      accountId: '123456789012',
      phoneNumbers: new Map(LINKED.map((number) => [number.metaPhoneNumberId, number.originationPhoneNumberId])),
    });
    const withWabas = told('eum-inbound', { channel: { ...END_USER_MESSAGING, wabaIds: ['102290129340398', '7'] } });
    expect(readEndUserMessagingInboundSettings(withWabas).eventSource.wabaIds).toEqual(new Set(['102290129340398', '7']));
  });

  it('refuses an account that is not one and WABA ids that are not Meta’s', () => {
    expect(() => readEndUserMessagingInboundSettings(withVariable(inbound(), RUNTIME_ENV.endUserMessagingAccountId, '1234'))).toThrow('is not an AWS account id');
    expect(() => readEndUserMessagingInboundSettings(withSetting(inbound(), 'endUserMessagingInbound', { phoneNumbers: LINKED, wabaIds: ['waba-1'] }))).toThrow('Setting endUserMessagingInbound.wabaIds[0] is not digits');
  });
});

describe('the CRM sync worker', () => {
  it('reads a function target and a webhook target', () => {
    expect(readCrmSyncSettings(told('crm-sync')).crmTarget).toEqual({ kind: 'function', functionName: 'crm-bridge' });
    const webhook = told('crm-sync', { crmSync: { kind: CRM_TARGET_KINDS.webhook, url: 'https://crm.example.com/hook', secretArn: TEST_SECRET_ARN } });
    expect(readCrmSyncSettings(webhook).crmTarget).toEqual({ kind: 'webhook', url: 'https://crm.example.com/hook', secretArn: TEST_SECRET_ARN });
    expect(() => readCrmSyncSettings(withVariable(webhook, RUNTIME_ENV.crmWebhookSecretArn))).toThrow(RUNTIME_ENV.crmWebhookSecretArn);
  });

  it('refuses an unknown target', () => {
    expect(() => readCrmSyncSettings(withSetting(told('crm-sync'), 'crmTarget', { kind: 'email' }))).toThrow('Setting crmTarget.kind is not one of function, webhook');
  });
});

describe('the idle sweeper', () => {
  it('reads the idle timeout the deployment set, or the writer’s 24 hours', () => {
    expect(readIdleSweeperSettings(told('idle-sweeper', { idleTimeoutMs: 6 * 3_600_000 })).idleSweep).toEqual({ idleTimeoutMs: 6 * 3_600_000 });
    expect(readIdleSweeperSettings(told('idle-sweeper')).idleSweep).toEqual({ idleTimeoutMs: IDLE_SWEEP_DEFAULTS.idleTimeoutHours * 3_600_000 });
    expect(() => readIdleSweeperSettings(withSetting(told('idle-sweeper'), 'idleSweep', { idleTimeoutMs: 1.5 }))).toThrow(RuntimeConfigError);
  });

  it('re-engages only when the deployment names the template, with its delay and the channel to send on', () => {
    expect(readIdleSweeperSettings(told('idle-sweeper')).reengagement).toBeUndefined();
    expect(told('idle-sweeper').environment[RUNTIME_ENV.whatsAppSecretArn]).toBeUndefined();
    const reengaging = told('idle-sweeper', { reengagement: { template: { name: 'ainda_por_aqui', language: 'pt_BR' }, afterMs: 14_400_000 } });
    expect(readIdleSweeperSettings(reengaging).reengagement).toMatchObject({ template: { name: 'ainda_por_aqui', language: 'pt_BR' }, afterMs: 14_400_000, whatsApp: { kind: 'cloud-api', whatsAppSecretArn: TEST_SECRET_ARN } });
    expect(() => readIdleSweeperSettings(withVariable(reengaging, RUNTIME_ENV.whatsAppSecretArn))).toThrow(RuntimeConfigError);
    expect(() => readIdleSweeperSettings(withSetting(reengaging, 'reengagement', { ...reengaging.document.reengagement, template: { name: 'Ainda', language: 'pt_BR' } }))).toThrow(
      'Setting reengagement.template.name is not a template name',
    );
  });
});

describe('the locale', () => {
  it('gives the budgets and the handoffs the locale’s texts, under the ones the deployment set', () => {
    const { texts } = LOCALE_PRESETS[Locale.EN];
    const english = { locale: Locale.EN, pipelineBudget: { agentTokensPerDay: 10 } };
    const settings = readOrchestratorSettings(told('orchestrator', english));
    expect(settings.customerBudget.reply).toBe(texts.customerOverBudgetReply);
    expect(settings.pipelineBudget?.reply).toBe(texts.pipelineOverBudgetReply);
    expect(settings.fallbackText).toBe(texts.turnFailed);
    expect(settings.operatorPlane?.texts).toEqual(handoffTextsOf(texts));
    expect(readHandoffSweeperSettings(told('handoff-sweeper', english)).operatorPlane.texts).toEqual(handoffTextsOf(texts));

    const replaced = readOrchestratorSettings(
      told('orchestrator', { ...english, customerBudget: { reply: 'Slow down, please.' }, operatorPlane: { adminPhoneNumbers: [ADMIN], consoleUrl: CONSOLE_URL, evaluatorFunctionName: EVALUATOR, handoffTexts: { fallback: 'One moment.' } } }),
    );
    expect(replaced.customerBudget.reply).toBe('Slow down, please.');
    expect(replaced.operatorPlane?.texts).toEqual({ ...handoffTextsOf(texts), fallback: 'One moment.' });
  });
});
