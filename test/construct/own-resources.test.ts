// Bring-your-own table and queues, and the physical names of what the construct creates.
import { Duration, type Stack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { ResourceNames } from '../../lib';
import { RUNTIME_ENV, TABLE_SCHEMA } from '../../lib/contract';
import { viaServiceCondition } from '../../lib/private/key-permissions';
import { roleStatements, statement, synthPipeline, type SynthesizedPipeline, toldTo } from '../support/synthesized-pipeline';

/** A table with the pipeline's schema, as a consumer app defines it. */
function consumerTable(stack: Stack, props: Partial<dynamodb.TableProps> = {}, gsi1 = true): dynamodb.Table {
  const table = new dynamodb.Table(stack, 'ConsumerTable', {
    partitionKey: { name: TABLE_SCHEMA.partitionKey, type: dynamodb.AttributeType.STRING },
    sortKey: { name: TABLE_SCHEMA.sortKey, type: dynamodb.AttributeType.STRING },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    timeToLiveAttribute: TABLE_SCHEMA.timeToLiveAttribute,
    ...props,
  });
  if (gsi1) {
    table.addGlobalSecondaryIndex({
      indexName: TABLE_SCHEMA.gsi1.indexName,
      partitionKey: { name: TABLE_SCHEMA.gsi1.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: TABLE_SCHEMA.gsi1.sortKey, type: dynamodb.AttributeType.STRING },
    });
  }
  return table;
}

function environmentOf(synth: SynthesizedPipeline, fn: 'webhookFunction' | 'orchestratorFunction'): Record<string, unknown> {
  return toldTo(synth, synth.pipeline[fn]).environment;
}

const keyStatement = (synth: SynthesizedPipeline, key: kms.IKey, service: 'dynamodb' | 'sqs', actions: readonly string[]) => statement(synth, actions, [key.keyArn], viaServiceCondition(service));

describe('default physical names', () => {
  test('are generated: no name on the table or the queues, the deployment named in the Powertools service', () => {
    const synth = synthPipeline({ environment: 'prod' });
    synth.template.hasResourceProperties('AWS::DynamoDB::Table', { TableName: Match.absent() });
    synth.template.allResourcesProperties('AWS::SQS::Queue', { QueueName: Match.absent(), FifoQueue: true });
    expect(environmentOf(synth, 'webhookFunction')).toMatchObject({ [RUNTIME_ENV.serviceName]: 'agent-pipeline-prod', [RUNTIME_ENV.metricsNamespace]: 'agent-pipeline' });
  });

  test('ResourceNames.of names what it is given, and generates the rest', () => {
    const synth = synthPipeline({ resourceNames: ResourceNames.of({ tableName: 'team.whatsapp_prod', deadLetterQueueName: 'team-whatsapp-failed.fifo' }) });
    synth.template.hasResourceProperties('AWS::DynamoDB::Table', { TableName: 'team.whatsapp_prod' });
    synth.template.hasResourceProperties('AWS::SQS::Queue', { QueueName: 'team-whatsapp-failed.fifo' });
    synth.template.resourcePropertiesCountIs('AWS::SQS::Queue', { QueueName: Match.absent() }, 1);
  });

  test.each([
    [{ tableName: 'x' }, /resourceNames tableName 'x' is not a DynamoDB table name/],
    [{ turnQueueName: 'turns' }, /resourceNames turnQueueName 'turns' is not a FIFO queue name/],
  ])('ResourceNames.of refuses a name AWS would refuse', (names, message) => {
    expect(() => synthPipeline({ resourceNames: ResourceNames.of(names) })).toThrow(message);
  });
});

describe('existingTable', () => {
  test('the pipeline keeps its data there, creates no table, and grants the table’s own key (not encryptionKey) through DynamoDB', () => {
    let tableKey!: kms.Key;
    let dataKey!: kms.Key;
    let table!: dynamodb.Table;
    const synth = synthPipeline({}, (stack) => {
      tableKey = new kms.Key(stack, 'TableKey', { enableKeyRotation: true });
      dataKey = new kms.Key(stack, 'DataKey', { enableKeyRotation: true });
      table = consumerTable(stack, { encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED, encryptionKey: tableKey });
      return { existingTable: table, encryptionKey: dataKey };
    });
    synth.template.resourceCountIs('AWS::DynamoDB::Table', 1);
    expect(synth.pipeline.table).toBe(table);
    expect(environmentOf(synth, 'webhookFunction')[RUNTIME_ENV.tableName]).toEqual(synth.stack.resolve(table.tableName));
    const webhook = roleStatements(synth, synth.pipeline.webhookFunction.role!);
    expect(webhook).toContainEqual(keyStatement(synth, tableKey, 'dynamodb', ['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey'].sort()));
    expect(webhook).not.toContainEqual(keyStatement(synth, dataKey, 'dynamodb', ['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey'].sort()));
    // The queues the construct creates still use encryptionKey.
    expect(webhook).toContainEqual(keyStatement(synth, dataKey, 'sqs', ['kms:Decrypt', 'kms:GenerateDataKey']));
  });

  test('an imported table without a customer managed key gets no key grant, and its index is still queried by ARN', () => {
    const synth = synthPipeline({}, (stack) => ({ existingTable: dynamodb.Table.fromTableName(stack, 'Imported', 'team-whatsapp') }));
    synth.template.resourceCountIs('AWS::DynamoDB::Table', 0);
    const orchestrator = roleStatements(synth, synth.pipeline.orchestratorFunction.role!);
    expect(orchestrator.filter((s) => s.actions.some((action) => action.startsWith('kms:')))).toEqual([]);
    expect(JSON.stringify(roleStatements(synth, synth.pipeline.idleSweeperFunction.role!))).toContain(':table/team-whatsapp/index/GSI1');
  });

  test.each([
    ['other keys', (stack: Stack) => consumerTable(stack, { partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING } }), /existingTable has other keys/],
    ['a numeric sort key', (stack: Stack) => consumerTable(stack, { sortKey: { name: 'SK', type: dynamodb.AttributeType.NUMBER } }), /existingTable has other keys/],
    ['no GSI1', (stack: Stack) => consumerTable(stack, {}, false), /existingTable has no index 'GSI1'/],
  ])('a table of the app with %s is refused, saying what schema it needs', (_name, table, message) => {
    expect(() => synthPipeline({}, (stack) => ({ existingTable: table(stack) }))).toThrow(message);
  });

  test('an explicit table name beside it is refused', () => {
    expect(() => synthPipeline({ resourceNames: ResourceNames.of({ tableName: 'mine' }) }, (stack) => ({ existingTable: consumerTable(stack) }))).toThrow(/with existingTable leave tableName out/);
  });
});

