import { COST_GUARD_DEFAULTS, PIPELINE_DEFAULTS, RUNTIME_ENV } from '../../lib/contract';
import { AgentConfigurationError } from '../../lambda/core/adapters/agent/agent-from-environment';
import { composeFunction } from '../../lambda/core/adapters/function-runtime';
import { keyLayoutFromEnvironment, RuntimeConfigError } from '../../lambda/core/adapters/runtime-environment';
import { readOrchestratorConfig } from '../../lambda/orchestrator/runtime-config';
import { readWebhookConfig } from '../../lambda/webhook/runtime-config';

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

describe('the webhook', () => {
  it('reads what the construct sets', () => {
    expect(readWebhookConfig({ ...webhookEnvironment, [RUNTIME_ENV.serviceName]: 'clinic', [RUNTIME_ENV.metricsNamespace]: 'Clinic' })).toEqual({
      tableName: 'agent-table',
      turnQueueUrl: webhookEnvironment[RUNTIME_ENV.turnQueueUrl],
      whatsAppSecretArn: SECRET_ARN,
      observability: { serviceName: 'clinic', metricsNamespace: 'Clinic' },
    });
  });

  it('reads the business numbers it serves', () => {
    expect(readWebhookConfig({ ...webhookEnvironment, [RUNTIME_ENV.businessPhoneNumberIds]: '106540352242922, 1' }).businessPhoneNumberIds).toEqual(['106540352242922', '1']);
    expect(readWebhookConfig(webhookEnvironment).businessPhoneNumberIds).toBeUndefined();
  });

  it('refuses business numbers that are not Meta ids', () => {
    expect(() => readWebhookConfig({ ...webhookEnvironment, [RUNTIME_ENV.businessPhoneNumberIds]: '1,../me' })).toThrow(RuntimeConfigError);
  });

  it.each([RUNTIME_ENV.tableName, RUNTIME_ENV.turnQueueUrl, RUNTIME_ENV.whatsAppSecretArn])('names %s when it is missing', (name) => {
    expect(() => readWebhookConfig(without(webhookEnvironment, name))).toThrow(RuntimeConfigError);
    expect(() => readWebhookConfig(without(webhookEnvironment, name))).toThrow(`Environment variable ${name} is not set`);
  });
});

describe('the orchestrator', () => {
  it('reads what the construct sets, with the defaults for what it may leave out', () => {
    expect(readOrchestratorConfig(orchestratorEnvironment)).toEqual({
      tableName: 'agent-table',
      whatsApp: { kind: 'cloud-api', whatsAppSecretArn: SECRET_ARN, apiBaseUrl: PIPELINE_DEFAULTS.whatsAppApiBaseUrl },
      agent: { backend: 'bedrock', modelId: 'amazon.nova-pro-v1:0' },
      maxReceiveCount: PIPELINE_DEFAULTS.maxReceiveCount,
      observability: {},
      customerBudget: {
        turnsPerMinute: COST_GUARD_DEFAULTS.turnsPerMinute,
        turnsPerHour: COST_GUARD_DEFAULTS.turnsPerHour,
        agentTokensPerDay: COST_GUARD_DEFAULTS.agentTokensPerDay,
        reply: COST_GUARD_DEFAULTS.overBudgetReply,
      },
      historyMaxCharacters: COST_GUARD_DEFAULTS.historyMaxCharacters,
    });
  });

  it('reads the customer budget and the history cap, keeping the defaults of what the budget leaves out', () => {
    const config = readOrchestratorConfig({
      ...orchestratorEnvironment,
      [RUNTIME_ENV.customerBudget]: JSON.stringify({ turnsPerMinute: 4, reply: 'Devagar, por favor.' }),
      [RUNTIME_ENV.agentHistoryMaxCharacters]: '8000',
    });
    expect(config.customerBudget).toEqual({ turnsPerMinute: 4, turnsPerHour: COST_GUARD_DEFAULTS.turnsPerHour, agentTokensPerDay: COST_GUARD_DEFAULTS.agentTokensPerDay, reply: 'Devagar, por favor.' });
    expect(config.historyMaxCharacters).toBe(8000);
  });

  it.each(['not json', '[]', '{"turnsPerMinute":0}', '{"turnsPerHour":1.5}', '{"reply":""}', '{"turnsPerDay":3}'])('refuses the budget %s, naming the variable', (value) => {
    expect(() => readOrchestratorConfig({ ...orchestratorEnvironment, [RUNTIME_ENV.customerBudget]: value })).toThrow(RUNTIME_ENV.customerBudget);
  });

  it('takes an overridden Graph API root and receive count', () => {
    const config = readOrchestratorConfig({ ...orchestratorEnvironment, [RUNTIME_ENV.whatsAppApiBaseUrl]: 'http://127.0.0.1:9999/v23.0', [RUNTIME_ENV.maxReceiveCount]: '5' });
    expect(config).toMatchObject({ whatsApp: { apiBaseUrl: 'http://127.0.0.1:9999/v23.0' }, maxReceiveCount: 5 });
  });

  it.each(['0', '2.5', 'three'])('refuses a receive count of %s, naming the variable', (value) => {
    expect(() => readOrchestratorConfig({ ...orchestratorEnvironment, [RUNTIME_ENV.maxReceiveCount]: value })).toThrow(`${RUNTIME_ENV.maxReceiveCount}="${value}"`);
  });

  it.each([RUNTIME_ENV.tableName, RUNTIME_ENV.whatsAppSecretArn])('names %s when it is missing', (name) => {
    expect(() => readOrchestratorConfig(without(orchestratorEnvironment, name))).toThrow(`Environment variable ${name} is not set`);
  });

  it('names the agent variable that is missing', () => {
    expect(() => readOrchestratorConfig(without(orchestratorEnvironment, RUNTIME_ENV.bedrockModelId))).toThrow(AgentConfigurationError);
    expect(() => readOrchestratorConfig(without(orchestratorEnvironment, RUNTIME_ENV.bedrockModelId))).toThrow(RUNTIME_ENV.bedrockModelId);
  });
});

