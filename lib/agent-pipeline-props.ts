import type { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as backup from 'aws-cdk-lib/aws-backup';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { AgentBackend } from './agent-backend';
import type { ConsoleFrontDoor } from './console-front-door';
import type { CrmTarget } from './crm-target';
import type { HandoffTexts } from './contract/handoff-texts';
import type { WhatsAppChannel } from './whatsapp-channel';
import type { CustomerBudget } from './customer-budget';
import type { PipelineBudget } from './pipeline-budget';
import type { KeyLayout } from './contract/key-layout';
import type { Locale } from './contract/locale';
import type { AlarmThresholds } from './alarm-thresholds';
import type { PipelineAlarmOptions } from './pipeline-alarms';
import type { LogLevel } from './log-level';
import type { MediaProps } from './media-props';
import type { MessageTemplatesProps } from './message-templates';
import type { PipelineFunctionAlias } from './pipeline-function-alias';
import type { ResourceNames } from './resource-names';
import type { WebhookFrontDoor } from './webhook-front-door';

/** Properties of an `AgentPipeline`. */
export interface AgentPipelineProps {
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
   * The physical names of the table, the turn queue and the dead-letter queue the pipeline creates:
   * `ResourceNames.generated()`, `ResourceNames.of({ tableName, turnQueueName, deadLetterQueueName })`
   * for a naming standard, or `ResourceNames.seed()` for the seed system's names (with
   * `serviceName: 'gogenetic-agent'`, its deployed resources). Explicit names are unique per account
   * and Region: a second pipeline with the same names cannot deploy there.
   *
   * @default ResourceNames.generated()
   */
  readonly resourceNames?: ResourceNames;

  /**
   * A table of yours to keep the pipeline's data in, instead of the one the construct creates. It
   * must have the pipeline's schema: partition key `PK` and sort key `SK` (strings), a global
   * secondary index `GSI1` with partition key `GSI1PK` and sort key `GSI1SK` (strings) projecting
   * all attributes, and TTL on `ttl`. A `dynamodb.Table` of the same app is checked at synth; an
   * imported table cannot be, so import it with `Table.fromTableAttributes({ tableArn,
   * globalIndexes: ['GSI1'], encryptionKey })`, giving its customer managed key if it has one: the
   * functions are granted the table's key (through DynamoDB only), not `encryptionKey`.
   * `removalPolicy`, `deletionProtection` and `resourceNames` do not apply to it.
   *
   * @default - a new table
   */
  readonly existingTable?: dynamodb.ITable;

  /**
   * A FIFO queue of yours to carry the turns between the webhook and the orchestrator, instead of
   * the one the construct creates. Its visibility timeout must be greater than
   * `orchestratorTimeout`, and its redrive policy must move failed turns to a FIFO dead-letter
   * queue: a `sqs.Queue` of the same app is checked at synth and brings its `deadLetterQueue`; for
   * an imported queue pass that dead-letter queue as `existingDeadLetterQueue` (import FIFO queues
   * whose ARN is a token with `fifo: true`, and give `keyArn` when they use a customer managed key)
   * and set `maxReceiveCount` to its redrive policy's count, by which the orchestrator tells a
   * turn's last receive. `visibilityTimeout` and `queueRetentionPeriod` configure only a queue the
   * construct creates.
   *
   * @default - a new FIFO queue
   */
  readonly existingTurnQueue?: sqs.IQueue;

  /**
   * A FIFO queue of yours for the turns that failed `maxReceiveCount` times: the turn queue the
   * construct creates redrives to it, or, with an imported `existingTurnQueue`, the queue its
   * redrive policy names. `deadLetterQueueRetentionPeriod` does not apply to it.
   *
   * @default - a new FIFO dead-letter queue (with a `sqs.Queue` as `existingTurnQueue`, its own)
   */
  readonly existingDeadLetterQueue?: sqs.IQueue;

  /**
   * Properties of the dead-letter queue the construct creates, over its defaults (FIFO, TLS only,
   * encrypted with `encryptionKey` or SQS managed keys, `deadLetterQueueRetentionPeriod`). It stays
   * FIFO. Not with `existingDeadLetterQueue` or `existingTurnQueue`.
   *
   * @default - the defaults above
   */
  readonly deadLetterQueueProps?: sqs.QueueProps;

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
   * What happens to the stateful resources (table, queues, log groups, the secret created by the
   * construct) when they leave the stack. Use `DESTROY` only for disposable stacks, together with
   * `deletionProtection: false`.
   *
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;

  /**
   * DynamoDB deletion protection on the table. Must be `false` when `removalPolicy` is `DESTROY`.
   *
   * @default true
   */
  readonly deletionProtection?: boolean;

  /**
   * Customer managed KMS key for the data at rest: the table, both queues, the functions' log
   * groups and, when the construct creates it, the WhatsApp secret. Both functions are granted
   * exactly the key actions they need; CloudWatch Logs is allowed to use the key for this account's
   * log groups in this region (for an imported key, grant that in the key's own policy).
   *
   * @default - AWS managed keys: `aws/dynamodb` for the table, SQS managed SSE for the queues,
   * `aws/secretsmanager` for the secret; log groups encrypted by CloudWatch Logs' own keys
   */
  readonly encryptionKey?: kms.IKey;

  /**
   * The orchestrator function's timeout: the whole turn (history, agent loop, reply) must fit.
   *
   * @default Duration.seconds(90)
   */
  readonly orchestratorTimeout?: Duration;

  /**
   * The turn queue's visibility timeout. Must be greater than `orchestratorTimeout`. AWS
   * recommends at least 6 × the function timeout so that retries after throttling do not burn
   * receives; the default keeps the original 120 s, which re-delivers a failed turn sooner.
   *
   * @default Duration.seconds(120)
   */
  readonly visibilityTimeout?: Duration;

  /**
   * How many times a message is received before SQS moves it to the dead-letter queue
   * (a whole number from 1 to 1000).
   *
   * @default 3
   */
  readonly maxReceiveCount?: number;

  /**
   * How long the turn queue keeps a message (60 s to 14 days).
   *
   * @default Duration.days(4)
   */
  readonly queueRetentionPeriod?: Duration;

  /**
   * How long the dead-letter queue keeps a message (60 s to 14 days). Must not be shorter than
   * `queueRetentionPeriod`: SQS keeps a message's original enqueue time when it dead-letters it.
   *
   * @default Duration.days(14)
   */
  readonly deadLetterQueueRetentionPeriod?: Duration;

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
   * How long a closed conversation (the session and its messages) is kept after it closed. Items
   * get a TTL when the session closes, and reads ignore them once it passes (DynamoDB deletes
   * expired items up to days late). See docs/PRIVACY.md.
   *
   * @default Duration.days(365)
   */
  readonly conversationRetention?: Duration;

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
   * How long an out-of-portfolio demand is kept after it was recorded. See docs/PRIVACY.md.
   *
   * @default Duration.days(730)
   */
  readonly demandRetention?: Duration;

  /**
   * An AWS Backup plan to add the table to: its own schedule and retention, a vault that can be
   * locked, copies to other Regions or accounts. The table always has point-in-time recovery (any
   * second of the last 35 days); a plan keeps backups longer or elsewhere. The selection's role is
   * AWS Backup's managed service role policy.
   *
   * @default - no backup plan: point-in-time recovery only
   */
  readonly backupPlan?: backup.IBackupPlan;

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
   * Phones (digits with country code, e.g. `5511912345678`) of the admins of the operator plane.
   * Giving it turns the plane on: an operator function behind its own Function URL (`consoleUrl`)
   * serving the operator API, and sign-in by sending `login` to the business number on WhatsApp.
   * These admins can never be removed at run time; they add further operators and admins in the
   * console.
   *
   * @default - no operator plane: handed-off conversations wait in the human inbox in the table
   */
  readonly adminPhoneNumbers?: string[];

  /**
   * Names of the admins in `adminPhoneNumbers`, by their phone (e.g. `{ '5511912345678': 'Ana
   * Lima' }`): the console shows them on the Operators screen and as the author of their replies.
   * Every key must be one of `adminPhoneNumbers`; each name 1 to 60 characters. A name an admin
   * gives the same phone in the console's operators list takes precedence. Only with
   * `adminPhoneNumbers`.
   *
   * @default - the deploy-time admins go by their phone until the operators list names them
   */
  readonly adminDisplayNames?: Record<string, string>;

  /**
   * IANA time zone of the operators' working day: login links, operator sessions and declared
   * availability end at its midnight. Only with `adminPhoneNumbers`. Required with a `locale` other
   * than `Locale.PT_BR`: a language does not tell where the people who speak it work.
   *
   * @default 'America/Sao_Paulo' with the pt-BR locale; no default with another
   */
  readonly timeZone?: string;

  /**
   * How long a handed-off conversation waits unclaimed before the available operators are
   * notified again (at most 3 times). The handoff sweeper runs every minute, so 1 minute is the
   * shortest useful value. Only with `adminPhoneNumbers`.
   *
   * @default Duration.minutes(5)
   */
  readonly handoffRenotifyAfter?: Duration;

  /**
   * How long a handed-off conversation waits before the customer is told, once, that a person
   * will answer. Only with `adminPhoneNumbers`.
   *
   * @default Duration.minutes(10)
   */
  readonly customerRenotifyAfter?: Duration;

  /**
   * The texts customers and operators receive around a handoff. Only with `adminPhoneNumbers`.
   *
   * @default - the `locale`'s texts, documented on each field of `HandoffTexts`
   */
  readonly handoffTexts?: HandoffTexts;

  /**
   * The business's WhatsApp message templates: the account they are read from, and the one a
   * handoff notice goes as to an operator whose window is closed. Operators send templates from
   * the console to re-engage a customer who wrote more than 24 hours ago. Only with
   * `adminPhoneNumbers`.
   *
   * @default - no templates
   */
  readonly messageTemplates?: MessageTemplatesProps;

  /**
   * Concurrent executions reserved for, and allowed to, the operator function (1 to 900). Its
   * Function URL is public: every request, signed in or not, is an invocation, so without a cap a
   * flood of requests could take the account's concurrency from the webhook and the orchestrator.
   * Excess requests get 429 and the console tries again at its next poll (every 4 s). Ten
   * executions answer a few hundred API calls a second, far more than a team of operators makes.
   * Lambda keeps 100 of the account's concurrency unreserved, so an account whose quota is below
   * 100 plus this value (a new account's may be 10) needs a quota increase first. Only with
   * `adminPhoneNumbers`.
   *
   * @default 10
   */
  readonly operatorReservedConcurrency?: number;

  /**
   * Puts the console behind an Amazon CloudFront distribution, where an AWS WAF web ACL can filter
   * requests before they cost an invocation: the operator function's URL then takes only requests
   * CloudFront signed (`AWS_IAM` auth through origin access control), and login links point at the
   * distribution. Only with `adminPhoneNumbers`. See the README, "Putting the console behind
   * CloudFront and WAF".
   *
   * @default - the console is served by the operator function's own public URL
   */
  readonly consoleFrontDoor?: ConsoleFrontDoor;

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

  /**
   * Which key layout the functions write and read: the phase of the move to write-sharded keys,
   * which lets one deployment take Meta's 1,000 messages a second without a hot partition.
   * Move an existing deployment in order, one deployment per step: `KeyLayout.MIGRATING` (writes the
   * sharded keys, reads both layouts), then run
   * `npx cdk-whatsapp-agent-pipeline backfill-shards --stack <stack name>` until it reports
   * complete, then `KeyLayout.SHARDED`. A new table starts on `KeyLayout.SHARDED`; a table that
   * holds the seed system's data (`existingTable`, or `ResourceNames.seed()` over retained
   * resources) must be deployed with `KeyLayout.SEED` first and then migrated. See `KeyLayout` and
   * docs/DESIGN.md#write-shards.
   *
   * @default KeyLayout.SHARDED
   */
  readonly keyLayout?: KeyLayout;
}
