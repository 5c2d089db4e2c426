import type { Duration } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { AgentBackend } from './agent-backend';
import type { CrmTarget } from './crm-target';
import type { WhatsAppChannel } from './whatsapp-channel';
import type { CustomerBudget } from './customer-budget';
import type { PipelineBudget } from './pipeline-budget';
import type { Locale } from './contract/locale';
import type { AlarmThresholds } from './alarm-thresholds';
import type { PipelineAlarmOptions } from './pipeline-alarms';
import type { LogLevel } from './log-level';
import type { MediaProps } from './media-props';
import type { OperatorPlaneProps } from './operator-plane-props';
import type { PipelineFunctionAlias } from './pipeline-function-alias';
import type { PipelineStorageProps } from './pipeline-storage-props';
import type { WebhookFrontDoor } from './webhook-front-door';

/**
 * Properties of an `AgentPipeline`. Where it keeps its data is in `PipelineStorageProps`; the
 * operator plane (admins, console, handoff) in `OperatorPlaneProps`.
 */
export interface AgentPipelineProps extends PipelineStorageProps, OperatorPlaneProps {
  /**
   * Deployment environment (`prod`, `dev`, `staging-2`…): with `serviceName` it names the
   * deployment in descriptions, alarms and logs (the Powertools service `${serviceName}-${environment}`),
   * and with `ResourceNames.seed()` the table and the queues. Lowercase letters, digits and inner
   * hyphens; together with `serviceName` at most 61 characters, so that the seed dead-letter queue
   * name fits SQS's 80-character limit.
   */
  readonly environment: string;

  /**
   * The AI agent the orchestrator calls: `AgentBackend.bedrock({ modelId })`,
   * `AgentBackend.fromFunction(fn)`, or `AgentBackend.scripted()` for development stacks.
   * Required on purpose: there is no safe default for production.
   */
  readonly agentBackend: AgentBackend;

  /**
   * Service name: the CloudWatch namespace of the pipeline's metrics and, with `environment`, its
   * Powertools service (`${serviceName}-${environment}`). It is part of the physical names only
   * with `ResourceNames.seed()`. Same character rules as `environment`.
   *
   * @default 'agent-pipeline'
   */
  readonly serviceName?: string;

  /**
   * Where Meta's webhook requests come in (Cloud API channel only): the webhook function's own
   * public URL, or an Amazon API Gateway REST API with a regional AWS WAF web ACL, throttling and
   * optionally your domain, in which case no Function URL is created. `webhookUrl` and the stack
   * output give the callback URL either way.
   *
   * @default WebhookFrontDoor.functionUrl()
   */
  readonly webhookFrontDoor?: WebhookFrontDoor;

  /**
   * The orchestrator function's timeout: the whole turn (history, agent loop, reply) must fit.
   *
   * @default Duration.seconds(90)
   */
  readonly orchestratorTimeout?: Duration;

  /**
   * How the pipeline talks to WhatsApp. With `WhatsAppChannel.endUserMessaging()`, no webhook URL and
   * no WhatsApp secret are created: `whatsAppSecret`, `phoneNumberIds` and `whatsAppApiBaseUrl`
   * belong to the Cloud API and must be left out (docs/END-USER-MESSAGING.md).
   *
   * @default WhatsAppChannel.cloudApi()
   */
  readonly channel?: WhatsAppChannel;

  /**
   * An existing Secrets Manager secret holding the JSON document
   * `{"appSecret": "…", "verifyToken": "…", "accessToken": "…"}` (Meta app secret, webhook verify
   * token, WhatsApp Cloud API access token).
   *
   * @default - a new secret with a random `verifyToken` and `REPLACE_ME` placeholders for
   * `appSecret` and `accessToken`, which the operator fills in after the first deployment
   */
  readonly whatsAppSecret?: secretsmanager.ISecret;

