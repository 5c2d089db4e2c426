import { ArnFormat, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type { IConstruct } from 'constructs';

const allowed = new WeakSet<kms.IKey>();

/**
 * The customer managed key for the functions' log groups: CloudWatch Logs may use it for this
 * account's log groups in this region only (the encryption context names the log group). The key
 * policy statement is added once per key; an imported key's policy cannot be changed from here,
 * so its owner must grant the same (docs/PRIVACY.md).
 */
export function logGroupEncryptionKey(scope: IConstruct, key: kms.IKey | undefined): kms.IKey | undefined {
  if (key === undefined || allowed.has(key)) return key;
  allowed.add(key);
  const stack = Stack.of(scope);
  key.addToResourcePolicy(
    new iam.PolicyStatement({
      principals: [new iam.ServicePrincipal(`logs.${stack.region}.amazonaws.com`)],
      actions: ['kms:Encrypt*', 'kms:Decrypt*', 'kms:ReEncrypt*', 'kms:GenerateDataKey*', 'kms:Describe*'],
      resources: ['*'],
      conditions: {
        ArnLike: { 'kms:EncryptionContext:aws:logs:arn': stack.formatArn({ service: 'logs', resource: 'log-group', resourceName: '*', arnFormat: ArnFormat.COLON_RESOURCE_NAME }) },
      },
    }),
  );
  return key;
}
