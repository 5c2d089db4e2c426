/**
 * What the pipeline's own AWS resources cost per agent reply, as the usage report estimates it
 * (docs/DESIGN.md#the-cost-per-day). Imports only the defaults: the console may bundle it.
 * Internal: not part of the jsii API.
 *
 * The estimate is the measured usage of one answered customer message — the webhook's receipt and
 * the reply's three statuses, the queue's send, receive and delete, the orchestrator's turn — at
 * list prices, plus the orchestrator's wait on the model, which the reply records (its latency)
 * and which a run on the fake model cannot measure. It leaves out storage, media (S3, Transcribe),
 * the operator console, CloudWatch and the free tiers. An estimate, never a bill.
 */
import { PIPELINE_DEFAULTS } from './defaults';

/**
 * AWS list prices in us-east-1, in USD, as AWS's pricing pages gave them when this was written:
 * DynamoDB on-demand (Standard table class), Lambda on arm64, SQS FIFO, S3 Standard requests. Check them for your Region.
 */
export const AWS_LIST_PRICES = {
  checkedOn: '2026-12-07',
  region: 'us-east-1',
  dynamoDbWriteRequestUnit: 0.625 / 1e6,
  dynamoDbReadRequestUnit: 0.125 / 1e6,
  lambdaArmGbSecond: 0.0000133334,
  lambdaRequest: 0.2 / 1e6,
  sqsFifoRequest: 0.5 / 1e6,
  /** S3 Standard PUT: a customer's attachment stored. */
  s3PutRequest: 0.005 / 1e3,
} as const;

/** What one answered customer message uses of each priced AWS resource. */
export interface AwsUsage {
  readonly writeRequestUnits: number;
  readonly readRequestUnits: number;
  readonly sqsRequests: number;
  readonly lambdaRequests: number;
  readonly lambdaGbSeconds: number;
}

/**
 * One answered message's usage, measured by `npm run bench:cost` (docs/PERFORMANCE.md, "What a
 * conversation costs"): the day's totals over its 5,150 answered messages (photos, handoffs and the
 * memory's folds among them), the model's wait excluded (the fake model answers at once). The
 * GB-seconds are the quietest run's: they are this machine's handler time, which load inflates
 * (a run on a busy machine measured 0.392). Re-measure when the turn's requests change.
 */
export const AWS_USAGE_PER_AGENT_REPLY: AwsUsage & { readonly measuredOn: string } = {
  measuredOn: '2026-12-07',
  writeRequestUnits: 43.03,
  readRequestUnits: 8.95,
  sqsRequests: 3,
  lambdaRequests: 5.06,
  lambdaGbSeconds: 0.167,
};

/** `usage` at the list prices, in USD. */
export function awsUsageCost(usage: AwsUsage): number {
  return (
    usage.writeRequestUnits * AWS_LIST_PRICES.dynamoDbWriteRequestUnit +
    usage.readRequestUnits * AWS_LIST_PRICES.dynamoDbReadRequestUnit +
    usage.sqsRequests * AWS_LIST_PRICES.sqsFifoRequest +
    usage.lambdaRequests * AWS_LIST_PRICES.lambdaRequest +
    usage.lambdaGbSeconds * AWS_LIST_PRICES.lambdaArmGbSecond
  );
}

/**
 * The estimate for `replies` agent replies whose model calls took `modelWaitMs` in all: the
 * measured usage of each, and the orchestrator's GB-seconds while it waited on the model, at the
 * construct's default memory.
 */
export function awsEstimateUsd(replies: number, modelWaitMs: number): number {
  const waitGbSeconds = (modelWaitMs / 1000) * (PIPELINE_DEFAULTS.orchestratorMemorySize / 1024);
  return replies * awsUsageCost(AWS_USAGE_PER_AGENT_REPLY) + waitGbSeconds * AWS_LIST_PRICES.lambdaArmGbSecond;
}
