import type { LogFormatter } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { WHATSAPP_CHANNEL_KINDS } from '../../lib/contract';
import type { KeyLayout } from '../../lib/contract/key-layout';
import type { Locale } from '../../lib/contract/locale';
import type { IdleSweeperReport } from '../../lambda/composition/idle-sweeper';
import type { ReengagementSettings } from '../../lambda/core/application/reengage-quiet-customers';
import type { MediaLimits } from '../../lambda/core/domain/media-limits';
import type { CustomerBudgetSettings } from '../../lambda/core/application/customer-budget-gate';
import type { PipelineBudgetSettings } from '../../lambda/core/application/pipeline-token-budget';
import type { TurnSettings } from '../../lambda/core/application/turn-settings';
import type { AgentPort } from '../../lambda/core/ports/agent';
import type { ConverseCall } from '../../lambda/core/adapters/agent/bedrock-converse-agent';
import type { ConsumerToolOptions } from '../../lib/contract/deployment-options';
import type { LocalFunctionHandler } from '../fake-aws/fake-lambda';
import type { KnowledgeDocument } from '../fake-bedrock/fake-knowledge-base';
import type { FakeTranscribeOptions } from '../fake-aws/fake-transcribe';
import type { AwsPermissionCheck } from '../fake-aws/permission-check';
import type { ReceivedCrmRequest } from '../fake-crm/fake-crm';
import type { LocalQueueOptions } from '../servers/local-resources';
import type { InvocationReport } from './sqs-event-source';

export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'CRITICAL' | 'SILENT';

/** How customers' messages come in and replies go out. */
export type LocalChannel = (typeof WHATSAPP_CHANNEL_KINDS)[keyof typeof WHATSAPP_CHANNEL_KINDS];