  /**
   * The Meta phone number ids (digits, as in the app dashboard's API setup) this pipeline answers
   * for. Notifications for any other business number subscribed to the same Meta app are answered
   * 200, dropped and counted (`InboundForeignNumberDropped`), so two numbers never share sessions.
   *
   * @default - every number of the Meta app is served (a synth-time warning says so)
   */
  readonly phoneNumberIds?: string[];

  /**
   * Maximum concurrent executions reserved for the webhook function, to bound what a flood of
   * requests to its public URL can cost. Throttling the webhook is safe: Lambda answers 429 and Meta
   * retries the notification later. (Never throttle the orchestrator that way: throttled SQS
   * deliveries count towards the dead-letter redrive.)
   *
   * @default - no reservation; the webhook shares the account's unreserved concurrency
   */
  readonly webhookReservedConcurrency?: number;

  /**
   * Base URL of the WhatsApp Cloud API (Meta Graph API version included). Must be https.
   *
   * @default 'https://graph.facebook.com/v23.0'
   */
  readonly whatsAppApiBaseUrl?: string;

  /**
   * The attachments customers send: downloaded in the turn into the pipeline's media bucket
   * (`mediaBucket`), within size and type limits. See docs/PRIVACY.md#media.
   *
   * @default - on: a bucket the pipeline creates, 16 MiB at most, the types WhatsApp accepts
   */
  readonly media?: MediaProps;

  /**
   * How long after its last message a conversation the agent serves (NEW or QUALIFYING) is closed,
   * so that its retention starts; the customer's next message opens a new conversation, whose agent
   * still sees the closed one's last messages. A scheduled sweep closes idle conversations every 15
   * minutes. Conversations waiting for or served by a person are never closed by it. From 1 hour to
   * 30 days. See docs/DESIGN.md#idle-conversations.
   *
   * @default Duration.hours(24)
   */
  readonly conversationIdleTimeout?: Duration;

  /**
   * Retention of both functions' log groups.
   *
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;

  /**
   * Memory of the webhook function in MB (CPU grows with it; it governs the cold start Meta waits on).
   *
   * @default 512
   */
  readonly webhookMemorySize?: number;

  /**
   * Memory of the orchestrator function in MB.
   *
   * @default 512
   */
  readonly orchestratorMemorySize?: number;

  /**
   * Upper bound on concurrent orchestrator invocations by the SQS event source (2 to 1000). Each
   * invocation is one turn with up to ten model calls, so this caps how fast the pipeline can spend
   * on the model and how hard it presses the model's quotas: Bedrock's requests and tokens per
   * minute are per account and model, and a spike of customers that ran unbounded would be
   * throttled, fail turns and retry them (paying again). Capped, the spike waits in the queue
   * instead. Unlike reserved concurrency this never throttles invocations, so it never pushes
   * messages towards the dead-letter queue. Twenty turns of ~5 s each answer ~240 turns a minute;
   * raise it with the model's quota.
   *
   * @default 20
   */
  readonly orchestratorMaxConcurrency?: number;

  /**
   * Threshold of the alarm on the age of the oldest message in the turn queue
   * (at least one minute, below `queueRetentionPeriod`).
   *
   * @default Duration.minutes(10)
   */
  readonly oldestMessageAgeAlarmThreshold?: Duration;

  /**
   * Thresholds of the alarms that watch for stalled messages, some shared by several alarms (e.g.
   * `functionErrors`). Every alarm evaluates one-minute periods; `alarms.overrides` tunes single
   * alarms, their periods and severity.
   *
   * @default - count alarms above 0, except signature rejections above 5; duration alarms at 80 % of the timeout
   */
  readonly alarmThresholds?: AlarmThresholds;

  /**
   * Names, topics and tuning of the alarms: `alarmNamePrefix`, a `criticalTopic` and a
   * `warningTopic`, and per-alarm `overrides` (threshold, periods, severity, enabled).
   *
   * @default - names from the stack and construct path, both severities to `alarmTopic`, every alarm with its defaults
   */
  readonly alarms?: PipelineAlarmOptions;

