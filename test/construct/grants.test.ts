// What the pipeline's roles may do, asserted as properties of the synthesized policies rather than
// as lists of actions: every table statement names the partitions it reaches, every use of the
// customer managed key goes through a service, sign-ins are written only where they are issued, and
// the CRM worker — the one function that parses a third party's answers — reaches nothing but its rows.
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { AgentBackend, AgentPipeline, type AgentPipelineProps, CrmTarget, KeyLayout, WhatsAppChannel } from '../../lib';
import { GSI1_PARTITIONS, TABLE_PARTITIONS } from '../../lib/contract';
import { ROLE_TABLE_ACCESS, TABLE_WRITE_ACTIONS } from '../../lib/private/permissions';
import { type NormalizedStatement, roleStatements, type SynthesizedPipeline } from '../support/synthesized-pipeline';

const ADMIN = '5511912345678';
const EUM_PHONE_NUMBERS = [{ id: 'phone-number-id-976c72a700aac43eaf573ae050example', metaPhoneNumberId: '106540352242922' }];

interface GrantedPipeline extends SynthesizedPipeline {
  readonly key: kms.Key;
  /** Every role of the pipeline and of the package's commands, by the name the tests use. */
  readonly roles: Record<string, iam.IRole>;
}

/** A pipeline with everything on (operator plane, CRM sync, the pipeline budget, a customer managed key), and roles granted the redrive and the privacy commands. */
function grantedPipeline(overrides: Partial<AgentPipelineProps> = {}): GrantedPipeline {
  const app = new App();
  const stack = new Stack(app, 'Granted');
  const key = new kms.Key(stack, 'DataKey', { enableKeyRotation: true });
  const pipeline = new AgentPipeline(stack, 'Pipeline', {
    environment: 'granted',
    agentBackend: AgentBackend.scripted(),
    adminPhoneNumbers: [ADMIN],
    encryptionKey: key,
    crmSync: CrmTarget.fromFunction(lambda.Function.fromFunctionName(stack, 'Crm', 'crm-writer')),
    pipelineBudget: { agentTokensPerDay: 5_000_000 },
    ...overrides,
  });
  const redrive = new iam.Role(stack, 'OnCall', { assumedBy: new iam.AccountRootPrincipal() });
  const privacy = new iam.Role(stack, 'PrivacyOfficer', { assumedBy: new iam.AccountRootPrincipal() });
  pipeline.grantRedrive(redrive);
  pipeline.grantCustomerDataRights(privacy);
  const roles: Record<string, iam.IRole | undefined> = {
    inbound: pipeline.webhookFunction.role,
    orchestrator: pipeline.orchestratorFunction.role,
    operator: pipeline.operatorFunction?.role,
    sweeper: pipeline.handoffSweeperFunction?.role,
    crmWorker: pipeline.crmSyncFunction?.role,
    evaluator: pipeline.evaluatorFunction?.role,
    redrive,
    privacy,
  };
  const present = Object.fromEntries(Object.entries(roles).filter((entry): entry is [string, iam.IRole] => entry[1] !== undefined));
  return { app, stack, pipeline, key, roles: present, template: Template.fromStack(stack) };
}

const variants: [string, Partial<AgentPipelineProps>][] = [
  ['the Cloud API', {}],
  ['End User Messaging', { channel: WhatsAppChannel.endUserMessaging({ phoneNumbers: EUM_PHONE_NUMBERS }) }],
  ['the migrating key layout', { keyLayout: KeyLayout.MIGRATING }],
];

/** The partition-key patterns a statement is limited to; `undefined` when it is not limited. */
function leadingKeys(entry: NormalizedStatement): string[] | undefined {
  return (entry.condition as { 'ForAllValues:StringLike'?: { 'dynamodb:LeadingKeys'?: string[] } } | undefined)?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
}

