import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';
import type { PipelineFunctionId } from './function-ids';
import { acknowledgeFinding } from './nag-acknowledgements';

/**
 * The findings of cdk-nag's packs the construct accepts, with the reason a reviewer reads, in one
 * place (docs/COMPLIANCE.md explains each). Everything else the packs report was fixed. Each rule is
 * acknowledged under the id of every pack that reports it, for cdk-nag 3 and 2 alike, and only where
 * it applies: a finding the consumer can fix with a prop is acknowledged only while the prop is unset.
 */

/** The rule-id prefix of each pack cdk-nag ships. */
const PACK = {
  awsSolutions: 'AwsSolutions',
  hipaa: 'HIPAA.Security',
  nist4: 'NIST.800.53.R4',
  nist5: 'NIST.800.53.R5',
  pci: 'PCI.DSS.321',
  serverless: 'Serverless',
} as const;
type Pack = keyof typeof PACK;

/** Which packs report each rule the construct accepts somewhere. */
const PACKS_OF_RULE = {
  LambdaConcurrency: ['hipaa', 'nist5'],
  LambdaDLQ: ['hipaa', 'nist5', 'serverless'],
  LambdaInsideVPC: ['hipaa', 'nist4', 'nist5', 'pci'],
  IAMNoInlinePolicy: ['hipaa', 'nist4', 'nist5', 'pci'],
  LambdaFunctionPublicAccessProhibited: ['hipaa', 'nist4', 'nist5', 'pci'],
  DynamoDBInBackupPlan: ['hipaa', 'nist4', 'nist5'],
  SecretsManagerRotationEnabled: ['hipaa', 'nist5'],
  SecretsManagerUsingKMSKey: ['hipaa', 'nist5', 'pci'],
  CloudWatchLogGroupEncrypted: ['hipaa', 'nist4', 'nist5', 'pci'],
  CloudWatchAlarmAction: ['hipaa', 'nist4', 'nist5'],
  SQSRedrivePolicy: ['serverless'],
  LambdaEventSourceMappingDestination: ['serverless'],
  LambdaAsyncFailureDestination: ['serverless'],
  EventBusDLQ: ['serverless'],
  APIGWExecutionLoggingEnabled: ['hipaa', 'nist4', 'nist5', 'pci'],
  APIGWAccessLogging: ['serverless'],
  APIGWCacheEnabledAndEncrypted: ['hipaa', 'nist4', 'nist5', 'pci'],
  APIGWSSLEnabled: ['hipaa', 'nist5', 'pci'],
  WAFv2LoggingEnabled: ['hipaa', 'nist4', 'nist5', 'pci'],
  S1: ['awsSolutions'],
  L1: ['awsSolutions'],
  LambdaLatestVersion: ['serverless'],
  S3BucketLoggingEnabled: ['hipaa', 'nist4', 'nist5', 'pci'],
  S3BucketReplicationEnabled: ['hipaa', 'nist4', 'nist5', 'pci'],
  S3BucketVersioningEnabled: ['hipaa', 'nist4', 'nist5', 'pci'],
  S3BucketDefaultLockEnabled: ['nist4'],
  S3DefaultEncryptionKMS: ['hipaa', 'nist5', 'pci'],
} as const satisfies Record<string, readonly Pack[]>;
export type AcceptedRule = keyof typeof PACKS_OF_RULE;

/** Acknowledges `rule` on `scope` under every pack that reports it. */
export function acceptFinding(scope: IConstruct, rule: AcceptedRule, reason: string): void {
  for (const pack of PACKS_OF_RULE[rule]) acknowledgeFinding(scope, { id: `${PACK[pack]}-${rule}`, reason });
}


/** The functions that always have reserved concurrency: the operator function (its URL is public) and the evaluator (one run at a time). */
const RESERVED_FUNCTIONS = ['Operator', 'Evaluator'] as const satisfies readonly PipelineFunctionId[];
type ReservedFunctionId = (typeof RESERVED_FUNCTIONS)[number];
const isReserved = (id: PipelineFunctionId): id is ReservedFunctionId => (RESERVED_FUNCTIONS as readonly string[]).includes(id);

