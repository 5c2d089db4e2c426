import {
  AGENT_BACKEND_KINDS,
  type AgentOptions,
  CRM_TARGET_KINDS,
  type DeploymentOptions,
  type DeploymentPlan,
  type DocumentOf,
  parseLocale,
  RUNTIME_ENV,
  type SingleAgentOptions,
  WHATSAPP_CHANNEL_KINDS,
  writeDeploymentPlan,
} from '../../lib/contract';
import { KeyLayout } from '../../lib/contract/key-layout';
import { Locale } from '../../lib/contract/locale';
import { AgentConfigurationError, RuntimeConfigError } from '../../lambda/composition/read-settings';
import { FakeLambda } from '../fake-aws/fake-lambda';
import type { AwsPermissionCheck } from '../fake-aws/permission-check';
import { FakeBedrockRuntime } from '../fake-bedrock/fake-bedrock-runtime';
import type { Cleanup } from './cleanup';
import { LOCAL_LINKED_BUSINESS_ACCOUNT_ID } from '../fake-whatsapp/fake-end-user-messaging';
import { LOCAL_ACCOUNT_ID, LOCAL_EVENT_TOPIC_ARN, LOCAL_ORIGINATION_PHONE_NUMBER_ID } from './end-user-messaging-event';
import type { DeploymentVariant } from './function-principals';
import type { LocalPipelineOptions, LogLevel } from './local-pipeline-options';
import { LOCAL_BUSINESS } from './meta-notification';

/** The local deployment's secrets, which the functions read from the fake Secrets Manager as they read the deployed ones. */
export const LOCAL_SECRET_ARNS = {
  whatsApp: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:local-whatsapp',
  crmWebhook: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:local-crm-webhook',
} as const;

/**
 * What `npm start` takes from its environment when the options leave it out: the agent, as the
 * agent backends' factories would configure it, the locale and the key layout.
 */
export const LOCAL_ENV = {
  agentBackend: 'AGENT_BACKEND',
  /** JSON `{entry, maxHandoversPerTurn, agents: {name: {…the stage's own variables…}}}`. */
  agentStages: 'AGENT_STAGES',
  bedrockModelId: RUNTIME_ENV.bedrockModelId,
  bedrockKnowledgeBaseId: RUNTIME_ENV.bedrockKnowledgeBaseId,
  agentFunctionName: RUNTIME_ENV.agentFunctionName,
  locale: 'PIPELINE_LOCALE',
  keyLayout: 'KEY_LAYOUT',
} as const;

/** What the local pipeline created for its deployment: the table, the queues and the fakes' addresses. */
export interface LocalResources {
  readonly tableName: string;
  readonly turnQueueUrl: string;
  readonly deadLetterQueueUrl: string;
  /** The fake Graph API (Cloud API channel). */
  readonly whatsAppApiBaseUrl: string;
  /** The fake Graph API's business account, whose templates the sync reads. */
  readonly whatsAppBusinessAccountId: string;
  /** The fake CRM's webhook, with `crmSync`. */
  readonly crmWebhookUrl?: string;
  /** The media bucket on the local S3 server, unless `media` is false. */
  readonly mediaBucketName?: string;
  /** The operator function's URL, with `adminPhoneNumbers`. */
  readonly consoleUrl?: string;
}

/**
 * What the construct would tell the functions of a deployment with these options, on the local
 * resources: the plan of the same writer, from local names instead of tokens.
 */
export function localPlan(options: LocalPipelineOptions, env: NodeJS.ProcessEnv, resources: LocalResources): DeploymentPlan {
  return writeDeploymentPlan(localDeploymentOptions(options, env, resources));
}

