import type { Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { TABLE_SCHEMA } from '../contract';
import {
  leadingKeysCondition,
  OPERATOR_DEAD_LETTER_ACTIONS,
  ORCHESTRATOR_QUERY_ACTIONS,
  ORCHESTRATOR_TABLE_ACTIONS,
  QUEUE_PRODUCER_KEY_ACTIONS,
  REDRIVE_QUERY_ACTIONS,
  REDRIVE_TABLE_ACTIONS,
  STACK_OUTPUT_READ_ACTIONS,
  TABLE_KEY_ACTIONS,
  viaServiceCondition,
  WEBHOOK_PARTITION_PREFIXES,
  WEBHOOK_QUEUE_ACTIONS,
  WEBHOOK_TABLE_ACTIONS,
} from './permissions';
import type { WhatsAppChannelBinding } from './whatsapp-channel-binding';

/** The pipeline's table, turn queue, dead-letter queue and key: what its functions and the redrive command are granted access to. */
export interface PipelineResources {
  readonly table: dynamodb.ITable;
  readonly queue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue;
  readonly encryptionKey?: kms.IKey;
}

/** The two functions every pipeline has, and the channel they receive and send on. */
export interface CoreFunctions {
  readonly webhookFunction: lambda.IFunction;
  readonly orchestratorFunction: lambda.IFunction;
  readonly channel: Pick<WhatsAppChannelBinding, 'grantReceive' | 'grantSend'>;
}

/** The webhook's and the orchestrator's access to the table, the turn queue, the channel and the key. */
export function grantCoreFunctionAccess({ table, queue, encryptionKey }: PipelineResources, { webhookFunction, orchestratorFunction, channel }: CoreFunctions): void {
  webhookFunction.addToRolePolicy(
    new iam.PolicyStatement({ actions: [...WEBHOOK_TABLE_ACTIONS], resources: [table.tableArn], conditions: leadingKeysCondition(WEBHOOK_PARTITION_PREFIXES) }),
  );
  webhookFunction.addToRolePolicy(new iam.PolicyStatement({ actions: [...WEBHOOK_QUEUE_ACTIONS], resources: [queue.queueArn] }));
  orchestratorFunction.addToRolePolicy(new iam.PolicyStatement({ actions: [...ORCHESTRATOR_TABLE_ACTIONS], resources: [table.tableArn] }));
  orchestratorFunction.addToRolePolicy(new iam.PolicyStatement({ actions: [...ORCHESTRATOR_QUERY_ACTIONS], resources: [table.tableArn, indexArn(table)] }));
  channel.grantReceive(webhookFunction);
  channel.grantSend(orchestratorFunction);
  if (encryptionKey) {
    for (const fn of [webhookFunction, orchestratorFunction]) {
      fn.addToRolePolicy(new iam.PolicyStatement({ actions: [...TABLE_KEY_ACTIONS], resources: [encryptionKey.keyArn], conditions: viaServiceCondition('dynamodb') }));
    }
    // The orchestrator's kms:Decrypt for consuming the queue comes with the event source.
    webhookFunction.addToRolePolicy(
      new iam.PolicyStatement({ actions: [...QUEUE_PRODUCER_KEY_ACTIONS], resources: [encryptionKey.keyArn], conditions: viaServiceCondition('sqs') }),
    );
  }
}

/** What the redrive command calls (`AgentPipeline.grantRedrive`), on the resources of the pipeline in `stack`. */
export function grantRedrive(grantee: iam.IGrantable, stack: Stack, { table, queue, deadLetterQueue, encryptionKey }: PipelineResources): iam.Grant {
  const grants = [
    iam.Grant.addToPrincipal({ grantee, actions: [...STACK_OUTPUT_READ_ACTIONS], resourceArns: [stack.stackId] }),
    iam.Grant.addToPrincipal({ grantee, actions: [...OPERATOR_DEAD_LETTER_ACTIONS], resourceArns: [deadLetterQueue.queueArn] }),
    iam.Grant.addToPrincipal({ grantee, actions: [...WEBHOOK_QUEUE_ACTIONS], resourceArns: [queue.queueArn] }),
    iam.Grant.addToPrincipal({ grantee, actions: [...REDRIVE_TABLE_ACTIONS], resourceArns: [table.tableArn] }),
    iam.Grant.addToPrincipal({ grantee, actions: [...REDRIVE_QUERY_ACTIONS], resourceArns: [table.tableArn, indexArn(table)] }),
    ...(encryptionKey ? [iam.Grant.addToPrincipal({ grantee, actions: [...TABLE_KEY_ACTIONS], resourceArns: [encryptionKey.keyArn] })] : []),
  ];
  return grants.reduce((all, grant) => all.combine(grant));
}

function indexArn(table: dynamodb.ITable): string {
  return `${table.tableArn}/index/${TABLE_SCHEMA.gsi1.indexName}`;
}
