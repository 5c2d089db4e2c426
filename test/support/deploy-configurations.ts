// The configurations the deploy-limit suites synthesize: the README's, and the largest the construct
// accepts — every feature on, ten stages, every text at its accepted maximum, a 60-character stack
// name and a 40-character construct id, two pipelines in one stack, one app in two Regions of one
// account. Every maximum is read from the code's own constants, so the suites follow a raised limit.
import * as cdk from 'aws-cdk-lib';
import { App, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as backup from 'aws-cdk-lib/aws-backup';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as ts from 'typescript';
import * as library from '../../lib';
import { AgentBackend, AgentPipeline, type AgentPipelineProps, CrmTarget, KeyLayout, Locale, ResourceNames, WebhookFrontDoor, WhatsAppChannel } from '../../lib';
import { SYSTEM_PROMPT_MAX_CHARACTERS } from '../../lib/agent-backend';
import { AGENT_STAGE_LIMITS, FALLBACK_TEXT_MAX_CHARACTERS, HANDOFF_TEXT_MAX_CHARACTERS, HANDOFF_TEXT_NAMES, LINK_PLACEHOLDER } from '../../lib/contract';
import { ALARM_NAME_PREFIX_MAX_LENGTH } from '../../lib/private/alarm-settings';
import { MAX_ADMIN_NAME_CHARACTERS } from '../../lib/private/operator-plane';
import { MAX_OVER_BUDGET_REPLY_LENGTH } from '../../lib/private/cost-guards';
import { documentedBlocks } from './readme-blocks';

export interface DeployConfiguration {
  readonly name: string;
  /** The apps it deploys (one app deployed to two Regions is two). */
  readonly apps: () => App[];
}

const MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const ACCOUNT = '123456789012';
/** The cheaper model every stage's memory writes its summaries with, in its longest form. */
const MEMORY_MODEL = `arn:aws:bedrock:us-east-1:${ACCOUNT}:application-inference-profile/f5e4d3c2b1a0`;
const PHONE_NUMBER_IDS = ['106540352242922', '106540352242923', '106540352242924'];
const ADMINS = Array.from({ length: 10 }, (_, index) => `55119000000${String(index).padStart(2, '0')}`);
/** Portuguese, accents and all: a text of N characters takes more than N bytes. */
const SAMPLE = 'Olá! Não há atendentes disponíveis agora; sua mensagem ficou registrada e responderemos já. ';

/** A text of exactly `characters` characters. */
export const textOf = (characters: number): string => SAMPLE.repeat(Math.ceil(characters / SAMPLE.length)).slice(0, characters);
/** A prompt of exactly `characters` characters. */
const promptOf = (characters: number): string => 'Answer as the bakery would. '.repeat(Math.ceil(characters / 28)).slice(0, characters);
/** A name of exactly `length` characters: `prefix` padded with letters. */
const nameOf = (prefix: string, length: number): string => `${prefix}${'x'.repeat(length - prefix.length)}`;

/** The blocks of the README and the guides that configure a pipeline, each run as its own app against the library's sources. */
export function readmeConfigurations(): DeployConfiguration[] {
  return documentedBlocks()
    .filter(({ source }) => /\bAgent(Pipeline|Backend)\b/.test(source))
    .map(({ file, line, source }) => ({ name: `${file} line ${line}`, apps: () => [runReadmeBlock(source)] }));
}

/**
 * Runs a README block as an app would. A block that builds its own App is that app; one that declares
 * a `stack` (or a `cadastroFunction`) gets them in a fresh app; one that only makes an `agentBackend`
 * gets a pipeline around it.
 */
export function runReadmeBlock(source: string): App {
  const makesOnlyAnAgent = /\bconst agentBackend\b/.test(source) && !/new AgentPipeline\(/.test(source);
  const completed = makesOnlyAnAgent
    ? `${source}\nnew (require('cdk-whatsapp-agent-pipeline').AgentPipeline)(stack, 'Agent', { environment: 'prod', agentBackend, phoneNumberIds: ['${PHONE_NUMBER_IDS[0]}'] });\n`
    : source;
  const { outputText } = ts.transpileModule(completed, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } });
  const built: App[] = [];
  class CapturedApp extends App {
    constructor(props?: cdk.AppProps) {
      super(props);
      built.push(this);
    }
  }
  const app = new App();
  const stack = new Stack(app, 'WhatsAppAgent-prod');
  // What the block declares it takes from elsewhere (`declare const stack: Stack;`).
  const declared: Record<string, () => unknown> = { stack: () => stack, cadastroFunction: () => consumerFunction(stack, 'Cadastro') };
  const names = Object.keys(declared).filter((name) => new RegExp(`\\bdeclare const ${name}\\b`).test(source) || (name === 'stack' && makesOnlyAnAgent));
  const modules: Record<string, unknown> = { 'cdk-whatsapp-agent-pipeline': library, 'aws-cdk-lib': { ...cdk, App: CapturedApp } };
  const requireModule = (id: string) => modules[id] ?? require(id);
  new Function('require', 'exports', ...names, outputText)(requireModule, {}, ...names.map((name) => declared[name]()));
  return built[0] ?? app;
}