  /**
   * Whether to create a CloudWatch dashboard with traffic, turn latency, replies, failures, the
   * dead-letter queue, tokens, what the guards refused or dropped, the CRM sync (with `crmSync`),
   * throttles and every alarm's state.
   *
   * @default true
   */
  readonly dashboard?: boolean;

  /**
   * Name of the dashboard (letters, digits, `-` and `_`, at most 255). Only with `dashboard`.
   * CloudWatch names dashboards once per account, in every Region: give each Region its own.
   *
   * @default - the alarms' name prefix (`alarms.alarmNamePrefix`, by default the stack name and the
   * construct's path in it), with any character a dashboard name cannot hold as '-', and the stack's Region
   */
  readonly dashboardName?: string;

  /**
   * Log level of every function (`POWERTOOLS_LOG_LEVEL`). INFO writes one line per accepted
   * notification and per turn (outcomes, never message text): the trail the runbook follows.
   *
   * @default LogLevel.INFO
   */
  readonly logLevel?: LogLevel;

  /**
   * Whether every function is traced with AWS X-Ray: a segment per invocation and a subsegment per
   * DynamoDB, SQS, model and WhatsApp call, through Powertools' tracer. Off, Lambda does not trace,
   * the roles get no X-Ray permissions, and the functions never load the X-Ray SDK (which shortens
   * every cold start; docs/PERFORMANCE.md has the figures). Stages that nobody debugs from traces
   * can save the X-Ray charges.
   *
   * @default true
   */
  readonly tracing?: boolean;

  /**
   * SNS topic notified when an alarm of the pipeline changes to ALARM or back to OK: every alarm,
   * unless `alarms.criticalTopic` or `alarms.warningTopic` takes its severity elsewhere.
   *
   * @default - alarms have no actions, unless `alarms` gives topics
   */
  readonly alarmTopic?: sns.ITopic;

  /**
   * The language of the pipeline: every text it sends customers and operators (over-budget
   * replies, fallback texts, handoff texts, opt-out confirmations, console login links), the words
   * that opt a customer out of messages and back in, and the console's language until an operator
   * picks another. Each text prop (`handoffTexts`, `fallbackText`, `deadlineFallbackText`, the
   * budgets' `reply`) still replaces its text of the preset. With `adminPhoneNumbers`, any locale
   * but `Locale.PT_BR` needs `timeZone` as well.
   *
   * @default Locale.PT_BR
   */
  readonly locale?: Locale;

  /**
   * Publish each conversation's commercial projection (contact, deal, stage) to your CRM:
   * `CrmTarget.fromFunction(fn)` or `CrmTarget.webhook({ url, secret })`. When set, every session
   * write records the projection in the same transaction, and a worker run every minute sends
   * each new revision once (idempotency key `{sessionId}:{revision}`), retries with backoff, and
   * raises alarms on rows that need a person (BLOCKED, UNCERTAIN). See docs/CRM.md.
   *
   * @default - no CRM sync: no projection is written and no worker is deployed
   */
  readonly crmSync?: CrmTarget;

  /**
   * What the customer is told when their turn fails for good and no person takes the conversation:
   * at once for a failure no retry can fix (invalid agent output, a model that refuses the
   * request), otherwise nothing until the last receive. With the operator plane the conversation
   * goes to people instead, with `handoffTexts.fallback`. At most 4096 characters.
   *
   * @default - the `locale`'s text; for pt-BR 'Desculpe, tive um problema técnico e não consegui responder agora. Por favor, escreva de novo em alguns minutos.'
   */
  readonly fallbackText?: string;

  /**
   * What the agent answers when it has nothing better to say: the turn's deadline came before the
   * model wrote any text (or it wrote none), or your agent function had not returned by then.
   * At most 4096 characters.
   *
   * @default - the `locale`'s text; for pt-BR 'Desculpe, não consegui concluir minha resposta agora. Pode repetir sua última mensagem em instantes?'
   */
  readonly deadlineFallbackText?: string;

