// The parts of docs/PERMISSIONS.md and docs/COMPLIANCE.md that are generated from synthesized
// templates, so they say exactly what the template grants and what cdk-nag reports: the roles'
// grants, the findings per pack, and every acknowledgement with its reason. `npm run docs:generated`
// writes them; test/construct/security-docs.test.ts fails when they are stale.
import { Buffer } from 'buffer';
import { App, CfnResource, type Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { CrmTarget, KeyLayout, WhatsAppChannel } from '../../lib';
import { NAG_PACKS, nagV3Findings } from './nag-packs';
import { fullPipeline, referenceStacks } from './reference-stacks';

/** The markers around each generated part of a Markdown file. */
export function between(name: string, body: string): string {
  return `<!-- generated: ${name} (npm run docs:generated) -->\n${body.trimEnd()}\n<!-- end: ${name} -->`;
}

/** The generated part `name` of `markdown`, markers included; undefined when it has none. */
export function generatedPart(markdown: string, name: string): string | undefined {
  const start = markdown.indexOf(`<!-- generated: ${name} `);
  const endMarker = `<!-- end: ${name} -->`;
  const end = markdown.indexOf(endMarker);
  return start < 0 || end < 0 ? undefined : markdown.slice(start, end + endMarker.length);
}

// ---- The roles' grants -----------------------------------------------------------------------------

interface Statement {
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: Record<string, Record<string, unknown>>;
}

/**
 * Every role of a pipeline with everything on (operator plane, CRM sync, a customer managed key, the
 * migrating key layout) on each channel, and the roles granted the two commands: one row per
 * statement, resources and conditions named as the README's readers know them.
 */
export function roleGrantsTable(): string {
  const app = new App();
  const cloud = fullPipeline(app, 'Grants-CloudApi', 'grants-cloud-api', {
    phoneNumberIds: ['106540352242922'],
    crmSync: (stack) => CrmTarget.webhook({ url: 'https://crm.example.com/hooks/whatsapp', secret: secretsmanager.Secret.fromSecretCompleteArn(stack, 'CrmSecret', 'arn:aws:secretsmanager:us-east-1:123456789012:secret:crm-signing-AbCdEf') }),
    keyLayout: KeyLayout.MIGRATING,
  });
  const eum = fullPipeline(app, 'Grants-EndUserMessaging', 'grants-eum', {
    channel: WhatsAppChannel.endUserMessaging({ phoneNumbers: [{ id: 'phone-number-id-976c72a700aac43eaf573ae050example', metaPhoneNumberId: '106540352242922' }] }),
    crmSync: (stack) => CrmTarget.fromFunction(lambda.Function.fromFunctionName(stack, 'CrmWriter', 'crm-writer')),
    keyLayout: KeyLayout.MIGRATING,
  });
  const redrive = new iam.Role(cloud.stack, 'OnCall', { assumedBy: new iam.AccountRootPrincipal() });
  const privacy = new iam.Role(cloud.stack, 'PrivacyOfficer', { assumedBy: new iam.AccountRootPrincipal() });
  cloud.pipeline.grantRedrive(redrive);
  cloud.pipeline.grantCustomerDataRights(privacy);

  const roles: [string, Stack, iam.IRole][] = [
    ['Webhook (Cloud API)', cloud.stack, cloud.pipeline.webhookFunction.role!],
    ['End User Messaging inbound', eum.stack, eum.pipeline.webhookFunction.role!],
    ['Orchestrator', cloud.stack, cloud.pipeline.orchestratorFunction.role!],
    ['Orchestrator (End User Messaging)', eum.stack, eum.pipeline.orchestratorFunction.role!],
    ['Operator function', cloud.stack, cloud.pipeline.operatorFunction!.role!],
    ['Handoff sweeper', cloud.stack, cloud.pipeline.handoffSweeperFunction!.role!],
    ['Evaluator', cloud.stack, cloud.pipeline.evaluatorFunction!.role!],
    ['Idle sweeper', cloud.stack, cloud.pipeline.idleSweeperFunction.role!],
    ['CRM sync worker (webhook target)', cloud.stack, cloud.pipeline.crmSyncFunction!.role!],
    ['CRM sync worker (function target)', eum.stack, eum.pipeline.crmSyncFunction!.role!],
    ['`grantRedrive`', cloud.stack, redrive],
    ['`grantCustomerDataRights`', cloud.stack, privacy],
  ];
  const rows = roles.flatMap(([name, stack, role]) => {
    const pipeline = stack === cloud.stack ? cloud.pipeline : eum.pipeline;
    const names = resourceNames(stack, pipeline, role);
    return statementsOf(stack, role)
      .filter((statement) => !(name.startsWith('Orchestrator (') && !JSON.stringify(statement.Action).includes('social-messaging')))
      .map((statement) => `| ${name} | ${[statement.Action].flat().map((action) => `\`${action}\``).join(', ')} | ${resourcesOf(statement, names)} | ${conditionOf(statement, names)} |`);
  });
  return ['| Role | Actions | On | Condition |', '|---|---|---|---|', ...rows].join('\n');
}

function statementsOf(stack: Stack, role: iam.IRole): Statement[] {
  const roleRef = JSON.stringify(stack.resolve(role.roleName));
  const policies = Object.values(stack.node.findAll().filter((construct): construct is iam.CfnPolicy => construct instanceof iam.CfnPolicy));
  return policies
    .filter((policy) => JSON.stringify(stack.resolve(policy.roles)).includes(roleRef))
    .flatMap((policy) => (stack.resolve(policy.policyDocument) as { Statement: Statement[] }).Statement);
}

/** Resolved token → the name a reader knows the resource by, written as the ARN's resource part where it has one. */
function resourceNames(stack: Stack, pipeline: ReturnType<typeof fullPipeline>['pipeline'], role: iam.IRole): Map<string, string> {
  const names = new Map<string, string>();
  const name = (value: unknown, label: string) => names.set(JSON.stringify(stack.resolve(value)), label);
  name(pipeline.table.tableArn, 'table/<TableName>');
  name(`${pipeline.table.tableArn}/index/GSI1`, 'table/<TableName>/index/GSI1');
  name(pipeline.queue.queueArn, '<TurnQueue>');
  name(pipeline.deadLetterQueue.queueArn, '<DeadLetterQueue>');
  name(stack.stackId, 'stack/<StackName>/<id>');
  if (pipeline.mediaBucket) name(pipeline.mediaBucket.bucketArn, '<MediaBucket>');
  if (pipeline.whatsAppSecret) name(pipeline.whatsAppSecret.secretArn, 'secret:<WhatsAppSecret>');
  if (pipeline.inboundDeadLetterQueue) name(pipeline.inboundDeadLetterQueue.queueArn, '<InboundDeadLetterQueue>');
  const evaluator = pipeline.evaluatorFunction as lambda.Function | undefined;
  for (const fn of [pipeline.webhookFunction, pipeline.orchestratorFunction, pipeline.operatorFunction, pipeline.handoffSweeperFunction, pipeline.idleSweeperFunction, pipeline.crmSyncFunction, evaluator]) {
    if (fn?.role === role) name(fn.logGroup.logGroupArn, 'its log group');
  }
  if (evaluator) name(evaluator.functionArn, '<EvaluatorFunction>');
  const key = stack.node.tryFindChild('DataKey') as Construct | undefined;
  if (key) name((key as unknown as { keyArn: string }).keyArn, 'key/<DataKey>');
  return names;
}

/**
 * A resolved value as a reader writes it: a known resource by its name, `Fn::Join` joined, a
 * pseudo parameter as `<Region>`, never CloudFormation's JSON.
 */
function readable(value: unknown, names: Map<string, string>): string {
  const known = names.get(JSON.stringify(value));
  if (known) return known;
  if (typeof value === 'string') return value;
  const intrinsic = value as Record<string, unknown>;
  if ('Fn::Join' in intrinsic) {
    const [delimiter, parts] = intrinsic['Fn::Join'] as [string, unknown[]];
    return parts.map((part) => readable(part, names)).join(delimiter);
  }
  if ('Ref' in intrinsic) return `<${String(intrinsic.Ref).replace(/^AWS::/, '')}>`;
  if ('Fn::GetAtt' in intrinsic) return `<${(intrinsic['Fn::GetAtt'] as string[]).join('.')}>`;
  throw new Error(`No readable form for ${JSON.stringify(value)}: name it in resourceNames.`);
}

function resourcesOf(statement: Statement, names: Map<string, string>): string {
  return [statement.Resource]
    .flat()
    .map((resource) => {
      const text = readable(resource, names);
      if (text.includes(':phone-number-id/')) return 'the linked numbers';
      if (text === 'its log group') return text;
      return `\`${text.replace(/^arn:<Partition>:[a-z-]+:(<Region>|[a-z0-9-]*):(<AccountId>|\d*):/, '')}\``;
    })
    .join(', ');
}

