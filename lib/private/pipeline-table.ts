import { Stack } from 'aws-cdk-lib';
import * as backup from 'aws-cdk-lib/aws-backup';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import { TABLE_SCHEMA } from '../contract';
import { acceptFinding } from './accepted-findings';
import { acknowledgeFinding } from './nag-acknowledgements';
import type { PipelineSettings } from './pipeline-settings';

/** Where the table comes from: the consumer's, or one the pipeline creates with the key and the backup plan. */
export interface PipelineTableSources {
  readonly existingTable?: dynamodb.ITable;
  readonly encryptionKey?: kms.IKey;
  readonly backupPlan?: backup.IBackupPlan;
}

/**
 * The consumer's table, its schema checked where the app defines it, or a new one. Either way,
 * with a backup plan the table is one of its selections.
 */
export function pipelineTable(scope: Construct, settings: PipelineSettings, { existingTable, encryptionKey, backupPlan }: PipelineTableSources): dynamodb.ITable {
  if (existingTable === undefined) return buildTable(scope, settings, encryptionKey, backupPlan);
  if (existingTable instanceof dynamodb.Table) checkSchema(scope, existingTable);
  if (backupPlan) addToBackupPlan(scope, existingTable, backupPlan);
  return existingTable;
}

/** A table the app defines shows its keys: they must be the pipeline's, or every write would fail. */
function checkSchema(scope: Construct, table: dynamodb.Table): void {
  const problem = (detail: string): never => {
    throw new Error(
      `AgentPipeline at '${scope.node.path}': existingTable ${detail}. The pipeline needs partition key '${TABLE_SCHEMA.partitionKey}' and sort key ` +
        `'${TABLE_SCHEMA.sortKey}' (strings) and a global secondary index '${TABLE_SCHEMA.gsi1.indexName}' on '${TABLE_SCHEMA.gsi1.partitionKey}' / ` +
        `'${TABLE_SCHEMA.gsi1.sortKey}' (strings, all attributes projected): give the table that schema, or leave existingTable out.`,
    );
  };
  // Read from the table's CloudFormation resource: `Table.schema()` is deprecated, and its successor
  // is missing from the lowest aws-cdk-lib the peer dependency allows.
  const cfnTable = table.node.defaultChild as dynamodb.CfnTable;
  const resolved = <T>(value: unknown): T[] => {
    const array = Stack.of(table).resolve(value);
    return Array.isArray(array) ? array : [];
  };
  const attributeTypes = new Map(
    resolved<{ attributeName: string; attributeType: string }>(cfnTable.attributeDefinitions).map((a) => [a.attributeName, a.attributeType]),
  );
  const hasKeys = (keySchema: unknown, partitionKey: string, sortKey: string) => {
    const keys = resolved<{ attributeName: string; keyType: string }>(keySchema);
    const isStringKey = (name: string, keyType: string) =>
      keys.some((key) => key.attributeName === name && key.keyType === keyType) && attributeTypes.get(name) === dynamodb.AttributeType.STRING;
    return keys.length === 2 && isStringKey(partitionKey, 'HASH') && isStringKey(sortKey, 'RANGE');
  };
  if (!hasKeys(cfnTable.keySchema, TABLE_SCHEMA.partitionKey, TABLE_SCHEMA.sortKey)) problem('has other keys');
  const indexes = resolved<{ indexName: string; keySchema: unknown }>(cfnTable.globalSecondaryIndexes);
  const index = indexes.find((candidate) => candidate.indexName === TABLE_SCHEMA.gsi1.indexName);
  if (index === undefined) problem(`has no index '${TABLE_SCHEMA.gsi1.indexName}'`);
  if (!hasKeys(index!.keySchema, TABLE_SCHEMA.gsi1.partitionKey, TABLE_SCHEMA.gsi1.sortKey)) problem(`has an index '${TABLE_SCHEMA.gsi1.indexName}' with other keys`);
}

/**
 * The single table. `Table` (AWS::DynamoDB::Table) rather than `TableV2` (AWS::DynamoDB::GlobalTable):
 * the pipeline is single-Region, existing deployments of this design are AWS::DynamoDB::Table
 * resources that can be imported as they are, and template checks (cdk-nag DDB3, cfn-guard rules)
 * target it. With a backup plan, the table is one of its selections.
 */
function buildTable(scope: Construct, settings: PipelineSettings, encryptionKey: kms.IKey | undefined, backupPlan: backup.IBackupPlan | undefined): dynamodb.Table {
  const table = new dynamodb.Table(scope, 'Table', {
    tableName: settings.physicalNames.table,
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
    addToBackupPlan(scope, table, backupPlan);
  } else {
    acceptFinding(table, 'DynamoDBInBackupPlan', 'Point-in-time recovery is on: any second of the last 35 days can be restored. Pass backupPlan to keep backups longer, lock them in a vault or copy them elsewhere.');
  }
  return table;
}

function addToBackupPlan(scope: Construct, table: dynamodb.ITable, backupPlan: backup.IBackupPlan): void {
  const selection = new backup.BackupSelection(scope, 'TableBackup', { backupPlan, resources: [backup.BackupResource.fromDynamoDbTable(table)] });
  acknowledgeFinding(selection, {
    id: 'AwsSolutions-IAM4',
    appliesTo: 'Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup',
    reason: "AWS Backup's own service role policy for taking backups, which AWS keeps current for every resource type it backs up; the selection names this table alone.",
  });
}