/** Why a function has no reserved concurrency (set where it has one). */
const NO_RESERVATION: Record<Exclude<PipelineFunctionId, ReservedFunctionId>, string> = {
  Webhook:
    "Reserved concurrency of the webhook is the consumer's choice (webhookReservedConcurrency): a cap below the peak delays every customer's messages, since Meta retries what Lambda throttles.",
  EumInbound:
    "Only SNS invokes the End User Messaging inbound function; its cap is the consumer's choice (webhookReservedConcurrency), and what it throttles SNS retries and parks in its dead-letter queue.",
  Orchestrator:
    'The event source mapping caps the orchestrator without throttling it (orchestratorMaxConcurrency): reserved concurrency would throttle receives, which count towards the dead-letter queue.',
  HandoffSweeper: "Only its schedule invokes the handoff sweeper, once a minute; a reservation would take the account's concurrency and cap nothing anyone else can call.",
  IdleSweeper: "Only its schedule invokes the idle sweeper, every 15 minutes; a reservation would take the account's concurrency and cap nothing anyone else can call.",
  CrmSync: "Only its schedule invokes the CRM sync worker, once a minute; a reservation would take the account's concurrency and cap nothing anyone else can call.",
};

/** Why a function has no dead-letter queue (Lambda's applies to asynchronous invocations only). */
const NO_DEAD_LETTER_QUEUE: Record<Exclude<PipelineFunctionId, 'EumInbound'>, string> = {
  Webhook: "The webhook is invoked synchronously by its Function URL: a failure is answered 5xx and Meta retries it; Lambda's dead-letter queue only takes asynchronous events.",
  Operator: "The operator function is invoked synchronously by its Function URL: a failure is answered to the console; Lambda's dead-letter queue only takes asynchronous events.",
  Orchestrator: "The orchestrator is invoked by its SQS event source: a turn that fails every receive goes to the turn queue's own dead-letter queue, with an alarm and the redrive.",
  HandoffSweeper: 'A scheduled run carries nothing to replay: the next run, a minute later, sweeps the same conversations (the schedule does not retry either).',
  IdleSweeper: 'A scheduled run carries nothing to replay: idle conversations wait in the index and the next run, 15 minutes later, closes them (the schedule does not retry either).',
  CrmSync: 'A scheduled run carries nothing to replay: the rows wait in the table and the next run, a minute later, takes them (the schedule does not retry either).',
  Evaluator:
    "An evaluation run is played once (no retry): one that fails or waits too long is reported as not finished by the operator function, and the admin starts another; nothing of a customer's waits on it.",
};

/**
 * The newest Node.js runtime the aws-cdk-lib in use knows, ordered as cdk-nag's latest-runtime rules
 * order them (AwsSolutions-L1, Serverless-LambdaLatestVersion).
 */
function newestNodeRuntime(): string | undefined {
  const names = lambda.Runtime.ALL.filter((runtime) => runtime.family === lambda.RuntimeFamily.NODEJS).map((runtime) => runtime.name);
  return names.sort((a, b) => a.localeCompare(b, undefined, { numeric: true, sensitivity: 'base' })).pop();
}

/**
 * The functions run the Node.js release their bundles are built for and the suite runs on, not
 * whatever newer one the consumer's aws-cdk-lib offers: acknowledged where it offers one.
 */
function acceptRuntime(fn: lambda.Function): void {
  const newest = newestNodeRuntime();
  if (newest === undefined || newest === fn.runtime.name) return;
  const reason =
    `The functions' bundles are built for and tested on ${fn.runtime.name} (the suite and CI run on that Node.js release), so they run on it; ` +
    `${newest}, which this aws-cdk-lib offers, is adopted by the release of cdk-whatsapp-agent-pipeline whose suite runs on it.`;
  acceptFinding(fn, 'L1', reason);
  acceptFinding(fn, 'LambdaLatestVersion', reason);
}