/** Whether an IAM `StringLike` pattern admits `value`. */
function admits(pattern: string, value: string): boolean {
  return new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`).test(value);
}

/** The table statements of a role (on the table ARN, not on its index). */
function tableStatements(synth: GrantedPipeline, role: iam.IRole): NormalizedStatement[] {
  const tableArn = JSON.stringify(synth.stack.resolve(synth.pipeline.table.tableArn));
  return roleStatements(synth, role).filter((entry) => entry.resources.length === 1 && JSON.stringify(entry.resources[0]) === tableArn);
}

/** Which roles may run `actions` on an item whose partition key is `partition`. */
function rolesReaching(synth: GrantedPipeline, actions: readonly string[], partition: string): string[] {
  return Object.entries(synth.roles)
    .filter(([, role]) =>
      tableStatements(synth, role).some((entry) => entry.actions.some((action) => actions.includes(action)) && (leadingKeys(entry) ?? ['*']).some((pattern) => admits(pattern, partition))),
    )
    .map(([name]) => name)
    .sort();
}

const SIGN_IN = TABLE_PARTITIONS.constants.operatorAuth;
const CREATES_OR_CHANGES = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:BatchWriteItem'];

describe.each(variants)('the roles of a pipeline with everything on (%s)', (_name, overrides) => {
  let synth: GrantedPipeline;
  beforeAll(() => {
    synth = grantedPipeline(overrides);
  });

  test('every statement on the table or its index is limited to partitions (dynamodb:LeadingKeys), reads included', () => {
    const tableArn = JSON.stringify(synth.stack.resolve(synth.pipeline.table.tableArn)).slice(0, -1);
    for (const [name, role] of Object.entries(synth.roles)) {
      const onTable = roleStatements(synth, role).filter((entry) => entry.resources.some((resource) => JSON.stringify(resource).startsWith(tableArn) || JSON.stringify(resource).includes('/index/')));
      expect({ name, statements: onTable.length > 0 }).toEqual({ name, statements: true });
      for (const entry of onTable) {
        expect({ name, actions: entry.actions, leadingKeys: leadingKeys(entry) !== undefined }).toEqual({ name, actions: entry.actions, leadingKeys: true });
        expect(entry.actions.every((action) => action.startsWith('dynamodb:') && !action.includes('*') && action !== 'dynamodb:Scan')).toBe(true);
      }
    }
  });

  test('no role has an unconditioned write anywhere: no dynamodb statement without a partition condition', () => {
    const statements = Object.values(synth.template.findResources('AWS::IAM::Policy')).flatMap((policy) => policy.Properties.PolicyDocument.Statement as Record<string, unknown>[]);
    const writes = statements.filter((entry) => [entry.Action].flat().some((action) => TABLE_WRITE_ACTIONS.includes(action as never)));
    expect(writes.length).toBeGreaterThan(0);
    expect(writes.filter((entry) => JSON.stringify(entry.Condition ?? {}).includes('dynamodb:LeadingKeys') === false)).toEqual([]);
  });

  test('OPERATOR#AUTH is written only by the orchestrator (login grants) and the operator function (sessions); privacy only deletes there', () => {
    expect(rolesReaching(synth, CREATES_OR_CHANGES, SIGN_IN)).toEqual(['operator', 'orchestrator']);
    expect(rolesReaching(synth, ['dynamodb:DeleteItem'], SIGN_IN)).toEqual(['operator', 'privacy']);
    expect(rolesReaching(synth, ['dynamodb:GetItem', 'dynamodb:Query'], SIGN_IN)).toEqual(['operator']);
  });

  test('the CRM worker writes only CRM_SYNC# rows, and reads nothing else but the backfill marker while the key layout migrates', () => {
    const worker = synth.roles.crmWorker;
    const crmRows = `${TABLE_PARTITIONS.prefixes.crmSync}*`;
    for (const entry of roleStatements(synth, worker).filter((statement) => statement.actions.some((action) => action.startsWith('dynamodb:')))) {
      const writes = entry.actions.some((action) => TABLE_WRITE_ACTIONS.includes(action as never));
      expect(leadingKeys(entry)!.filter((pattern) => pattern !== crmRows && (writes || pattern !== TABLE_PARTITIONS.constants.keyLayoutMigration))).toEqual([]);
    }
    for (const partition of [...Object.values(TABLE_PARTITIONS.constants), ...Object.values(TABLE_PARTITIONS.prefixes).filter((prefix) => prefix !== TABLE_PARTITIONS.prefixes.crmSync).map((prefix) => `${prefix}x`)]) {
      expect({ partition, writers: rolesReaching(synth, CREATES_OR_CHANGES, partition).includes('crmWorker') }).toEqual({ partition, writers: false });
    }
  });

  test('a session of the console can be forged by no function but the two that issue sign-ins (an item under OPERATOR#AUTH)', () => {
    for (const name of ['inbound', 'sweeper', 'crmWorker', 'redrive', 'privacy']) {
      expect({ name, canForge: rolesReaching(synth, CREATES_OR_CHANGES, SIGN_IN).includes(name) }).toEqual({ name, canForge: false });
    }
  });

  test('BatchWriteItem, which writes as well as deletes, belongs to no role: the erasure deletes item by item', () => {
    for (const [name, role] of Object.entries(synth.roles)) {
      const batches = roleStatements(synth, role).some((entry) => entry.actions.includes('dynamodb:BatchWriteItem'));
      expect({ name, batches }).toEqual({ name, batches: false });
    }
  });

  test('every grant on the customer managed key goes through the service that uses it (kms:ViaService)', () => {
    const keyArn = JSON.stringify(synth.stack.resolve(synth.key.keyArn));
    const keyStatements = Object.values(synth.template.findResources('AWS::IAM::Policy'))
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Record<string, unknown>[])
      .filter((entry) => JSON.stringify(entry.Resource) === keyArn || [entry.Action].flat().some((action) => String(action).startsWith('kms:')));
    // Every role uses the key for the table at least.
    expect(keyStatements.length).toBeGreaterThanOrEqual(Object.keys(synth.roles).length);
    for (const entry of keyStatements) {
      expect({ actions: entry.Action, viaService: (entry.Condition as Record<string, Record<string, unknown>> | undefined)?.StringEquals?.['kms:ViaService'] !== undefined }).toEqual({
        actions: entry.Action,
        viaService: true,
      });
    }
    // And in the key policy: statements for this account's principals name the service too; service principals their source.
    const keyPolicy = Object.values(synth.template.findResources('AWS::KMS::Key'))[0].Properties.KeyPolicy.Statement as Record<string, unknown>[];
    for (const entry of keyPolicy.filter((statement) => (statement.Principal as { Service?: unknown }).Service !== undefined)) {
      expect(entry.Condition).toBeDefined();
    }
  });

  test('the orchestrator consumes the turn queue with the actions Lambda’s poller calls, and decrypts only through SQS', () => {
    const queueArn = synth.stack.resolve(synth.pipeline.queue.queueArn);
    const onQueue = roleStatements(synth, synth.roles.orchestrator).filter((entry) => JSON.stringify(entry.resources) === JSON.stringify([queueArn]));
    expect(onQueue.flatMap((entry) => entry.actions).sort()).toEqual(['sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage']);
  });

  test('the partitions each role writes in the template are the ones the permissions table gives it', () => {
    const written = (name: string) =>
      new Set(tableStatements(synth, synth.roles[name]).filter((entry) => entry.actions.some((action) => TABLE_WRITE_ACTIONS.includes(action as never))).flatMap((entry) => leadingKeys(entry) ?? []));
    const table = (...roles: (keyof typeof ROLE_TABLE_ACCESS)[]) =>
      new Set(
        roles.flatMap((role) =>
          Object.entries(ROLE_TABLE_ACCESS[role].table)
            .filter(([, actions]) => actions!.some((action) => TABLE_WRITE_ACTIONS.includes((typeof action === 'string' ? action : action.grant) as never)))
            .map(([partition]) => {
              // `evaluation session` and the like: that customer partition of the evaluation customers only.
              const [evaluated, ofEvaluation] = partition.startsWith('evaluation ') ? [partition.slice('evaluation '.length), 'eval-'] : [partition, ''];
              return evaluated in TABLE_PARTITIONS.prefixes ? `${TABLE_PARTITIONS.prefixes[evaluated as keyof typeof TABLE_PARTITIONS.prefixes]}${ofEvaluation}*` : TABLE_PARTITIONS.constants[evaluated as keyof typeof TABLE_PARTITIONS.constants];
            }),
        ),
      );
    expect(written('inbound')).toEqual(table('inbound'));
    expect(written('orchestrator')).toEqual(table('turns'));
    expect(written('operator')).toEqual(table('operatorPlane', 'customerData'));
    expect(written('sweeper')).toEqual(table('sweeper'));
    expect(written('crmWorker')).toEqual(table('crmWorker'));
    expect(written('redrive')).toEqual(table('redrive'));
    expect(written('privacy')).toEqual(table('customerData'));
    const { prefixes } = TABLE_PARTITIONS;
    // Its runs' customers, its runs and the budget's line; what the turn path records as it plays (the report items it deletes after), and the construct's prompt it adopts.
    const evaluation = [prefixes.session, prefixes.inbound, prefixes.customer].map((prefix) => `${prefix}eval-*`);
    const { inboxVersion, adminConfig } = TABLE_PARTITIONS.constants;
    const played = [`${prefixes.evaluationRun}*`, `${prefixes.pipelineBudget}*`, `${prefixes.agentActivity}*`, inboxVersion, `${prefixes.handoffReport}*`, `${prefixes.adminResource}*`, adminConfig];
    expect(written('evaluator')).toEqual(new Set([...evaluation, ...played]));
  });

  test("the evaluator writes its runs' customers, never a customer's conversation, receipts or consents", () => {
    for (const prefix of [TABLE_PARTITIONS.prefixes.session, TABLE_PARTITIONS.prefixes.inbound, TABLE_PARTITIONS.prefixes.customer]) {
      expect(rolesReaching(synth, CREATES_OR_CHANGES, `${prefix}eval-run1-0`)).toContain('evaluator');
      expect(rolesReaching(synth, [...CREATES_OR_CHANGES, 'dynamodb:GetItem', 'dynamodb:Query'], `${prefix}5511912345678`)).not.toContain('evaluator');
    }
  });
});

describe('what a partition needs only with a feature is granted only with it', () => {
  test('without the operator plane the orchestrator cannot write sign-ins; without crmSync no function writes CRM rows', () => {
    const synth = grantedPipeline({ adminPhoneNumbers: undefined, crmSync: undefined });
    expect(rolesReaching(synth, CREATES_OR_CHANGES, SIGN_IN)).toEqual([]);
    // The privacy role still deletes what an earlier crmSync left.
    expect(rolesReaching(synth, ['dynamodb:PutItem', 'dynamodb:UpdateItem'], `${TABLE_PARTITIONS.prefixes.crmSync}s-1`)).toEqual([]);
  });

  test('the backfill marker is read only while the key layout migrates, and written by no function', () => {
    const marker = TABLE_PARTITIONS.constants.keyLayoutMigration;
    expect(rolesReaching(grantedPipeline(), ['dynamodb:GetItem'], marker)).toEqual([]);
    expect(rolesReaching(grantedPipeline({ keyLayout: KeyLayout.MIGRATING }), ['dynamodb:GetItem'], marker)).toEqual(['crmWorker', 'operator', 'sweeper']);
    expect(rolesReaching(grantedPipeline({ keyLayout: KeyLayout.MIGRATING }), CREATES_OR_CHANGES, marker)).toEqual([]);
  });

  test('the index partitions queried are the lists each function reads', () => {
    const synth = grantedPipeline();
    const indexArn = JSON.stringify(synth.stack.resolve(`${synth.pipeline.table.tableArn}/index/GSI1`));
    const queried = (name: string) => roleStatements(synth, synth.roles[name]).filter((entry) => JSON.stringify(entry.resources) === `[${indexArn}]`).flatMap((entry) => leadingKeys(entry) ?? []);
    const { prefixes, constants } = GSI1_PARTITIONS;
    expect(queried('sweeper')).toEqual([`${prefixes.sessionState}*`]);
    expect(queried('crmWorker')).toEqual([`${prefixes.crmSyncStatus}*`]);
    expect(queried('operator').sort()).toEqual([`${prefixes.sessionState}*`, `${prefixes.crmSyncStatus}*`, `${prefixes.llmDay}*`, `${prefixes.feeDay}*`, constants.consentTimeline].sort());
    for (const name of ['inbound', 'orchestrator', 'redrive', 'privacy']) expect(queried(name)).toEqual([]);
  });
});

describe('the End User Messaging service on a customer managed key', () => {
  test('may use the key only for this account’s End User Messaging resources (aws:SourceAccount and aws:SourceArn)', () => {
    const synth = grantedPipeline({ channel: WhatsAppChannel.endUserMessaging({ phoneNumbers: EUM_PHONE_NUMBERS }) });
    const keyPolicy = Object.values(synth.template.findResources('AWS::KMS::Key'))[0].Properties.KeyPolicy.Statement as Record<string, unknown>[];
    const service = keyPolicy.filter((entry) => JSON.stringify(entry.Principal) === JSON.stringify({ Service: 'social-messaging.amazonaws.com' }));
    expect(service).toEqual([
      expect.objectContaining({
        Action: ['kms:GenerateDataKey*', 'kms:Decrypt'],
        Condition: {
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
          ArnLike: { 'aws:SourceArn': { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':social-messaging:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':*']] } },
        },
      }),
    ]);
  });
});

describe('the orchestrator’s event source mapping', () => {
  test('keeps its logical id and settings: batch 1, partial batch failures, the concurrency cap', () => {
    const { template } = grantedPipeline();
    const mappings = template.findResources('AWS::Lambda::EventSourceMapping');
    expect(Object.keys(mappings)).toEqual([expect.stringMatching(/^PipelineOrchestratorFunctionSqsEventSourceGrantedPipelineQueue[0-9A-F]{8}[0-9A-F]{8}$/)]);
    expect(Object.values(mappings)[0].Properties).toEqual(
      expect.objectContaining({ BatchSize: 1, FunctionResponseTypes: ['ReportBatchItemFailures'], ScalingConfig: { MaximumConcurrency: 20 } }),
    );
  });
});

describe('grantReadData and grantReadWriteData', () => {
  test('give a role of the consumer the key through DynamoDB only, as every grant of the pipeline', () => {
    const app = new App();
    const stack = new Stack(app, 'Helpers');
    const key = new kms.Key(stack, 'DataKey', { enableKeyRotation: true });
    const pipeline = new AgentPipeline(stack, 'Pipeline', { environment: 'helpers', agentBackend: AgentBackend.scripted(), encryptionKey: key });
    const reader = new iam.Role(stack, 'Reader', { assumedBy: new iam.AccountRootPrincipal() });
    const writer = new iam.Role(stack, 'Writer', { assumedBy: new iam.AccountRootPrincipal() });
    pipeline.grantReadData(reader);
    pipeline.grantReadWriteData(writer);
    const synth = { app, stack, pipeline, template: Template.fromStack(stack) };
    const viaDynamoDb = { StringEquals: { 'kms:ViaService': { 'Fn::Join': ['', ['dynamodb.', { Ref: 'AWS::Region' }, '.amazonaws.com']] } } };
    for (const [role, actions] of [
      [reader, ['kms:Decrypt', 'kms:DescribeKey']],
      [writer, ['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey']],
    ] as const) {
      const keyStatements = roleStatements(synth, role).filter((entry) => entry.actions.some((action) => action.startsWith('kms:')));
      expect(keyStatements).toEqual([{ actions: [...actions], resources: [stack.resolve(key.keyArn)], condition: viaDynamoDb }]);
    }
  });
});