describe('existingTurnQueue and the dead-letter queue', () => {
  test('a queue of the app brings its dead-letter queue and its redrive count, and each queue’s own key is granted', () => {
    let turnKey!: kms.Key;
    let queue!: sqs.Queue;
    let deadLetterQueue!: sqs.Queue;
    const synth = synthPipeline({}, (stack) => {
      turnKey = new kms.Key(stack, 'TurnKey', { enableKeyRotation: true });
      deadLetterQueue = new sqs.Queue(stack, 'ConsumerDlq', { fifo: true, encryption: sqs.QueueEncryption.SQS_MANAGED });
      queue = new sqs.Queue(stack, 'ConsumerQueue', { fifo: true, visibilityTimeout: Duration.minutes(10), encryptionMasterKey: turnKey, deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: 4 } });
      return { existingTurnQueue: queue, adminPhoneNumbers: ['5511912345678'] };
    });
    synth.template.resourceCountIs('AWS::SQS::Queue', 2);
    expect(synth.pipeline.queue).toBe(queue);
    expect(synth.pipeline.deadLetterQueue).toBe(deadLetterQueue);
    expect(toldTo(synth, synth.pipeline.orchestratorFunction).document.maxReceiveCount).toBe(4);
    expect(roleStatements(synth, synth.pipeline.orchestratorFunction.role!)).toContainEqual(keyStatement(synth, turnKey, 'sqs', ['kms:Decrypt']));
    // The redrive reads the dead-letter queue (no key) and sends to the turn queue (its key).
    expect(roleStatements(synth, synth.pipeline.operatorFunction!.role!)).toContainEqual(keyStatement(synth, turnKey, 'sqs', ['kms:Decrypt', 'kms:GenerateDataKey']));
  });

  test('an imported queue needs its dead-letter queue passed, and both must be FIFO', () => {
    const imported = (stack: Stack, name: string) => sqs.Queue.fromQueueArn(stack, name, `arn:aws:sqs:us-east-1:123456789012:${name}`);
    expect(() => synthPipeline({}, (stack) => ({ existingTurnQueue: imported(stack, 'turns.fifo') }))).toThrow(/pass the dead-letter queue it names as existingDeadLetterQueue/);
    expect(() => synthPipeline({}, (stack) => ({ existingTurnQueue: imported(stack, 'turns') }))).toThrow(/existingTurnQueue must be a FIFO queue/);
    expect(() => synthPipeline({}, (stack) => ({ existingTurnQueue: imported(stack, 'turns.fifo'), existingDeadLetterQueue: imported(stack, 'failed') }))).toThrow(/existingDeadLetterQueue must be a FIFO queue/);
    const synth = synthPipeline({ maxReceiveCount: 5 }, (stack) => ({ existingTurnQueue: imported(stack, 'turns.fifo'), existingDeadLetterQueue: imported(stack, 'failed.fifo') }));
    synth.template.resourceCountIs('AWS::SQS::Queue', 0);
    expect(toldTo(synth, synth.pipeline.orchestratorFunction).document.maxReceiveCount).toBe(5);
  });

  test.each([
    ['no dead-letter queue', (stack: Stack) => ({ existingTurnQueue: new sqs.Queue(stack, 'Q', { fifo: true, visibilityTimeout: Duration.minutes(10) }) }), /existingTurnQueue has no deadLetterQueue/],
    [
      'a visibility timeout below the orchestrator’s',
      (stack: Stack) => ({ existingTurnQueue: new sqs.Queue(stack, 'Q', { fifo: true, deadLetterQueue: { queue: new sqs.Queue(stack, 'D', { fifo: true }), maxReceiveCount: 3 } }) }),
      /existingTurnQueue's visibility timeout \(30 s\) must be greater than orchestratorTimeout \(90 s\)/,
    ],
    [
      'a redrive count other than maxReceiveCount',
      (stack: Stack) => ({ maxReceiveCount: 3, existingTurnQueue: new sqs.Queue(stack, 'Q', { fifo: true, visibilityTimeout: Duration.minutes(10), deadLetterQueue: { queue: new sqs.Queue(stack, 'D', { fifo: true }), maxReceiveCount: 5 } }) }),
      /maxReceiveCount \(3\) differs from existingTurnQueue's redrive policy \(5\)/,
    ],
    ['visibilityTimeout beside it', (stack: Stack) => ({ visibilityTimeout: Duration.minutes(5), existingTurnQueue: new sqs.Queue(stack, 'Q', { fifo: true }) }), /visibilityTimeout configures a resource the construct creates; with existingTurnQueue/],
  ])('a queue with %s is refused', (_name, props, message) => {
    expect(() => synthPipeline({}, props)).toThrow(message);
  });

  test('existingDeadLetterQueue alone: the turn queue the construct creates redrives to it', () => {
    let deadLetterQueue!: sqs.Queue;
    const synth = synthPipeline({}, (stack) => {
      deadLetterQueue = new sqs.Queue(stack, 'ConsumerDlq', { fifo: true });
      return { existingDeadLetterQueue: deadLetterQueue };
    });
    synth.template.resourceCountIs('AWS::SQS::Queue', 2);
    synth.template.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: { deadLetterTargetArn: synth.stack.resolve(deadLetterQueue.queueArn), maxReceiveCount: 3 },
    });
  });

  test('deadLetterQueueProps shape the dead-letter queue the construct creates, which stays FIFO', () => {
    const synth = synthPipeline({ deadLetterQueueProps: { queueName: 'team-failed-turns.fifo', retentionPeriod: Duration.days(10) } });
    synth.template.hasResourceProperties('AWS::SQS::Queue', { QueueName: 'team-failed-turns.fifo', FifoQueue: true, MessageRetentionPeriod: 864000 });
    expect(() => synthPipeline({ deadLetterQueueProps: { fifo: false } })).toThrow(/deadLetterQueueProps.fifo is false/);
    expect(() => synthPipeline({ deadLetterQueueProps: {}, deadLetterQueueRetentionPeriod: Duration.days(10) })).not.toThrow();
    expect(() => synthPipeline({ deadLetterQueueProps: { retentionPeriod: Duration.days(10) }, deadLetterQueueRetentionPeriod: Duration.days(10) })).toThrow(/keep one/);
  });
});