function conditionOf(statement: Statement, names: Map<string, string>): string {
  const condition = statement.Condition;
  if (condition === undefined) return '–';
  const leadingKeys = condition['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] as string[] | undefined;
  if (leadingKeys) return `partition keys ${leadingKeys.map((pattern) => `\`${pattern}\``).join(', ')}`;
  const viaService = condition.StringEquals?.['kms:ViaService'];
  if (viaService !== undefined) return `through ${readable(viaService, names).split('.')[0]} only (\`kms:ViaService\`)`;
  return Object.entries(condition)
    .flatMap(([operator, tests]) => Object.entries(tests).map(([key, expected]) => `\`${key}\` ${operator} ${[expected].flat().map((one) => `\`${readable(one, names)}\``).join(', ')}`))
    .join('; ');
}

// ---- cdk-nag ----------------------------------------------------------------------------------------

/** Findings per pack on the four stacks: what the rules raise, what the construct acknowledged, what is left. */
export function nagCountsTable(): string {
  const stackNames = Object.values(referenceStacks().stacks).map((stack) => stack.stackName);
  const rows = Object.entries(NAG_PACKS).map(([name, pack]) => {
    const raised = nagV3Findings(referenceStacks().app, pack, { ignoringAcknowledgements: true });
    const left = nagV3Findings(referenceStacks().app, pack);
    const perStack = stackNames.map((stackName) => raised.filter((finding) => finding.path.startsWith(`${stackName}/`)).length);
    return `| ${name} | ${raised.length} (${perStack.join(' / ')}) | ${raised.length - left.length} | ${left.length} |`;
  });
  return [`| Pack | Raised (${stackNames.join(' / ')}) | Acknowledged | Left |`, '|---|---|---|---|', ...rows].join('\n');
}

/** Every acknowledgement on the four stacks, by rule and reason: the packs that raise it, and how many findings it answers. */
export function acknowledgementsTable(): string {
  const byRule = new Map<string, { packs: Set<string>; findings: number }>();
  for (const pack of Object.values(NAG_PACKS)) {
    const { app } = referenceStacks();
    const resources = new Map(app.node.findAll().filter((construct): construct is CfnResource => construct instanceof CfnResource).map((resource) => [resource.node.path, resource]));
    for (const finding of nagV3Findings(app, pack, { ignoringAcknowledgements: true })) {
      const rule = finding.rule.slice(pack.prefix.length + 1);
      const key = `${rule}\0${reasonFor(resources.get(finding.path), finding.rule)}`;
      const entry = byRule.get(key) ?? { packs: new Set<string>(), findings: 0 };
      entry.packs.add(pack.prefix);
      entry.findings++;
      byRule.set(key, entry);
    }
  }
  const rows = [...byRule.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, { packs, findings }]) => {
      const [rule, reason] = key.split('\0');
      return `| \`${rule}\` | ${[...packs].sort().join(', ')} | ${findings} | ${reason.replace(/\|/g, '\\|')} |`;
    });
  return ['| Rule | Packs | Findings (all packs) | Why it is accepted |', '|---|---|---|---|', ...rows].join('\n');
}

/** The reason the resource's cdk-nag metadata gives for `ruleId` (`Pack-Rule` or `Pack-Rule[finding]`). */
function reasonFor(resource: CfnResource | undefined, ruleId: string): string {
  const suppressions = (resource?.getMetadata('cdk_nag')?.rules_to_suppress ?? []) as { id: string; reason: string; is_reason_encoded?: boolean; applies_to?: string[] }[];
  const suppression = suppressions.find((candidate) => `${candidate.id}${candidate.applies_to ? `[${candidate.applies_to[0]}]` : ''}` === ruleId || candidate.id === ruleId);
  if (suppression === undefined) return '(no reason found)';
  return suppression.is_reason_encoded ? Buffer.from(suppression.reason, 'base64').toString('utf8') : suppression.reason;
}