/** What every function of the pipeline accepts, given how it is placed and configured. */
export function acceptFunctionFindings(
  id: PipelineFunctionId,
  parts: { readonly fn: lambda.Function; readonly role: IConstruct; readonly logGroup: IConstruct },
  placement: { readonly inVpc: boolean; readonly reservedConcurrency?: number; readonly deadLetterQueue: boolean; readonly logKey: boolean },
): void {
  const { fn, role, logGroup } = parts;
  acceptRuntime(fn);
  acceptFinding(role, 'IAMNoInlinePolicy', "Each role's policy belongs to one function and is deployed with it; a customer managed policy per role would be reused nowhere and versioned by the same stack.");
  if (!placement.inVpc) {
    acceptFinding(fn, 'LambdaInsideVPC', "The functions call only AWS APIs (over TLS, authorised by IAM) and WhatsApp's; set vpc to run them in your VPC, with VPC endpoints or NAT.");
  }
  if (placement.reservedConcurrency === undefined && !isReserved(id)) acceptFinding(fn, 'LambdaConcurrency', NO_RESERVATION[id]);
  if (!placement.deadLetterQueue && id !== 'EumInbound') acceptFinding(fn, 'LambdaDLQ', NO_DEAD_LETTER_QUEUE[id]);
  if (!placement.logKey) {
    acceptFinding(logGroup, 'CloudWatchLogGroupEncrypted', "Without encryptionKey the log groups keep CloudWatch Logs' own encryption; the functions log outcomes, never message text. Pass encryptionKey to encrypt them with it.");
  }
}

/** The schedules of the sweepers and the CRM worker. */
export const SCHEDULE_WITHOUT_DEAD_LETTERS =
  'A scheduled event carries nothing to replay: a missed run is made up by the next one, so the target neither retries nor parks the event.';

/** A public Function URL (the webhook's; the console's without consoleFrontDoor). */
export function acceptPublicUrl(urlOwner: IConstruct, reason: string): void {
  acceptFinding(urlOwner, 'LambdaFunctionPublicAccessProhibited', reason);
}

/**
 * The webhook's REST API (`WebhookFrontDoor.apiGateway()`) and the web ACL the construct creates for
 * it: what API Gateway's and WAF's checks ask for that Meta's callbacks cannot use.
 */
export function acceptApiGatewayFrontDoor(restApi: IConstruct, webAcl: IConstruct | undefined): void {
  const notLogged =
    "API Gateway's logs need the account-wide CloudWatch Logs role, which a construct must not set for the whole account; the webhook function logs every request's outcome (never its text).";
  acknowledgeFinding(restApi, { id: 'AwsSolutions-APIG1', reason: notLogged });
  acknowledgeFinding(restApi, { id: 'AwsSolutions-APIG6', reason: notLogged });
  acceptFinding(restApi, 'APIGWExecutionLoggingEnabled', notLogged);
  acceptFinding(restApi, 'APIGWAccessLogging', notLogged);
  const unsigned = "Meta cannot sign requests with AWS credentials or tokens: the webhook authenticates every POST by its X-Hub-Signature-256 HMAC over the exact body before reading anything.";
  acknowledgeFinding(restApi, { id: 'AwsSolutions-APIG4', reason: unsigned });
  acknowledgeFinding(restApi, { id: 'AwsSolutions-COG4', reason: unsigned });
  acknowledgeFinding(restApi, {
    id: 'AwsSolutions-APIG2',
    reason: 'The webhook validates the signature first and then the payload against Meta\'s shape, answering 4xx for what can never succeed; a model in API Gateway would have to be kept in step with Meta\'s.',
  });
  acceptFinding(restApi, 'APIGWCacheEnabledAndEncrypted', 'Every notification is answered once: a cache would replay one answer for another request. Nothing is cached.');
  acceptFinding(restApi, 'APIGWSSLEnabled', 'The integration invokes the function through Lambda (AWS_PROXY), not an HTTP backend: there is no backend to present a client certificate to.');
  if (webAcl) {
    acceptFinding(
      webAcl,
      'WAFv2LoggingEnabled',
      "The web ACL's CloudWatch metrics and sampled requests are on; full logging needs a destination named aws-waf-logs-…: pass webAclArn for a web ACL with your own logging configuration.",
    );
  }
}
