/**
 * The CloudFormation outputs every pipeline adds to its stack, which the command-line tools read.
 * CDK-free: the construct, the Lambda handlers, the console and the local runtime import it alike.
 * Internal: not part of the jsii API.
 */

/**
 * The CloudFormation outputs every pipeline adds to its stack, read by the package's command-line
 * tools (`npx cdk-whatsapp-agent-pipeline redrive --stack …`) instead of rebuilding names. The
 * output key is the pipeline's construct id (letters and digits only) followed by the suffix, e.g.
 * `PipelineDeadLetterQueueUrl` for `new AgentPipeline(stack, 'Pipeline', …)`. Renaming one breaks
 * deployed stacks' tools: these are public, documented names.
 */
export const STACK_OUTPUTS = {
  tableName: 'TableName',
  turnQueueUrl: 'TurnQueueUrl',
  deadLetterQueueUrl: 'DeadLetterQueueUrl',
  webhookUrl: 'WebhookUrl',
  whatsAppSecretArn: 'WhatsAppSecretArn',
  /** Only when the operator plane is on. */
  consoleUrl: 'ConsoleUrl',
  /** Only when the operator plane is on: the function `eval --stack` invokes to play a scenario suite. */
  evaluatorFunctionName: 'EvaluatorFunctionName',
  /** Only on the End User Messaging channel (then there is no webhook URL nor WhatsApp secret). */
  eventTopicArn: 'EventTopicArn',
  /** Only when media is on: the bucket attachments are kept in (the pipeline's or `media.existingBucket`). */
  mediaBucketName: 'MediaBucketName',
  /** Only with `media.transcription`: what the names of the voice notes' transcription jobs start with, which the erasure deletes. */
  transcriptionJobPrefix: 'TranscriptionJobPrefix',
} as const;

/** The output key of `suffix` (a `STACK_OUTPUTS` value) for the pipeline with construct id `pipelineId`. */
export function stackOutputKey(pipelineId: string, suffix: string): string {
  return `${pipelineId.replace(/[^A-Za-z0-9]/g, '')}${suffix}`;
}