describe('the WhatsApp channel', () => {
  const endUserMessaging = {
    ...without(orchestratorEnvironment, RUNTIME_ENV.whatsAppSecretArn),
    [RUNTIME_ENV.whatsAppChannel]: 'end-user-messaging',
    [RUNTIME_ENV.endUserMessagingPhoneNumbers]: '106540352242922=phone-number-id-976c72a700aac43eaf573ae050example, 2=phone-number-id-0123abc',
  };

  it('reads End User Messaging numbers and needs no WhatsApp secret', () => {
    expect(readOrchestratorConfig(endUserMessaging).whatsApp).toEqual({
      kind: 'end-user-messaging',
      phoneNumbers: new Map([
        ['106540352242922', 'phone-number-id-976c72a700aac43eaf573ae050example'],
        ['2', 'phone-number-id-0123abc'],
      ]),
      metaApiVersion: PIPELINE_DEFAULTS.endUserMessagingMetaApiVersion,
    });
  });

  it.each(['106540352242922', '106540352242922=976c72a7', 'abc=phone-number-id-1', '1=phone-number-id-1=2'])('refuses the number pair %s, naming the variable', (value) => {
    expect(() => readOrchestratorConfig({ ...endUserMessaging, [RUNTIME_ENV.endUserMessagingPhoneNumbers]: value })).toThrow(RUNTIME_ENV.endUserMessagingPhoneNumbers);
  });

  it('refuses an unknown channel and End User Messaging without numbers', () => {
    expect(() => readOrchestratorConfig({ ...orchestratorEnvironment, [RUNTIME_ENV.whatsAppChannel]: 'telegram' })).toThrow(`${RUNTIME_ENV.whatsAppChannel}="telegram"`);
    expect(() => readOrchestratorConfig(without(endUserMessaging, RUNTIME_ENV.endUserMessagingPhoneNumbers))).toThrow(RUNTIME_ENV.endUserMessagingPhoneNumbers);
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

  it('reaches the repositories a handler composes', () => {
    const previous = process.env[RUNTIME_ENV.keyLayout];
    process.env[RUNTIME_ENV.keyLayout] = 'sharded-ish';
    try {
      expect(() => composeFunction('webhook', { tableName: 'agent-table' })).toThrow(RuntimeConfigError);
    } finally {
      if (previous === undefined) delete process.env[RUNTIME_ENV.keyLayout];
      else process.env[RUNTIME_ENV.keyLayout] = previous;
    }
  });
});