  /**
   * What the customer is told when they send a message of a type the pipeline cannot read (a poll,
   * a kind of message WhatsApp delivers as `unsupported`): once per conversation, instead of an
   * agent turn; later ones get no answer. At most 4096 characters.
   *
   * @default - the `locale`'s text; for pt-BR 'Desculpe, não consigo ler esse tipo de mensagem. Pode escrever em texto, ou enviar uma foto, um áudio ou um documento?'
   */
  readonly unsupportedMessageText?: string;

  // ---- Cost guards ----

  /**
   * Per-customer limits on agent turns and model tokens; a turn over budget gets a short reply and
   * no model call (counted as `TurnOverBudget`).
   *
   * @default - 8 turns a minute, 60 an hour and 250,000 model tokens a day per customer, with a
   * short reply asking the customer to wait
   */
  readonly customerBudget?: CustomerBudget;

  /**
   * A daily model token budget for the whole pipeline, all customers together: once it is spent,
   * no turn calls the model until the next UTC day, each customer gets a short reply once that day
   * (counted as `TurnOverPipelineBudget`), and `pipelineBudgetNearAlarm` fires before it is
   * reached. Off by default because only you know the bill you accept: any number chosen here
   * would either stop a busy deployment's agent for everyone or never matter — each customer stays
   * bounded by `customerBudget` meanwhile. Set it once you know your traffic (the dashboard's Agent
   * tokens widget shows it).
   *
   * @default - no pipeline-wide budget: nothing is counted beyond each customer's budget
   */
  readonly pipelineBudget?: PipelineBudget;

  /**
   * Characters of conversation history sent to the model per turn, besides the 50-message cap:
   * the newest messages that fit (the newest alone is cut to it), so long messages cannot inflate
   * every later turn's cost (from 1,000 to 200,000).
   *
   * @default 24000
   */
  readonly agentHistoryMaxCharacters?: number;

  /**
   * One answer per burst: before asking the agent, a turn waits until the customer has been quiet
   * this long, re-reading the customer's latest message twice a second with the typing indicator
   * on. A message that arrives meanwhile ends the waiting turn without a model call, and the newer
   * message's turn answers the whole burst. A burst that keeps going is answered within three
   * times this of its first message, and the wait never takes more than half the time the agent
   * has left. From 0 (answer each turn at once) to 10 seconds, at most a tenth of
   * `orchestratorTimeout`, in whole milliseconds.
   *
   * @default Duration.seconds(2)
   */
  readonly burstSettle?: Duration;

  // ---- Production placement: aliases and VPC ----

  /**
   * Publish a version of the webhook and the orchestrator on every deployment and point an alias at
   * it: the Function URL and the queue's event source mapping then invoke the alias, which can carry
   * provisioned concurrency and be shifted gradually (e.g. a CodeDeploy `LambdaDeploymentGroup` on
   * `webhookAlias` / `orchestratorAlias`).
   *
   * @default - no alias: the URL and the event source invoke the unpublished function ($LATEST)
   */
  readonly functionAlias?: PipelineFunctionAlias;

  /**
   * VPC to run every function of the pipeline in. The subnets need a route to DynamoDB, SQS,
   * Secrets Manager, CloudWatch, X-Ray, the agent (Bedrock) and the WhatsApp Cloud API: a NAT
   * gateway, or VPC endpoints plus NAT for `graph.facebook.com`.
   *
   * @default - the functions run outside any VPC, in the Lambda service network
   */
  readonly vpc?: ec2.IVpc;

  /**
   * Where in `vpc` the functions' network interfaces go. Only with `vpc`.
   *
   * @default - the VPC's private subnets with egress
   */
  readonly vpcSubnets?: ec2.SubnetSelection;

  /**
   * Security groups of the functions' network interfaces. Only with `vpc`. The functions only make
   * outbound HTTPS calls; they accept no inbound connections.
   *
   * @default - one security group per function, allowing all outbound traffic and no inbound
   */
  readonly securityGroups?: ec2.ISecurityGroup[];
}