export interface LocalPipelineOptions {
  /**
   * `cloud-api`: signed POSTs to the webhook's Function URL, replies to the fake Graph API.
   * `end-user-messaging`: SNS-shaped events to the inbound function, replies through the fake End
   * User Messaging endpoint (which passes them on to the same fake Graph API). Default `cloud-api`.
   */
  readonly channel?: LocalChannel;
  /** Default `PIPELINE_DEFAULTS.serviceName`. */
  readonly serviceName?: string;
  /** Names the table and queues, as a deployed stage would. Default `local`. */
  readonly environment?: string;
  /** Use this DynamoDB Local instead of starting one. */
  readonly dynamoDbEndpoint?: string;
  /** Use this SQS emulator instead of starting one. */
  readonly sqsEndpoint?: string;
  /**
   * Use this S3 server for the media bucket. Default: `AWS_ENDPOINT_URL_S3`, else the SQS
   * emulator's port, which serves S3 too.
   */
  readonly s3Endpoint?: string;
  /**
   * The media bucket's limits, as with the construct's `media.maxBytes` and `media.allowedMimeTypes`;
   * `false` turns attachments off, as `media.enabled: false`. Default: on, with the construct's limits.
   */
  readonly media?: Partial<MediaLimits> | false;
  /**
   * Voice notes transcribed, as with the construct's `media.transcription`, by the fake Amazon
   * Transcribe on 127.0.0.1 (`AWS_ENDPOINT_URL_TRANSCRIBE`), whose words `transcripts` gives.
   * Default: off, as the construct's default.
   */
  readonly transcription?: LocalTranscriptionOptions;
  /**
   * Documents of a fake Bedrock knowledge base on 127.0.0.1 (Retrieve's shape), which a Bedrock
   * agent with a knowledge base (`BEDROCK_KNOWLEDGE_BASE_ID`) searches instead of Bedrock's.
   * Default: none; such an agent searches the real knowledge base with the user's credentials.
   */
  readonly knowledgeDocuments?: readonly KnowledgeDocument[];
  /** Queue settings to override (e.g. a short visibility timeout so retries come quickly). */
  readonly queue?: LocalQueueOptions;
  /**
   * The agent. Default: the scripted agent, or the adapter `AGENT_BACKEND` selects when it is set
   * (e.g. `AGENT_BACKEND=bedrock BEDROCK_MODEL_ID=…` with the user's own AWS credentials).
   */
  readonly agent?: AgentPort;
  /**
   * The Bedrock agent as a deployment composes it from its settings — its prompt, its tools, the
   * turn's checkpoint of tool rounds — on the model `converse` stands in for (the fake Converse
   * model), served by a fake Bedrock Runtime on 127.0.0.1. Its consumer tools are answered by local
   * functions the fake Lambda serves on 127.0.0.1. Both are called by the real clients with the
   * orchestrator's identity, which `permissions` checks. Default: none (see `agent`).
   */
  readonly bedrockAgent?: LocalBedrockAgent;
  /** Fixed loopback ports; each defaults to a free port. A taken port fails with a LocalServerError. */
  readonly ports?: LocalPipelinePorts;
  /** Orchestrator invocations in flight at once. Default 10. */
  readonly maxConcurrency?: number;
  /** Log level of both functions. Default `POWERTOOLS_LOG_LEVEL`, else WARN. */
  readonly logLevel?: LogLevel;
  /**
   * Where both functions record their metrics. Default: one instance per function, disabled (there
   * is no CloudWatch locally). Pass an enabled instance to read the EMF lines it writes to stdout.
   */
  readonly metrics?: Metrics;
  /**
   * The app secret the webhook's WhatsApp secret holds. Default: the one the simulated Meta signs
   * with; `'REPLACE_ME'` reproduces a secret nobody filled in (every delivery is refused).
   */
  readonly webhookAppSecret?: string;
  /** How both functions' log entries are written. Default: Powertools' Lambda JSON format. */
  readonly logFormatter?: LogFormatter;
  /** Sees every orchestrator invocation and what became of its record. */
  readonly onInvocation?: (report: InvocationReport) => void;
  /** How long a turn waits for the customer to go quiet, in milliseconds, as with the construct's `burstSettle`. Default: the construct's (2 s). */
  readonly burstSettleMs?: number;
  /** Turn settings to override (e.g. `promptCacheMs: 0`, so an edited prompt applies to the very next turn). */
  readonly turnSettings?: Partial<TurnSettings>;
  /** Per-customer turn and token limits and the over-budget reply, as with the construct's `customerBudget`. Default: the construct's defaults. */
  readonly customerBudget?: Partial<CustomerBudgetSettings>;
  /** The pipeline-wide daily token budget, as with the construct's `pipelineBudget`. Default: none. */
  readonly pipelineBudget?: Pick<PipelineBudgetSettings, 'agentTokensPerDay'> & Partial<PipelineBudgetSettings>;
  /** Where the settings `npm start` takes from its environment are read (`LOCAL_ENV`: agent, locale, key layout). Default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * Turns the operator plane on with these admins (digits only): the operator function is served at
   * `consoleUrl`, and these phones get a login link when they send `login`.
   */
  readonly adminPhoneNumbers?: readonly string[];
  /** Names of those admins by phone, as with the construct's `adminDisplayNames`. Default: none. */
  readonly adminDisplayNames?: Readonly<Record<string, string>>;
  /** When the handoff sweep re-notifies operators and reminds the customer (operator plane only). */
  readonly handoffTimings?: { readonly renotifyOperatorsAfterMs?: number; readonly remindCustomerAfterMs?: number };
  /** The template a handoff notice goes as to an operator whose window is closed, as with the construct's `messageTemplates.handoffNoticeTemplate`. */
  readonly handoffNoticeTemplate?: { readonly name: string; readonly language: string };
  /** Runs the handoff sweeper on this period, as the deployed schedule does every minute. Default: only on `sweepHandoffs()`. */
  readonly sweepEveryMs?: number;
  /**
   * When the idle sweeper closes a conversation the agent serves, as with the construct's
   * `conversationIdleTimeout` (locally any length: a demo closes within minutes), and the period it
   * runs on, as the deployed schedule does every 15 minutes. Default: 24 hours, only on `sweepIdleConversations()`.
   * With `reengagement`, as with `messageTemplates.reengagement`, the sweeper also sends the template to customers who went quiet.
   */
  readonly idleSweep?: { readonly idleTimeoutMs?: number; readonly everyMs?: number; readonly reengagement?: ReengagementSettings; readonly onReport?: (report: IdleSweeperReport) => void };
  /**
   * CRM sync on, as with the construct's `crmSync`: session writes carry the projection, a fake CRM
   * webhook listens on 127.0.0.1, and the worker runs every `everyMs` (default: only on `syncCrm()`).
   * Default: off.
   */
  readonly crmSync?: LocalCrmSyncOptions;
  /**
   * The language of every text the functions send and of the console, and the opt-out words they
   * take, as with the construct's `locale`. The operators' time zone stays São Paulo's. Default:
   * `PIPELINE_LOCALE` of `env` (so `PIPELINE_LOCALE=en npm start`), else pt-BR.
   */
  readonly locale?: Locale;
  /**
   * The write-shard migration phase every function runs, as with the construct's `keyLayout`
   * (docs/DESIGN.md#write-shards). Default: `KEY_LAYOUT` of `env`, else the construct's default,
   * `sharded`.
   */
  readonly keyLayout?: KeyLayout;
  /**
   * Checks every request the functions send to the local stand-ins of AWS services (Secrets
   * Manager, End User Messaging) as IAM would, and refuses what it refuses. Default: everything
   * is allowed, as DynamoDB Local and the SQS emulator allow everything.
   */
  readonly permissions?: AwsPermissionCheck;
  /**
   * A session token every function's credentials carry (each function signs with an access key id
   * of its own, see function-principals.ts). The test suites name themselves with it, so a request
   * a permission check refuses names the suite that made it. Default: none.
   */
  readonly functionSessionToken?: string;
}