function consumerFunction(stack: Stack, id: string): lambda.Function {
  return new lambda.Function(stack, id, { runtime: lambda.Runtime.NODEJS_24_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler = async () => ({})') });
}

/** The README's first pipeline with a system prompt as long as the construct accepts. */
function firstPipelineWithLongestPrompt(): App {
  const app = new App();
  new AgentPipeline(new Stack(app, 'WhatsAppAgent-dev'), 'Agent', {
    environment: 'dev',
    agentBackend: AgentBackend.bedrock({ modelId: MODEL, systemPrompt: promptOf(SYSTEM_PROMPT_MAX_CHARACTERS) }),
    phoneNumberIds: [PHONE_NUMBER_IDS[0]],
    removalPolicy: RemovalPolicy.DESTROY,
    deletionProtection: false,
  });
  return app;
}

/** `prefix` grown while the stage name pattern still takes it. */
function longestStageName(prefix: string): string {
  let name = prefix;
  while (AGENT_STAGE_LIMITS.namePattern.test(`${name}x`)) name += 'x';
  return name;
}

/**
 * As many stages as the construct accepts, with the longest names, each a Bedrock agent with every
 * setting in its longest form (an application inference profile, a guardrail by ARN, a knowledge
 * base of its own, the memory's summaries by one cheaper application inference profile), and with
 * `longestPrompts` each stage's prompt as long as the construct accepts.
 */
function mostStages(longestPrompts = false): AgentBackend {
  const names = Array.from({ length: AGENT_STAGE_LIMITS.maxStages }, (_, index) => longestStageName(`stage${index}-`));
  const agent = (index: number) =>
    AgentBackend.bedrock({
      modelId: `arn:aws:bedrock:us-east-1:${ACCOUNT}:application-inference-profile/a1b2c3d4e5f${index}`,
      ...(longestPrompts ? { systemPrompt: promptOf(SYSTEM_PROMPT_MAX_CHARACTERS) } : {}),
      inferenceConfig: { maxTokens: 1200, temperature: 0.3, topP: 0.9, stopSequences: ['Cliente:'] },
      guardrail: { identifier: `arn:aws:bedrock:us-east-1:${ACCOUNT}:guardrail/gr0abc123de${index}`, version: 'DRAFT' },
      promptCaching: true,
      knowledgeBase: { knowledgeBaseId: `KBSTAGE00${index}`.slice(0, 10), numberOfResults: 10, filter: { andAll: [{ equals: { key: 'audience', value: 'customers' } }, { in: { key: 'language', value: ['pt', 'en', 'es'] } }] } },
      memory: { modelId: MEMORY_MODEL, foldEveryTurns: 20 },
    });
  return AgentBackend.stages({ entry: names[0], agents: Object.fromEntries(names.map((name, index) => [name, agent(index)])) });
}

/** One pipeline in a fresh stack with `props`. */
function pipelineApp(props: Partial<AgentPipelineProps>): App {
  const app = new App();
  new AgentPipeline(new Stack(app, 'WhatsAppAgent-prod'), 'Agent', { environment: 'prod', agentBackend: AgentBackend.bedrock({ modelId: MODEL }), phoneNumberIds: PHONE_NUMBER_IDS, ...props });
  return app;
}

/** Options of `everyFeature`: the channel, and whether every text is at its accepted maximum. */
interface FeatureOptions {
  readonly channel: 'cloud-api' | 'end-user-messaging';
  readonly longestTexts?: boolean;
}

/**
 * Every feature of the construct on, in `stack`: a Bedrock agent (ten stages with the longest texts),
 * the operator plane behind CloudFront and WAF, templates, CRM sync, media and voice notes, budgets,
 * a customer managed key, alarms to two topics, a backup plan, aliases with provisioned concurrency,
 * a VPC, the API Gateway front door (Cloud API) or End User Messaging with several numbers.
 */
export function everyFeature(stack: Stack, id: string, { channel, longestTexts = false }: FeatureOptions): AgentPipeline {
  const scoped = (name: string) => `${id}${name}`;
  const key = new kms.Key(stack, scoped('DataKey'), { enableKeyRotation: true });
  const topicKey = new kms.Key(stack, scoped('AlarmKey'), { enableKeyRotation: true });
  topicKey.grant(new iam.ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey');
  const topic = (name: string) => new sns.Topic(stack, scoped(name), { masterKey: topicKey, enforceSSL: true });
  const vpc = ec2.Vpc.fromVpcAttributes(stack, scoped('Vpc'), {
    vpcId: 'vpc-0a1b2c3d4e5f67890',
    availabilityZones: ['sa-east-1a', 'sa-east-1b'],
    privateSubnetIds: ['subnet-0a1b2c3d4e5f67890', 'subnet-0f9e8d7c6b5a43210'],
    privateSubnetRouteTableIds: ['rtb-0a1b2c3d4e5f67890', 'rtb-0f9e8d7c6b5a43210'],
  });
  const text = (characters: number, short: string) => (longestTexts ? textOf(characters) : short);
  const handoffTexts = Object.fromEntries(
    HANDOFF_TEXT_NAMES.map((name) => [name, text(HANDOFF_TEXT_MAX_CHARACTERS - (name === 'operatorNotification' ? LINK_PLACEHOLDER.length : 0), 'Um momento, por favor.') + (name === 'operatorNotification' ? LINK_PLACEHOLDER : '')]),
  );
  return new AgentPipeline(stack, id, {
    environment: 'prod',
    agentBackend: longestTexts
      ? mostStages(true)
      : AgentBackend.bedrock({
          modelId: MODEL,
          systemPrompt: 'You are the WhatsApp assistant of Padaria Sol.',
          inferenceConfig: { maxTokens: 600, temperature: 0.3 },
          guardrail: { identifier: 'gr0abc123', version: '1' },
          knowledgeBase: { knowledgeBaseId: 'KBPADARIA1' },
        }),
    ...(channel === 'cloud-api'
      ? { phoneNumberIds: PHONE_NUMBER_IDS, webhookFrontDoor: WebhookFrontDoor.apiGateway() }
      : {
          channel: WhatsAppChannel.endUserMessaging({
            phoneNumbers: PHONE_NUMBER_IDS.map((metaPhoneNumberId, index) => ({ id: `phone-number-id-976c72a700aac43eaf573ae050example${index}`, metaPhoneNumberId })),
            wabaIds: ['102290129340398', '102290129340399'],
          }),
        }),
    locale: Locale.EN,
    timeZone: 'Europe/London',
    adminPhoneNumbers: ADMINS,
    adminDisplayNames: Object.fromEntries(ADMINS.map((phone) => [phone, text(MAX_ADMIN_NAME_CHARACTERS, 'Ana')])),
    handoffTexts,
    messageTemplates: {
      businessAccountId: channel === 'cloud-api' ? '102290129340398' : 'waba-976c72a700aac43eaf573ae050example',
      handoffNoticeTemplate: { name: 'aviso_atendimento', language: 'pt_BR' },
      reengagement: { template: { name: 'retomar_conversa', language: 'pt_BR' }, after: Duration.hours(4) },
    },
    consoleFrontDoor: {
      webAclArn: `arn:aws:wafv2:us-east-1:${ACCOUNT}:global/webacl/console/a1b2c3d4-5678-90ab-cdef-EXAMPLE11111`,
      domainNames: ['console.padariasol.example'],
      certificate: acm.Certificate.fromCertificateArn(stack, scoped('Certificate'), `arn:aws:acm:us-east-1:${ACCOUNT}:certificate/a1b2c3d4-5678-90ab-cdef-EXAMPLE11111`),
      logBucket: s3.Bucket.fromBucketName(stack, scoped('ConsoleLogs'), 'padaria-sol-console-logs'),
    },
    crmSync: CrmTarget.webhook({
      url: 'https://crm.padariasol.example/hooks/whatsapp',
      secret: secretsmanager.Secret.fromSecretCompleteArn(stack, scoped('CrmSecret'), `arn:aws:secretsmanager:sa-east-1:${ACCOUNT}:secret:crm-signing-AbCdEf`),
    }),
    media: { transcription: { languageCode: 'en-US' } },
    fallbackText: text(FALLBACK_TEXT_MAX_CHARACTERS, 'Sorry, something went wrong.'),
    deadlineFallbackText: text(FALLBACK_TEXT_MAX_CHARACTERS, 'One moment, please.'),
    unsupportedMessageText: text(FALLBACK_TEXT_MAX_CHARACTERS, 'I can only read text for now.'),
    customerBudget: { turnsPerMinute: 6, turnsPerHour: 60, agentTokensPerDay: 200_000, reply: text(MAX_OVER_BUDGET_REPLY_LENGTH, 'Slow down, please.') },
    pipelineBudget: { agentTokensPerDay: 50_000_000, reply: text(MAX_OVER_BUDGET_REPLY_LENGTH, 'We are closed for today.') },
    encryptionKey: key,
    alarms: {
      ...(longestTexts ? { alarmNamePrefix: nameOf('padaria-sol-', ALARM_NAME_PREFIX_MAX_LENGTH) } : {}),
      criticalTopic: topic('Pager'),
      warningTopic: topic('Team'),
    },
    ...(longestTexts
      ? { resourceNames: ResourceNames.of({ tableName: nameOf(`${id}-table-`, 255), turnQueueName: `${nameOf(`${id}-turns-`, 75)}.fifo`, deadLetterQueueName: `${nameOf(`${id}-dlq-`, 75)}.fifo` }) }
      : {}),
    backupPlan: backup.BackupPlan.daily35DayRetention(stack, scoped('Backup')),
    functionAlias: { aliasName: 'live', webhookProvisionedConcurrency: 2, orchestratorProvisionedConcurrency: 2 },
    vpc,
    keyLayout: KeyLayout.MIGRATING,
    logLevel: library.LogLevel.INFO,
  });
}

/** A stack name and a construct id as long as the issue's worst case: 60 and 40 characters. */
const LONG_STACK_NAME = nameOf('WhatsAppAgent-production-', 60);
const LONG_CONSTRUCT_ID = nameOf('CustomerServicePipeline', 40);

function everyFeatureApp(options: FeatureOptions, stackProps: StackProps = {}, id = 'Agent'): App {
  const app = new App();
  everyFeature(new Stack(app, 'WhatsAppAgent-prod', stackProps), id, options);
  return app;
}

/** The same app as deployed to `region` of one account. */
export function appInRegion(region: string): App {
  return everyFeatureApp({ channel: 'cloud-api' }, { env: { account: ACCOUNT, region } });
}

/** The largest configurations; those that fail only until the settings document lands are named in the suites. */
export const MAXIMAL_CONFIGURATIONS: readonly DeployConfiguration[] = [
  {
    name: 'every feature on, a 60-character stack name and a 40-character construct id',
    apps: () => [everyFeatureApp({ channel: 'cloud-api' }, { stackName: LONG_STACK_NAME }, LONG_CONSTRUCT_ID)],
  },
  {
    name: 'two pipelines in one stack, every feature on, one per channel',
    apps: () => {
      const app = new App();
      const stack = new Stack(app, 'WhatsAppAgent-prod');
      everyFeature(stack, 'Sales', { channel: 'cloud-api' });
      everyFeature(stack, 'Support', { channel: 'end-user-messaging' });
      return [app];
    },
  },
  { name: 'the same app in two Regions of one account', apps: () => [appInRegion('sa-east-1'), appInRegion('us-east-1')] },
  { name: "the README's first pipeline with the longest systemPrompt", apps: () => [firstPipelineWithLongestPrompt()] },
  { name: 'ten stages', apps: () => [pipelineApp({ agentBackend: mostStages() })] },
  { name: 'the longest fallbackText', apps: () => [pipelineApp({ fallbackText: textOf(FALLBACK_TEXT_MAX_CHARACTERS) })] },
  {
    name: 'the four longest handoff texts',
    apps: () => [
      pipelineApp({
        adminPhoneNumbers: [ADMINS[0]],
        handoffTexts: Object.fromEntries(HANDOFF_TEXT_NAMES.map((name) => [name, textOf(HANDOFF_TEXT_MAX_CHARACTERS)])),
      }),
    ],
  },
  {
    name: 'maximal (Cloud API): every feature, ten stages, every text at its maximum, the longest names',
    apps: () => [everyFeatureApp({ channel: 'cloud-api', longestTexts: true }, { stackName: LONG_STACK_NAME }, LONG_CONSTRUCT_ID)],
  },
  {
    name: 'maximal (End User Messaging): every feature, ten stages, every text at its maximum, the longest names',
    apps: () => [everyFeatureApp({ channel: 'end-user-messaging', longestTexts: true }, { stackName: LONG_STACK_NAME }, LONG_CONSTRUCT_ID)],
  },
];
