import { Aws } from 'aws-cdk-lib';

/**
 * The actions a role is granted on the pipeline's customer managed keys, and the condition that
 * lets it use them only through the service that owns the data (docs/PERMISSIONS.md). Internal:
 * not part of the jsii API.
 */

/** The services through which a role may use the pipeline's customer managed key. */
export type KeyService = 'dynamodb' | 'sqs' | 'secretsmanager' | 'sns' | 's3';

/**
 * Lets a key grant work only when `service` calls KMS on the principal's behalf (DynamoDB for the
 * table, SQS for the queues), never a direct Decrypt by the function.
 */
export function viaServiceCondition(service: KeyService): Record<string, Record<string, string>> {
  return { StringEquals: { 'kms:ViaService': `${service}.${Aws.REGION}.amazonaws.com` } };
}

/**
 * On a customer managed table key, for principals that read and write items. DynamoDB calls KMS
 * on the caller's behalf; these are aws-cdk-lib's read/write data key actions without the
 * `ReEncrypt*` / `GenerateDataKey*` wildcards.
 */
export const TABLE_KEY_ACTIONS = ['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey'] as const;

/** On a customer managed table key, for principals that only read items. */
export const TABLE_KEY_READ_ACTIONS = ['kms:Decrypt', 'kms:DescribeKey'] as const;

/** On a customer managed queue key, for a producer (SQS encrypts each message with a data key). */
export const QUEUE_PRODUCER_KEY_ACTIONS = ['kms:GenerateDataKey', 'kms:Decrypt'] as const;

/** On a customer managed queue key, for a consumer. */
export const QUEUE_CONSUMER_KEY_ACTIONS = ['kms:Decrypt'] as const;
