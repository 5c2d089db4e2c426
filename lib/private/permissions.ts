import { Aws } from 'aws-cdk-lib';
import { CUSTOMER_PARTITION_PREFIXES } from '../contract';

/**
 * Every IAM action the pipeline grants, in one place, so a change in what the runtime calls is a
 * one-line change here and the construct tests pin the result. Internal: not part of the jsii API.
 *
 * DynamoDB authorises TransactWriteItems per underlying action (Put/Update/Delete/ConditionCheck),
 * so no transaction action appears here.
 */

/** Webhook on the table: receipt + LATEST_INBOUND transaction, routing reads, dispatch markers. */
export const WEBHOOK_TABLE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:ConditionCheckItem',
] as const;

/**
 * Orchestrator on the table (item level): what its repositories call — get / put / update / delete /
 * transact / batchGet. The kit's batchWrite is used by no pipeline path, so it is not granted.
 */
export const ORCHESTRATOR_TABLE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:BatchGetItem',
] as const;

/** Orchestrator queries (the kit's queryPage), on the table and on GSI1 only. */
export const ORCHESTRATOR_QUERY_ACTIONS = ['dynamodb:Query'] as const;

/**
 * The only partitions the webhook reads or writes (`dynamodb:LeadingKeys`): a customer's inbound
 * receipts and marker, and their session and history (routing reads, messages appended while a
 * person owns the conversation). Budgets, admin, operator and CRM items stay out of its reach.
 */
export const WEBHOOK_PARTITION_PREFIXES = [CUSTOMER_PARTITION_PREFIXES.inbound, CUSTOMER_PARTITION_PREFIXES.session] as const;

/** An IAM condition that allows the statement only on items whose partition key starts with one of `prefixes`. */
export function leadingKeysCondition(prefixes: readonly string[]): Record<string, Record<string, string[]>> {
  return { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': prefixes.map((prefix) => `${prefix}*`) } };
}

/**
 * Lets a key grant work only when one of `services` calls KMS on the principal's behalf (DynamoDB
 * for the table, SQS for the queues), never a direct Decrypt by the function.
 */
export function viaServiceCondition(...services: ('dynamodb' | 'sqs')[]): Record<string, Record<string, string[]>> {
  return { StringEquals: { 'kms:ViaService': services.map((service) => `${service}.${Aws.REGION}.amazonaws.com`) } };
}

/** Webhook on the turn queue: dispatch only. Consumption is granted by the event source. */
export const WEBHOOK_QUEUE_ACTIONS = ['sqs:SendMessage'] as const;

/**
 * On a customer managed table key, for principals that read and write items. DynamoDB calls KMS
 * on the caller's behalf; these are aws-cdk-lib's read/write data key actions without the
 * `ReEncrypt*` / `GenerateDataKey*` wildcards.
 */
export const TABLE_KEY_ACTIONS = ['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey'] as const;

/** On a customer managed queue key, for a producer (SQS encrypts each message with a data key). */
export const QUEUE_PRODUCER_KEY_ACTIONS = ['kms:GenerateDataKey', 'kms:Decrypt'] as const;

/** Bedrock agent: the Converse API is authorised as InvokeModel. */
export const BEDROCK_INVOKE_ACTIONS = ['bedrock:InvokeModel'] as const;

/** Bedrock guardrail named in the Converse call's `guardrailConfig`. */
export const BEDROCK_GUARDRAIL_ACTIONS = ['bedrock:ApplyGuardrail'] as const;

/** Consumer-supplied agent function. */
export const AGENT_FUNCTION_INVOKE_ACTIONS = ['lambda:InvokeFunction'] as const;

/** Writing to the function's own log group (instead of the managed AWSLambdaBasicExecutionRole). */
export const LOG_WRITE_ACTIONS = ['logs:CreateLogStream', 'logs:PutLogEvents'] as const;

/**
 * Operator function on the table (item level): sign-in grants and sessions (put, conditional
 * delete), conversations (transitions, send lock), history appends, config and audit, and the
 * prompt edits' conditional transactions.
 */
export const OPERATOR_TABLE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:ConditionCheckItem',
] as const;

/** Operator queries (inbox by state on GSI1, history, audit and other admin lists). */
export const OPERATOR_QUERY_ACTIONS = ['dynamodb:Query'] as const;

/** Handoff sweeper on the table: session markers and config reads, notices appended to the history. */
export const SWEEPER_TABLE_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'] as const;

/** Operator function on the dead-letter queue: the admin's redrive reads, holds and removes records. */
export const OPERATOR_DEAD_LETTER_ACTIONS = ['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:DeleteMessage'] as const;

/**
 * The redrive command (`grantRedrive`) runs the same use case as the operator's dead-letter screen,
 * so it needs what the operator function has for it: the dead-letter actions, sending back to the
 * turn queue, the operator's item actions and queries on the table; and reading the stack's outputs.
 */
export const REDRIVE_TABLE_ACTIONS = OPERATOR_TABLE_ACTIONS;
export const REDRIVE_QUERY_ACTIONS = OPERATOR_QUERY_ACTIONS;
export const STACK_OUTPUT_READ_ACTIONS = ['cloudformation:DescribeStacks'] as const;
/** Consumer-supplied CRM function (`CrmTarget.fromFunction`). */
export const CRM_FUNCTION_INVOKE_ACTIONS = ['lambda:InvokeFunction'] as const;

/** CRM sync worker on the table: reads and compare-and-set writes of projection rows. */
export const CRM_SYNC_TABLE_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem'] as const;

/** CRM sync worker queries: due rows and the BLOCKED/UNCERTAIN counts, on GSI1 only. */
export const CRM_SYNC_QUERY_ACTIONS = ['dynamodb:Query'] as const;
