/**
 * The deployment plan: what each function of a pipeline is told, decided once — the configuration
 * counterpart of the permissions table. One writer makes it (plan-writer.ts) for the construct and
 * the local runtime alike; one reader per function takes it apart at cold start
 * (lambda/composition/read-settings.ts). CDK-free. Internal: not part of the jsii API.
 */
import { RUNTIME_ENV } from './environment';
import { type PipelineFunction, SIMPLE_SETTINGS, type SimpleSettingName, type SettingsDocument } from './settings-document';

export { PIPELINE_FUNCTIONS, SETTINGS_DOCUMENT_FILE, type PipelineFunction } from './settings-document';

/** What one function is told. */
export interface FunctionSettings<F extends PipelineFunction = PipelineFunction> {
  /** What CloudFormation resolves at deploy time (names, ARNs, URLs) and what Powertools reads itself. */
  readonly environment: Readonly<Record<string, string>>;
  /** Every other setting, written at synth into the function's asset. */
  readonly document: DocumentOf<F>;
}

/** The functions a deployment has, and what each is told. */
export type DeploymentPlan = { readonly [F in PipelineFunction]?: FunctionSettings<F> };

/** What every function is told in its document besides its simple settings. */
const SHARED_SETTINGS = ['crmSyncEnabled', 'retention'] as const;

/** The settings of each function's document other than its simple ones (settings-document.ts declares those with the functions they go to). */
const STRUCTURED_SETTINGS = {
  'webhook': [...SHARED_SETTINGS, 'applyTemplateStatusUpdates'],
  'eum-inbound': [...SHARED_SETTINGS, 'applyTemplateStatusUpdates', 'endUserMessagingInbound'],
  'orchestrator': [...SHARED_SETTINGS, 'whatsApp', 'agent', 'customerBudget', 'pipelineBudget', 'operatorAccess', 'handoffs', 'media'],
  'operator': [...SHARED_SETTINGS, 'whatsApp', 'operatorAccess', 'adminDisplayNames', 'media'],
  'handoff-sweeper': [...SHARED_SETTINGS, 'whatsApp', 'operatorAccess', 'handoffs'],
  'idle-sweeper': [...SHARED_SETTINGS, 'idleSweep', 'transcriptionJobsSweep', 'reengagement'],
  'crm-sync': [...SHARED_SETTINGS, 'crmTarget'],
  // The orchestrator's turn path without the queue's, the customer's budget and the attachments: a scenario is played, not received.
  'evaluator': [...SHARED_SETTINGS, 'whatsApp', 'agent', 'pipelineBudget'],
} as const satisfies Record<PipelineFunction, readonly (keyof SettingsDocument)[]>;

type SimpleSettingsFor<F extends PipelineFunction> = { [N in SimpleSettingName]: F extends (typeof SIMPLE_SETTINGS)[N]['functions'][number] ? N : never }[SimpleSettingName];

/** The names of the settings in function `F`'s document. */
export type DocumentSettingOf<F extends PipelineFunction> = (typeof STRUCTURED_SETTINGS)[F][number] | SimpleSettingsFor<F>;

/** Function `F`'s document: exactly its settings (of any function, a union of theirs). */
export type DocumentOf<F extends PipelineFunction> = F extends PipelineFunction ? Pick<SettingsDocument, DocumentSettingOf<F>> : never;

/** The simple settings function `F` gets, as settings-document.ts declares them. */
export function simpleSettingNamesOf<F extends PipelineFunction>(fn: F): readonly SimpleSettingsFor<F>[] {
  return (Object.keys(SIMPLE_SETTINGS) as SimpleSettingName[]).filter((name): name is SimpleSettingsFor<F> => (SIMPLE_SETTINGS[name].functions as readonly PipelineFunction[]).includes(fn));
}

/** The settings in function `F`'s document, simple ones first. */
export function documentSettingsOf<F extends PipelineFunction>(fn: F): readonly DocumentSettingOf<F>[] {
  return [...simpleSettingNamesOf(fn), ...STRUCTURED_SETTINGS[fn]];
}

const POWERTOOLS_VARIABLES = [RUNTIME_ENV.serviceName, RUNTIME_ENV.metricsNamespace, RUNTIME_ENV.logLevel, RUNTIME_ENV.traceEnabled] as const;
const SHARED_VARIABLES = [RUNTIME_ENV.tableName, ...POWERTOOLS_VARIABLES] as const;
/** The Cloud API channel's: a function that sends on End User Messaging has neither. */
const CLOUD_API_SENDER_VARIABLES = [RUNTIME_ENV.whatsAppSecretArn, RUNTIME_ENV.whatsAppApiBaseUrl] as const;
const AGENT_VARIABLES = [RUNTIME_ENV.bedrockModelId, RUNTIME_ENV.bedrockGuardrailId, RUNTIME_ENV.bedrockGuardrailVersion, RUNTIME_ENV.bedrockKnowledgeBaseId, RUNTIME_ENV.agentFunctionName, RUNTIME_ENV.agentToolFunctions, RUNTIME_ENV.agentStageVariables] as const;

/**
 * The variables each function may be told: always the table and Powertools', the rest when its
 * document asks for them (the channel's secret on the Cloud API, the bucket with media on, the
 * agent's model or function, the console with the operator plane…).
 */
export const FUNCTION_VARIABLES: Readonly<Record<PipelineFunction, readonly string[]>> = {
  'webhook': [...SHARED_VARIABLES, RUNTIME_ENV.turnQueueUrl, RUNTIME_ENV.whatsAppSecretArn, RUNTIME_ENV.businessPhoneNumberIds],
  'eum-inbound': [...SHARED_VARIABLES, RUNTIME_ENV.turnQueueUrl, RUNTIME_ENV.endUserMessagingEventTopicArn, RUNTIME_ENV.endUserMessagingAccountId],
  'orchestrator': [...SHARED_VARIABLES, ...CLOUD_API_SENDER_VARIABLES, ...AGENT_VARIABLES, RUNTIME_ENV.consoleUrl, RUNTIME_ENV.mediaBucketName],
  'operator': [...SHARED_VARIABLES, ...CLOUD_API_SENDER_VARIABLES, RUNTIME_ENV.turnQueueUrl, RUNTIME_ENV.deadLetterQueueUrl, RUNTIME_ENV.mediaBucketName, RUNTIME_ENV.evaluatorFunctionName],
  'handoff-sweeper': [...SHARED_VARIABLES, ...CLOUD_API_SENDER_VARIABLES, RUNTIME_ENV.consoleUrl],
  'idle-sweeper': [...SHARED_VARIABLES, ...CLOUD_API_SENDER_VARIABLES],
  'crm-sync': [...SHARED_VARIABLES, RUNTIME_ENV.crmFunctionName, RUNTIME_ENV.crmWebhookUrl, RUNTIME_ENV.crmWebhookSecretArn],
  'evaluator': [...SHARED_VARIABLES, ...CLOUD_API_SENDER_VARIABLES, ...AGENT_VARIABLES],
};