export interface LocalBedrockAgent {
  /** One Converse round trip: `FakeConverseModel.converse`, or a real Bedrock call. */
  readonly converse: ConverseCall;
  /** Default: Claude Sonnet 4's US inference profile. */
  readonly modelId?: string;
  /** The system prompt, as `AgentBackend.bedrock({ systemPrompt })` sets it. Default: the embedded one. */
  readonly systemPrompt?: string;
  /** The consumer's tools, as `AgentTool.fromFunction()` declares them, each with the local function that answers it. */
  readonly tools?: readonly LocalAgentTool[];
}

/** A consumer tool of the local runtime: its declaration and the handler the fake Lambda runs for it. */
export interface LocalAgentTool extends Omit<ConsumerToolOptions, 'functionName'> {
  readonly handler: LocalFunctionHandler;
}

export interface LocalPipelinePorts {
  /** The webhook's Function URL. */
  readonly webhook?: number;
  /** The operator function's URL (the console), when the operator plane is on. */
  readonly console?: number;
  /** The fake WhatsApp Graph API. */
  readonly whatsApp?: number;
  /** DynamoDB Local, when this pipeline starts it. */
  readonly dynamoDb?: number;
  /** The SQS emulator, when this pipeline starts it. */
  readonly sqs?: number;
}

export interface LocalCrmSyncOptions {
  readonly everyMs?: number;
  /** Sees every request the fake CRM received (`npm start` logs them). */
  readonly onRequest?: (received: ReceivedCrmRequest) => void;
}

export interface SendCustomerMessageOptions {
  /** Default: a fresh `wamid.` id. Reuse one to play a Meta redelivery. */
  readonly messageId?: string;
  /** Default: now. */
  readonly sentAt?: Date;
  /** The customer's WhatsApp profile name. Default: none (the notification carries no profile). */
  readonly profileName?: string;
}

/** The fake Transcribe's words and timing, and the turn's wait (`media.transcription` of the construct). */
export interface LocalTranscriptionOptions extends Pick<FakeTranscribeOptions, 'transcripts' | 'pollsUntilDone'> {
  /** Default: the locale's, as the construct's. */
  readonly languageCode?: string;
  /** How long a turn waits for the transcript. Default: the construct's (30 s). */
  readonly maxWaitMs?: number;
  /** Between two reads of the job's state. Default: the deployed function's (2 s). */
  readonly pollIntervalMs?: number;
  /**
   * How old an ended job is when the idle sweep deletes it. Default: as the construct makes it,
   * the queue's receives × its visibility timeout (the turn budget).
   */
  readonly sweepAfterMs?: number;
}