/** The deployment the options describe, as the construct would describe it from its props. */
export function localDeploymentOptions(options: LocalPipelineOptions, env: NodeJS.ProcessEnv, resources: LocalResources): DeploymentOptions {
  const locale = options.locale ?? localeOf(env);
  const keyLayout = options.keyLayout ?? keyLayoutOf(env);
  const plane = options.adminPhoneNumbers !== undefined && options.adminPhoneNumbers.length > 0;
  const { transcription } = options;
  return {
    ...(locale !== undefined && { locale }),
    ...(keyLayout !== undefined && { keyLayout }),
    ...(options.queue?.maxReceiveCount !== undefined && { maxReceiveCount: options.queue.maxReceiveCount }),
    ...(options.burstSettleMs !== undefined && { burstSettleMs: options.burstSettleMs }),
    resources: { tableName: resources.tableName, turnQueueUrl: resources.turnQueueUrl, deadLetterQueueUrl: resources.deadLetterQueueUrl },
    // Locally nothing traces: there is no X-Ray daemon.
    observability: { serviceName: resources.tableName, metricsNamespace: 'AgentPipelineLocal', logLevel: localLogLevel(options, env), tracing: false },
    channel:
      options.channel === WHATSAPP_CHANNEL_KINDS.endUserMessaging
        ? {
            kind: WHATSAPP_CHANNEL_KINDS.endUserMessaging,
            phoneNumbers: [{ metaPhoneNumberId: LOCAL_BUSINESS.businessPhoneNumberId, originationPhoneNumberId: LOCAL_ORIGINATION_PHONE_NUMBER_ID }],
            eventTopicArn: LOCAL_EVENT_TOPIC_ARN,
            accountId: LOCAL_ACCOUNT_ID,
          }
        : // The webhook answers for the local business number, as a deployment names its numbers in phoneNumberIds.
          { kind: WHATSAPP_CHANNEL_KINDS.cloudApi, whatsAppSecretArn: LOCAL_SECRET_ARNS.whatsApp, apiBaseUrl: resources.whatsAppApiBaseUrl, phoneNumberIds: [LOCAL_BUSINESS.businessPhoneNumberId] },
    agent: localAgent(options, env),
    ...(options.customerBudget && { customerBudget: options.customerBudget }),
    ...(options.pipelineBudget && { pipelineBudget: options.pipelineBudget }),
    ...(resources.mediaBucketName !== undefined &&
      options.media !== false && {
        media: {
          bucketName: resources.mediaBucketName,
          ...options.media,
          ...(transcription && {
            transcription: { languageCode: transcription.languageCode, maxWaitMs: transcription.maxWaitMs, pollIntervalMs: transcription.pollIntervalMs, sweepAfterMs: transcription.sweepAfterMs },
          }),
        },
      }),
    ...(plane && {
      operatorPlane: {
        adminPhoneNumbers: options.adminPhoneNumbers!,
        consoleUrl: resources.consoleUrl ?? '',
        evaluatorFunctionName: LOCAL_EVALUATOR_FUNCTION_NAME,
        ...(options.adminDisplayNames && { adminDisplayNames: options.adminDisplayNames }),
        renotifyOperatorsAfterMs: options.handoffTimings?.renotifyOperatorsAfterMs,
        remindCustomerAfterMs: options.handoffTimings?.remindCustomerAfterMs,
        handoffNoticeTemplate: options.handoffNoticeTemplate,
        // The fake's account is synced, as deployed with messageTemplates.businessAccountId.
        businessAccountId: options.channel === WHATSAPP_CHANNEL_KINDS.endUserMessaging ? LOCAL_LINKED_BUSINESS_ACCOUNT_ID : resources.whatsAppBusinessAccountId,
      },
    }),
    visibilityTimeoutSeconds: options.queue?.visibilityTimeoutSeconds,
    idleTimeoutMs: options.idleSweep?.idleTimeoutMs,
    ...(options.idleSweep?.reengagement && { reengagement: options.idleSweep.reengagement }),
    ...(options.crmSync && resources.crmWebhookUrl !== undefined && { crmSync: { kind: CRM_TARGET_KINDS.webhook, url: resources.crmWebhookUrl, secretArn: LOCAL_SECRET_ARNS.crmWebhook } }),
  };
}

