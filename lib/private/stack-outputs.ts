import { CfnOutput, Stack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { STACK_OUTPUTS, stackOutputKey } from '../contract';

type OutputName = keyof typeof STACK_OUTPUTS;

/** What each output tells the operator (its CloudFormation description). */
const DESCRIPTIONS: Record<OutputName, string> = {
  tableName: 'The pipeline table (sessions, messages, receipts)',
  turnQueueUrl: 'The FIFO turn queue between the webhook and the orchestrator',
  deadLetterQueueUrl: 'The dead-letter queue of failed turns: investigate with the redrive command',
  webhookUrl: 'Callback URL for the WhatsApp webhook in the Meta app',
  whatsAppSecretArn: 'Fill appSecret and accessToken here; give verifyToken to Meta',
  consoleUrl: 'Where operators sign in (send "login" to the business number on WhatsApp first)',
  evaluatorFunctionName: 'The function that plays scenario suites: `eval <dir> --stack` invokes it with your AWS credentials',
  eventTopicArn: 'Set this SNS topic as the event destination of the WhatsApp Business Account in AWS End User Messaging Social',
  mediaBucketName: "The bucket of the customers' attachments: the erase and export commands reach it from here",
  transcriptionJobPrefix: "Names of the voice notes' Amazon Transcribe jobs start so: the erase command deletes a customer's",
};

/** Output keys already written per stack, to refuse two pipelines whose keys would collide. */
const keysByStack = new WeakMap<Stack, Map<string, string>>();

/**
 * Adds the pipeline's outputs under the documented keys (`STACK_OUTPUTS`), overriding CDK's
 * hashed logical ids so that tools can find them by name. Two pipelines in one stack need
 * construct ids that differ in their letters and digits.
 */
export function addPipelineOutputs(pipeline: Construct, values: Partial<Record<OutputName, string>>): void {
  const stack = Stack.of(pipeline);
  const written = keysByStack.get(stack) ?? new Map<string, string>();
  keysByStack.set(stack, written);
  for (const [name, value] of Object.entries(values) as [OutputName, string | undefined][]) {
    if (value === undefined) continue;
    const key = stackOutputKey(pipeline.node.id, STACK_OUTPUTS[name]);
    const owner = written.get(key);
    if (owner !== undefined) {
      throw new Error(
        `AgentPipeline at '${pipeline.node.path}': its stack output '${key}' is already written by the pipeline at '${owner}'. ` +
          'Give the two pipelines construct ids that differ in their letters and digits (the output keys start with the id).',
      );
    }
    written.set(key, pipeline.node.path);
    new CfnOutput(pipeline, `${STACK_OUTPUTS[name]}Output`, { value, description: DESCRIPTIONS[name] }).overrideLogicalId(key);
  }
}
