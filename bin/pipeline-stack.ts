// Finds a deployed pipeline from its stack's outputs (the keys the construct writes, see
// STACK_OUTPUTS), so the operator tools never rebuild resource names.
import { CloudFormationClient, DescribeStacksCommand, type Output } from '@aws-sdk/client-cloudformation';
import { STACK_OUTPUTS } from '../lib/contract';
import { createDocumentClient } from '../lambda/core/adapters/dynamodb/dynamo-kit';
import { createDynamoRepositories, type DynamoRepositories } from '../lambda/core/adapters/dynamodb/dynamo-repositories';
import { resolveRegion } from './aws-region';
import { CliFailure, UsageError } from './cli-command';
import { EXIT_CODES } from './cli-failure';

/**
 * The options every operator command shares (for `node:util` parseArgs): which deployed pipeline
 * (`--stack`, `--pipeline`, `--region`) or which table (`--table`), and `--help`.
 */
export const PIPELINE_TARGET_OPTIONS = {
  'stack': { type: 'string' },
  'pipeline': { type: 'string' },
  'region': { type: 'string' },
  'table': { type: 'string' },
  'help': { type: 'boolean', short: 'h' },
} as const;

/** Where a deployed pipeline's data and queues are. */
export interface PipelineResources {
  readonly tableName: string;
  readonly turnQueueUrl: string;
  readonly deadLetterQueueUrl: string;
}

/**
 * Reads `stackName`'s outputs with the usual AWS settings (AWS_PROFILE, AWS_REGION, …), in `region`
 * (already settled by `resolveRegion`).
 */
export async function describePipelineStack(stackName: string, pipelineId: string | undefined, region: string): Promise<PipelineResources> {
  return pipelineFromOutputs(stackName, await readStackOutputs(stackName, region), pipelineId);
}

/** `stackName`'s outputs, read with the usual AWS settings, in `region` (`--region`, else the SDK's). */
export async function readStackOutputs(stackName: string, region: string | undefined): Promise<Output[]> {
  const settled = await resolveRegion(region);
  const cloudFormation = new CloudFormationClient({ region: settled });
  try {
    const { Stacks: stacks = [] } = await cloudFormation.send(new DescribeStacksCommand({ StackName: stackName }));
    return stacks[0]?.Outputs ?? [];
  } catch (error) {
    // CloudFormation answers ValidationError for a stack it does not know in this account and Region.
    if ((error as { name?: unknown }).name === 'ValidationError' && /does not exist/.test((error as Error).message)) {
      throw new CliFailure(EXIT_CODES.notFound, `Stack ${stackName} does not exist in Region ${settled} for these credentials: check --stack, and --region (the stack's Region).`);
    }
    throw error;
  } finally {
    cloudFormation.destroy();
  }
}

/** The table and the queues of the pipeline among `outputs` ({@link pipelineOutputs}). */
export function pipelineFromOutputs(stackName: string, outputs: readonly Output[], pipelineId?: string): PipelineResources {
  const { output } = pipelineOutputs(stackName, outputs, pipelineId);
  return {
    tableName: output(STACK_OUTPUTS.tableName),
    turnQueueUrl: output(STACK_OUTPUTS.turnQueueUrl),
    deadLetterQueueUrl: output(STACK_OUTPUTS.deadLetterQueueUrl),
  };
}

/** The outputs of one pipeline of a stack. */
export interface PipelineOutputs {
  /** The value of the output with this suffix (a `STACK_OUTPUTS` value); a stack without it is named with the way out. */
  output(suffix: string): string;
  has(suffix: string): boolean;
}

/**
 * The outputs of the pipeline among `outputs`: the only one, or the one whose construct id is
 * `pipelineId` (output keys are `<construct id><suffix>`, the id reduced to letters and digits).
 */
export function pipelineOutputs(stackName: string, outputs: readonly Output[], pipelineId?: string): PipelineOutputs {
  const values = new Map(outputs.flatMap(({ OutputKey: key, OutputValue: value }) => (key && value ? [[key, value] as const] : [])));
  const anchor = STACK_OUTPUTS.deadLetterQueueUrl;
  const pipelines = [...values.keys()].filter((key) => key.endsWith(anchor)).map((key) => key.slice(0, -anchor.length));
  const wanted = pipelineId?.replace(/[^A-Za-z0-9]/g, '');
  if (pipelines.length === 0) {
    throw new UsageError(
      `Stack ${stackName} has no ${anchor} output of a pipeline: deploy it with this version of cdk-whatsapp-agent-pipeline ` +
        '(the construct adds the outputs), or name the resources with --table, --queue-url and --dlq-url.',
    );
  }
  if (wanted !== undefined && !pipelines.includes(wanted)) {
    throw new UsageError(`Stack ${stackName} has no pipeline '${pipelineId}'; its pipelines are: ${pipelines.join(', ')}.`);
  }
  if (wanted === undefined && pipelines.length > 1) {
    throw new UsageError(`Stack ${stackName} holds several pipelines (${pipelines.join(', ')}): choose one with --pipeline.`);
  }
  const prefix = wanted ?? pipelines[0];
  return {
    output: (suffix) => {
      const value = values.get(`${prefix}${suffix}`);
      if (value === undefined) throw new UsageError(`Stack ${stackName} lacks the output ${prefix}${suffix}: redeploy it with this version of the construct.`);
      return value;
    },
    has: (suffix) => values.has(`${prefix}${suffix}`),
  };
}

/** A pipeline's table, and the Region of the clients that reach it. */
export interface PipelineTable {
  readonly tableName: string;
  readonly region: string;
  /** The turn queue's dead-letter queue, when the table was found from the stack's outputs. */
  readonly deadLetterQueueUrl?: string;
  /** The media bucket, when the table was found from the outputs of a pipeline with media on. */
  readonly mediaBucketName?: string;
  /** Whether voice notes are transcribed (`media.transcription`), when the table was found from the outputs. */
  readonly transcribesVoiceNotes?: boolean;
}

/**
 * The table named by `--table`, or the one of the pipeline deployed as `--stack` (read from the
 * stack's outputs, like the redrive command, with its dead-letter queue and media bucket), in
 * `--region` when given.
 */
export async function tableOf(stack: string | undefined, table: string | undefined, pipeline: string | undefined, region: string | undefined): Promise<PipelineTable> {
  if (stack !== undefined && table !== undefined) throw new UsageError('Give either --stack or --table, not both.');
  if (stack === undefined) {
    if (table === undefined) throw new UsageError('Name the deployed stack with --stack, or the table with --table.');
    return { tableName: table, region: await resolveRegion(region) };
  }
  const settled = await resolveRegion(region);
  const outputs = await readStackOutputs(stack, settled);
  const { tableName, deadLetterQueueUrl } = pipelineFromOutputs(stack, outputs, pipeline);
  const media = pipelineOutputs(stack, outputs, pipeline);
  return {
    tableName,
    region: settled,
    deadLetterQueueUrl,
    mediaBucketName: media.has(STACK_OUTPUTS.mediaBucketName) ? media.output(STACK_OUTPUTS.mediaBucketName) : undefined,
    transcribesVoiceNotes: media.has(STACK_OUTPUTS.transcriptionJobPrefix),
  };
}

/** The repositories of the pipeline's table, on a DynamoDB client of its Region. */
export function repositoriesOf(table: PipelineTable): DynamoRepositories {
  return createDynamoRepositories({ tableName: table.tableName, client: createDocumentClient({ region: table.region }) });
}