/** Which deployment the plan describes, as far as the functions' roles differ by it. */
export function localDeploymentVariant(options: LocalPipelineOptions, orchestrator: DocumentOf<'orchestrator'>): DeploymentVariant {
  return {
    channel: options.channel ?? WHATSAPP_CHANNEL_KINDS.cloudApi,
    operatorPlane: orchestrator.operatorAccess !== null,
    crmSync: orchestrator.crmSyncEnabled ? 'webhook' : 'off',
    keyLayoutMigration: orchestrator.keyLayout === KeyLayout.MIGRATING,
    pipelineBudget: orchestrator.pipelineBudget !== null,
  };
}

/** Both functions' log level: the option, else `POWERTOOLS_LOG_LEVEL`, else WARN. */
export function localLogLevel(options: LocalPipelineOptions, env: NodeJS.ProcessEnv): LogLevel {
  return options.logLevel ?? ((env.POWERTOOLS_LOG_LEVEL?.toUpperCase() as LogLevel | undefined) || 'WARN');
}

function localeOf(env: NodeJS.ProcessEnv): Locale | undefined {
  const value = env[LOCAL_ENV.locale]?.trim();
  if (!value) return undefined;
  const locale = parseLocale(value);
  if (locale === undefined) throw new RuntimeConfigError(`${LOCAL_ENV.locale}="${value}" is not a locale: use one of ${Object.values(Locale).join(', ')}.`);
  return locale;
}

function keyLayoutOf(env: NodeJS.ProcessEnv): KeyLayout | undefined {
  const value = env[LOCAL_ENV.keyLayout]?.trim();
  if (!value) return undefined;
  if (!Object.values(KeyLayout).includes(value as KeyLayout)) throw new RuntimeConfigError(`${LOCAL_ENV.keyLayout}="${value}" is not a key layout: use one of ${Object.values(KeyLayout).join(', ')}.`);
  return value as KeyLayout;
}

/** The agent the options pass stands in for a scripted one; else the one the environment selects. */
export function localAgent(options: LocalPipelineOptions, env: NodeJS.ProcessEnv): AgentOptions {
  const { bedrockAgent } = options;
  if (bedrockAgent !== undefined) {
    const tools = (bedrockAgent.tools ?? []).map(({ handler: _, ...tool }) => ({ ...tool, functionName: localToolFunctionName(tool.name) }));
    // The knowledge base it searches is the environment's, as for an agent the environment selects.
    const knowledgeBaseId = env[LOCAL_ENV.bedrockKnowledgeBaseId]?.trim();
    return {
      backend: AGENT_BACKEND_KINDS.bedrock,
      modelId: bedrockAgent.modelId ?? LOCAL_BEDROCK_MODEL_ID,
      ...(bedrockAgent.systemPrompt !== undefined && { systemPrompt: bedrockAgent.systemPrompt }),
      ...(knowledgeBaseId && { knowledgeBase: { knowledgeBaseId } }),
      ...(tools.length > 0 && { tools }),
    };
  }
  return options.agent === undefined ? localAgentOptions(env) : { backend: AGENT_BACKEND_KINDS.scripted };
}

/**
 * The local Bedrock agent's AWS services: its model behind a fake Bedrock Runtime and its tools'
 * functions behind a fake Lambda, both called by the orchestrator's own signed clients and checked
 * by `permissions` as IAM would check them. Each is closed with `cleanup`.
 */
