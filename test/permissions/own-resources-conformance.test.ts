// The permission check on a pipeline over the consumer's own table and queues, each encrypted with a
// key of its own (and none on the dead-letter queue): the requests the pipeline makes are allowed
// with the resource's key, and refused once that key's grant is gone.
import { App, type CfnElement, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { IConstruct } from 'constructs';
import { AgentBackend, AgentPipeline } from '../../lib';
import { TABLE_SCHEMA } from '../../lib/contract';
import type { PipelinePrincipal } from '../../local/runtime/function-principals';
import { type DeploymentPermissions, deploymentPermissions } from '../support/permissions/deployment-permissions';
import type { SynthesizedDeployment } from '../support/permissions/deployment-variants';
import { PermissionEvaluator } from '../support/permissions/permission-evaluator';

const variant = { channel: 'cloud-api', operatorPlane: true, crmSync: 'off' } as const;
const TURN_QUEUE_URL = 'http://127.0.0.1/000000000000/own-debounce-e2e1.fifo';
const DEAD_LETTER_QUEUE_URL = 'http://127.0.0.1/000000000000/own-debounce-dlq-e2e1.fifo';

function synthesizeOwnResources(): { deployment: SynthesizedDeployment; keys: { table: string; turnQueue: string } } {
  const stack = new Stack(new App(), 'OwnResources');
  const tableKey = new kms.Key(stack, 'TableKey', { enableKeyRotation: true });
  const queueKey = new kms.Key(stack, 'QueueKey', { enableKeyRotation: true });
  const table = new dynamodb.Table(stack, 'Table', {
    partitionKey: { name: TABLE_SCHEMA.partitionKey, type: dynamodb.AttributeType.STRING },
    sortKey: { name: TABLE_SCHEMA.sortKey, type: dynamodb.AttributeType.STRING },
    encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED,
    encryptionKey: tableKey,
  });
  table.addGlobalSecondaryIndex({
    indexName: TABLE_SCHEMA.gsi1.indexName,
    partitionKey: { name: TABLE_SCHEMA.gsi1.partitionKey, type: dynamodb.AttributeType.STRING },
    sortKey: { name: TABLE_SCHEMA.gsi1.sortKey, type: dynamodb.AttributeType.STRING },
  });
  const deadLetterQueue = new sqs.Queue(stack, 'DeadLetterQueue', { fifo: true, encryption: sqs.QueueEncryption.SQS_MANAGED });
  const queue = new sqs.Queue(stack, 'Queue', { fifo: true, visibilityTimeout: Duration.minutes(10), encryptionMasterKey: queueKey, deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: 3 } });
  const pipeline = new AgentPipeline(stack, 'Pipeline', {
    environment: 'own',
    agentBackend: AgentBackend.scripted(),
    existingTable: table,
    existingTurnQueue: queue,
    adminPhoneNumbers: ['5511900000000'],
  });
  const logicalId = (construct: IConstruct) => stack.getLogicalId(construct.node.defaultChild as CfnElement);
  return {
    deployment: {
      variant: 'own-resources',
      stackName: stack.stackName,
      template: Template.fromStack(stack).toJSON() as SynthesizedDeployment['template'],
      roles: { webhook: logicalId(pipeline.webhookFunction.role!), orchestrator: logicalId(pipeline.orchestratorFunction.role!), operator: logicalId(pipeline.operatorFunction!.role!) },
      resources: { table: logicalId(table), turnQueue: logicalId(queue), deadLetterQueue: logicalId(deadLetterQueue), whatsAppSecret: logicalId(pipeline.whatsAppSecret!) },
    },
    keys: { table: logicalId(tableKey), turnQueue: logicalId(queueKey) },
  };
}

let deployment: DeploymentPermissions;
let keyArns: { table: string; turnQueue: string };

beforeAll(() => {
  const synthesized = synthesizeOwnResources();
  deployment = deploymentPermissions(synthesized.deployment);
  keyArns = { table: deployment.table.keyArn!, turnQueue: deployment.queues.turn.keyArn! };
}, 60_000);

/** The deployment with every statement of `principal`'s role on `keyArn` taken out. */
function withoutKey(principal: PipelinePrincipal, keyArn: string): DeploymentPermissions {
  const role = deployment.roles.get(principal)!;
  const policies = role.policies.map(({ name, policy }) => ({ name, policy: { ...policy, Statement: policy.Statement.filter((statement) => ![statement.Resource].flat().includes(keyArn)) } }));
  return { ...deployment, roles: new Map([...deployment.roles, [principal, { ...role, policies }]]) };
}

const S_KEY = (pk: string) => ({ PK: { S: pk }, SK: { S: 'x' } });

const REQUESTS: readonly { principal: PipelinePrincipal; service: 'dynamodb' | 'sqs'; operation: string; body: Record<string, unknown>; key?: 'table' | 'turnQueue' }[] = [
  { principal: 'webhook', service: 'dynamodb', operation: 'TransactWriteItems', body: { TransactItems: [{ Put: { Item: S_KEY('DEBOUNCE#5511') } }] }, key: 'table' },
  { principal: 'webhook', service: 'sqs', operation: 'SendMessage', body: { QueueUrl: TURN_QUEUE_URL }, key: 'turnQueue' },
  { principal: 'orchestrator', service: 'sqs', operation: 'ReceiveMessage', body: { QueueUrl: TURN_QUEUE_URL }, key: 'turnQueue' },
  { principal: 'orchestrator', service: 'dynamodb', operation: 'GetItem', body: { Key: S_KEY('SESSION#5511') }, key: 'table' },
  // The redrive: the dead-letter queue has no customer managed key, the turn queue it sends back to has one.
  { principal: 'operator', service: 'sqs', operation: 'ReceiveMessage', body: { QueueUrl: DEAD_LETTER_QUEUE_URL } },
  { principal: 'operator', service: 'sqs', operation: 'SendMessage', body: { QueueUrl: TURN_QUEUE_URL }, key: 'turnQueue' },
];

describe.each(REQUESTS)('$principal $service $operation on the consumer’s resources', ({ principal, service, operation, body, key }) => {
  const identity = { principal, variant };

  test('is allowed, with the resource’s own key', async () => {
    expect(await new PermissionEvaluator(async () => deployment).check({ identity, service, operation, body })).toBeUndefined();
  });

  if (key !== undefined) {
    test('is refused once the grant on that key is gone', async () => {
      const refusal = await new PermissionEvaluator(async () => withoutKey(principal, keyArns[key])).check({ identity, service, operation, body });
      expect(refusal).toMatch(new RegExp(`not authorized to perform: kms:\\w+ on resource: ${keyArns[key].replace(/[/]/g, '\\/')}`));
    });
  }
});

test('no role is granted a key the resources do not use', () => {
  const keyResources = [...deployment.roles.values()].flatMap((role) => role.policies.flatMap(({ policy }) => policy.Statement.filter((statement) => [statement.Action].flat().some((action) => String(action).startsWith('kms:'))).flatMap((statement) => [statement.Resource].flat())));
  expect(new Set(keyResources)).toEqual(new Set([keyArns.table, keyArns.turnQueue]));
});
