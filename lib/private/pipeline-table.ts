import * as backup from 'aws-cdk-lib/aws-backup';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import { TABLE_SCHEMA } from '../contract';
import { acceptFinding } from './accepted-findings';
import { acknowledgeFinding } from './nag-acknowledgements';
import type { PipelineSettings } from './pipeline-settings';

/**
 * The single table. `Table` (AWS::DynamoDB::Table) rather than `TableV2` (AWS::DynamoDB::GlobalTable):
 * the pipeline is single-Region, existing deployments of this design are AWS::DynamoDB::Table
 * resources that can be imported as they are, and template checks (cdk-nag DDB3, cfn-guard rules)
 * target it. With a backup plan, the table is one of its selections.
 */
export function buildTable(scope: Construct, settings: PipelineSettings, encryptionKey: kms.IKey | undefined, backupPlan: backup.IBackupPlan | undefined): dynamodb.Table {
  const table = new dynamodb.Table(scope, 'Table', {
    tableName: settings.names.table,
    partitionKey: { name: TABLE_SCHEMA.partitionKey, type: dynamodb.AttributeType.STRING },
    sortKey: { name: TABLE_SCHEMA.sortKey, type: dynamodb.AttributeType.STRING },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    timeToLiveAttribute: TABLE_SCHEMA.timeToLiveAttribute,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    encryption: encryptionKey ? dynamodb.TableEncryption.CUSTOMER_MANAGED : dynamodb.TableEncryption.AWS_MANAGED,
    encryptionKey,
    deletionProtection: settings.deletionProtection,
    removalPolicy: settings.removalPolicy,
  });
  table.addGlobalSecondaryIndex({
    indexName: TABLE_SCHEMA.gsi1.indexName,
    partitionKey: { name: TABLE_SCHEMA.gsi1.partitionKey, type: dynamodb.AttributeType.STRING },
    sortKey: { name: TABLE_SCHEMA.gsi1.sortKey, type: dynamodb.AttributeType.STRING },
    projectionType: dynamodb.ProjectionType.ALL,
  });
  if (backupPlan) {
    const selection = new backup.BackupSelection(scope, 'TableBackup', { backupPlan, resources: [backup.BackupResource.fromDynamoDbTable(table)] });
    acknowledgeFinding(selection, {
      id: 'AwsSolutions-IAM4',
      appliesTo: 'Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup',
      reason: "AWS Backup's own service role policy for taking backups, which AWS keeps current for every resource type it backs up; the selection names this table alone.",
    });
  } else {
    acceptFinding(table, 'DynamoDBInBackupPlan', 'Point-in-time recovery is on: any second of the last 35 days can be restored. Pass backupPlan to keep backups longer, lock them in a vault or copy them elsewhere.');
  }
  return table;
}