export async function startAgentStandIns(
  bedrockAgent: LocalPipelineOptions['bedrockAgent'],
  permissions: AwsPermissionCheck | undefined,
  cleanup: Pick<Cleanup, 'add'>,
): Promise<{ readonly bedrockEndpoint?: string; readonly lambdaEndpoint?: string }> {
  if (bedrockAgent === undefined) return {};
  const bedrock = await FakeBedrockRuntime.start({ converse: bedrockAgent.converse, permissions });
  cleanup.add(() => bedrock.close());
  const tools = bedrockAgent.tools ?? [];
  if (tools.length === 0) return { bedrockEndpoint: bedrock.endpoint };
  const lambda = await FakeLambda.start({ functions: new Map(tools.map((tool) => [localToolFunctionName(tool.name), tool.handler])), permissions });
  cleanup.add(() => lambda.close());
  return { bedrockEndpoint: bedrock.endpoint, lambdaEndpoint: lambda.endpoint };
}

/** The evaluator's name in the local plan: the local runtime plays the console's runs in process and invokes no function. */
export const LOCAL_EVALUATOR_FUNCTION_NAME = 'local-evaluator';

/** The model a local Bedrock agent names when the options name none. */
export const LOCAL_BEDROCK_MODEL_ID = 'us.anthropic.claude-sonnet-4-20250514-v1:0';

/** The name the fake Lambda serves a local tool's handler under. */
export const localToolFunctionName = (toolName: string) => `local-tool-${toolName}`;

/** Whether the agent calls no AWS service: the scripted agent, or stages of scripted agents only. */
export function isScriptedOnly(agent: AgentOptions): boolean {
  if (agent.backend === AGENT_BACKEND_KINDS.stages) return Object.values(agent.stages).every(isScriptedOnly);
  return agent.backend === AGENT_BACKEND_KINDS.scripted;
}

/**
 * The agent `AGENT_BACKEND` selects, configured by the variables of the agent backend's factory
 * (`BEDROCK_MODEL_ID`, `AGENT_FUNCTION_NAME`; with `stages`, each stage's in `AGENT_STAGES`), else
 * the scripted agent. What it lacks is refused when the orchestrator reads its settings.
 */
function localAgentOptions(env: NodeJS.ProcessEnv): AgentOptions {
  const backend = env[LOCAL_ENV.agentBackend]?.trim();
  if (!backend) return { backend: AGENT_BACKEND_KINDS.scripted };
  if (backend !== AGENT_BACKEND_KINDS.stages) return singleAgentOptions(env);
  let stages: { entry?: string; maxHandoversPerTurn?: number; agents?: Record<string, NodeJS.ProcessEnv> };
  try {
    stages = JSON.parse(env[LOCAL_ENV.agentStages] ?? '');
  } catch {
    throw new AgentConfigurationError(`${LOCAL_ENV.agentStages} is not JSON: give {"entry": "…", "agents": {"…": {"${LOCAL_ENV.agentBackend}": "scripted"}}}.`);
  }
  return {
    backend,
    entry: stages.entry ?? '',
    ...(stages.maxHandoversPerTurn !== undefined && { maxHandoversPerTurn: stages.maxHandoversPerTurn }),
    stages: Object.fromEntries(Object.entries(stages.agents ?? {}).map(([name, variables]) => [name, singleAgentOptions(variables)])),
  };
}

function singleAgentOptions(variables: NodeJS.ProcessEnv): SingleAgentOptions {
  const backend = variables[LOCAL_ENV.agentBackend]?.trim();
  switch (backend) {
    case AGENT_BACKEND_KINDS.bedrock: {
      const knowledgeBaseId = variables[LOCAL_ENV.bedrockKnowledgeBaseId]?.trim();
      return { backend, modelId: variables[LOCAL_ENV.bedrockModelId]?.trim() ?? '', ...(knowledgeBaseId && { knowledgeBase: { knowledgeBaseId } }) };
    }
    case AGENT_BACKEND_KINDS.lambda:
      return { backend, functionName: variables[LOCAL_ENV.agentFunctionName]?.trim() ?? '' };
    case AGENT_BACKEND_KINDS.scripted:
      return { backend };
    default:
      throw new AgentConfigurationError(`${LOCAL_ENV.agentBackend}="${backend}" is not an agent backend; use one of bedrock, lambda, scripted, stages.`);
  }
}
