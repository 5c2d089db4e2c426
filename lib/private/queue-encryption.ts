import type * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';

/** Every queue of the pipeline: encrypted with the customer managed key when one is given, with SQS managed SSE otherwise. */
export function queueEncryption(encryptionKey: kms.IKey | undefined): Pick<sqs.QueueProps, 'encryption' | 'encryptionMasterKey'> {
  return encryptionKey ? { encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: encryptionKey } : { encryption: sqs.QueueEncryption.SQS_MANAGED };
}
