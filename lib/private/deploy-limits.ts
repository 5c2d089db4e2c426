import { CfnResource, Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { RUNTIME_ENV } from '../contract';
import { NAME_LIMITS } from './name-limits';
import { type RenderedResource, type RenderedTemplate, WorstCaseValues } from './worst-case-values';

/**
 * Refuses at synth a pipeline that CloudFormation or a service would refuse at deploy: each
 * function's environment, each role's policies, the names and descriptions the pipeline gives its
 * resources, and its stack's template, measured on the synthesized template as AWS measures the
 * deployed values, with every token at the longest value it can resolve to (worst-case-values.ts).
 * Each problem names the props that make the value. docs/DEPLOY-LIMITS.md lists what is checked and
 * why. aws-cdk-lib refuses a stack of more than 500 resources itself. Internal.
 */

/** What AWS and CloudFormation enforce at deploy time, in the units they measure. */
export const DEPLOY_LIMITS = {
  /** Lambda: the JSON of a function's environment variables, in bytes. */
  environmentBytes: 4096,
  /** IAM: a role's inline policies together, characters other than whitespace. */
  roleInlinePolicyCharacters: 10_240,
  /** IAM: one managed policy, characters other than whitespace. */
  managedPolicyCharacters: 6144,
  /** IAM: managed policies attached to a role (the default quota; 20 after an increase). */
  managedPoliciesPerRole: 10,
  /** IAM: a role's trust policy, characters other than whitespace. */
  trustPolicyCharacters: 2048,
  /** CloudFormation: a template body read from S3 (CDK's own warning uses the same figure). */
  templateBytes: 1_000_000,
  outputs: 200,
  parameters: 200,
  mappings: 200,
} as const;

/** The props whose values fill an environment variable, for the message (the variables the construct fills from tokens need none). */
const PROPS_OF_VARIABLE: { readonly [variable: string]: string } = {
  [RUNTIME_ENV.bedrockModelId]: "agentBackend's modelId",
  [RUNTIME_ENV.agentStageVariables]: "agentBackend's stages (AgentBackend.stages(): their names, models, guardrails, functions and tools)",
  [RUNTIME_ENV.agentToolFunctions]: "agentBackend's tools (AgentTool.fromFunction(): their names and functions)",
  [RUNTIME_ENV.businessPhoneNumberIds]: 'phoneNumberIds',
  [RUNTIME_ENV.whatsAppApiBaseUrl]: 'whatsAppApiBaseUrl',
  [RUNTIME_ENV.crmWebhookUrl]: "crmSync's url (CrmTarget.webhook())",
};

/** The pipelines of each stack, in construction order: the first reports the stack's own limits. */
const pipelinesByStack = new WeakMap<Stack, IConstruct[]>();

/** Has every synth of `pipeline` check it against the deploy-time limits. */
export function checkDeployLimits(pipeline: IConstruct): void {
  const stack = Stack.of(pipeline);
  pipelinesByStack.set(stack, [...(pipelinesByStack.get(stack) ?? []), pipeline]);
  pipeline.node.addValidation({ validate: () => deployLimitProblems(pipeline) });
}

/** What would fail at deploy in `pipeline`'s part of its stack, one sentence each. */
export function deployLimitProblems(pipeline: IConstruct): string[] {
  const stack = Stack.of(pipeline);
  const template = renderedTemplate(stack);
  const values = new WorstCaseValues(template, stack.stackName, (exportName) => exportedValue(stack, exportName));
  const owned = ownedResources(pipeline, stack, template);
  return [
    ...owned.filter(({ resource }) => resource.Type === 'AWS::Lambda::Function').flatMap((fn) => environmentProblems(fn, values)),
    ...owned.filter(({ resource }) => resource.Type === 'AWS::IAM::Role').flatMap((role) => rolePolicyProblems(role, template, values)),
    ...owned.flatMap((resource) => nameProblems(resource, values)),
    ...(pipelinesByStack.get(stack)?.[0] === pipeline ? stackProblems(stack, template) : []),
  ];
}

/** A resource of the template the pipeline created, with the path that names it in messages. */
interface OwnedResource {
  readonly logicalId: string;
  readonly resource: RenderedResource;
  /** Its construct path below the pipeline, without CDK's `/Resource`: `OrchestratorFunction`. */
  readonly label: string;
}

/**
 * The template as CloudFormation will read it. `Stack` renders it with a protected method (the one
 * synthesis writes the template file from); no public call gives it before the file is written.
 */
function renderedTemplate(stack: Stack): RenderedTemplate {
  return (stack as unknown as { _toCloudFormation(): RenderedTemplate })._toCloudFormation();
}

function ownedResources(pipeline: IConstruct, stack: Stack, template: RenderedTemplate): OwnedResource[] {
  return pipeline.node
    .findAll()
    .filter((construct): construct is CfnResource => CfnResource.isCfnResource(construct) && construct.stack === stack)
    .map((construct) => {
      const logicalId: string = stack.resolve(construct.logicalId);
      const label = construct.node.path.slice(pipeline.node.path.length + 1).replace(/\/Resource$/, '');
      return { logicalId, resource: template.Resources?.[logicalId], label };
    })
    .filter((owned): owned is OwnedResource => owned.resource !== undefined);
}

/** The worst case of a value another stack of the app exports as `exportName` (a cross-stack reference). */
function exportedValue(stack: Stack, exportName: string): string | undefined {
  for (const other of stack.node.root.node.findAll().filter((construct): construct is Stack => Stack.isStack(construct) && construct !== stack)) {
    const template = renderedTemplate(other);
    const output = Object.values(template.Outputs ?? {}).find((candidate) => candidate.Export?.Name === exportName);
    if (output) return new WorstCaseValues(template, other.stackName).text(output.Value);
  }
  return undefined;
}

const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');
const count = (value: number): string => value.toLocaleString('en-US');

function environmentProblems({ resource, label }: OwnedResource, values: WorstCaseValues): string[] {
  const declared = ((resource.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {});
  const variables = values.resolve(declared) as Record<string, unknown>;
  const size = bytes(variables);
  if (size <= DEPLOY_LIMITS.environmentBytes) return [];
  const largest = Object.entries(variables)
    // Each variable's share of the JSON: "NAME":"value" and its comma.
    .map(([name, value]) => ({ name, size: bytes(name) + 1 + bytes(value) + 1, origin: variableOrigin(name, declared[name]) }))
    .sort((a, b) => b.size - a.size)
    .slice(0, 3);
  return [
    `${label}'s environment would be up to ${count(size)} bytes as Lambda measures it (the JSON of its variables, with names and ARNs at their longest); ` +
      `Lambda allows ${count(DEPLOY_LIMITS.environmentBytes)}. Its largest variables: ${largest.map((variable) => `${variable.name} (${count(variable.size)} bytes, ${variable.origin})`).join('; ')}.`,
  ];
}

function variableOrigin(name: string, declared: unknown): string {
  const props = PROPS_OF_VARIABLE[name];
  if (props !== undefined) return `from ${props}: shorten it`;
  return typeof declared === 'string' ? 'set on the function' : 'a name, URL or ARN: a shorter stack name or construct id shortens it';
}

type PolicyDocument = { readonly Statement?: unknown };
const FEWER_RESOURCES = 'Name fewer resources in the props those grants come from (or attach fewer policies to the role).';
/** IAM's measure of a policy: its characters other than whitespace. */
const policyCharacters = (document: unknown): number => JSON.stringify(document).replace(/\s/g, '').length;
const refersTo = (logicalId: string) => (value: unknown) => JSON.stringify(value) === JSON.stringify({ Ref: logicalId });

function rolePolicyProblems({ logicalId, resource: role, label }: OwnedResource, template: RenderedTemplate, values: WorstCaseValues): string[] {
  const resources = Object.entries(template.Resources ?? {});
  const attachedTo = (type: string) =>
    resources.filter(([, other]) => other.Type === type && ((other.Properties?.Roles as unknown[] | undefined) ?? []).some(refersTo(logicalId)));
  const inline = [
    ...((role.Properties?.Policies as { PolicyDocument: PolicyDocument }[] | undefined) ?? []).map((policy) => policy.PolicyDocument),
    ...attachedTo('AWS::IAM::Policy').map(([, policy]) => policy.Properties?.PolicyDocument as PolicyDocument),
  ].map((document) => values.resolve(document) as PolicyDocument);
  const inlineSize = inline.reduce((total, document) => total + policyCharacters(document), 0);
  const managedHere = attachedTo('AWS::IAM::ManagedPolicy');
  const managedArns = new Set([...((role.Properties?.ManagedPolicyArns as unknown[] | undefined) ?? []), ...managedHere.map(([id]) => ({ Ref: id }))].map((arn) => JSON.stringify(arn)));
  const trustSize = policyCharacters(values.resolve(role.Properties?.AssumeRolePolicyDocument ?? {}));
  const problems: string[] = [];
  if (inlineSize > DEPLOY_LIMITS.roleInlinePolicyCharacters) {
    problems.push(
      `${label}'s inline policies would be up to ${count(inlineSize)} characters together (whitespace not counted); IAM allows ${count(DEPLOY_LIMITS.roleInlinePolicyCharacters)} for a role. ` +
        `Its largest statements: ${largestStatements(inline)}. ${FEWER_RESOURCES}`,
    );
  }
  for (const [id, policy] of managedHere) {
    const document = values.resolve(policy.Properties?.PolicyDocument) as PolicyDocument;
    const size = policyCharacters(document);
    if (size > DEPLOY_LIMITS.managedPolicyCharacters) {
      // CDK moves whole statements out of an inline policy too large: one statement that names many resources stays too large.
      problems.push(
        `${label}'s managed policy ${id} would be up to ${count(size)} characters (whitespace not counted); IAM allows ${count(DEPLOY_LIMITS.managedPolicyCharacters)} for a managed policy. ` +
          `Its largest statements: ${largestStatements([document])}. ${FEWER_RESOURCES}`,
      );
    }
  }
  if (managedArns.size > DEPLOY_LIMITS.managedPoliciesPerRole) {
    problems.push(
      `${label} would have ${managedArns.size} managed policies attached (CDK moves what its inline policy cannot hold into managed policies); ` +
        `IAM attaches at most ${DEPLOY_LIMITS.managedPoliciesPerRole} to a role unless the account's quota was raised. ${FEWER_RESOURCES}`,
    );
  }
  if (trustSize > DEPLOY_LIMITS.trustPolicyCharacters) {
    problems.push(`${label}'s trust policy would be up to ${count(trustSize)} characters; IAM allows ${count(DEPLOY_LIMITS.trustPolicyCharacters)}.`);
  }
  return problems;
}

/** The three statements that weigh most, by their actions and how many resources they name. */
function largestStatements(documents: PolicyDocument[]): string {
  const list = (value: unknown): unknown[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);
  return documents
    .flatMap((document) => list(document.Statement) as { Action?: unknown; Resource?: unknown }[])
    .map((statement) => ({ actions: list(statement.Action).map(String), resources: list(statement.Resource).length, size: policyCharacters(statement) }))
    .sort((a, b) => b.size - a.size)
    .slice(0, 3)
    .map(({ actions, resources, size }) => `${actions.slice(0, 2).join(', ')}${actions.length > 2 ? '…' : ''} on ${resources} resource${resources === 1 ? '' : 's'} (${count(size)})`)
    .join('; ');
}

function nameProblems({ resource, label }: OwnedResource, values: WorstCaseValues): string[] {
  return (NAME_LIMITS[resource.Type] ?? []).flatMap(({ property, maxLength, minLength = 0, pattern, service, props }) => {
    const declared = property.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], resource.Properties);
    if (declared === undefined) return [];
    const hasToken = typeof declared !== 'string';
    const text = values.text(declared);
    const where = `${label}'s ${property}`;
    if (text.length > maxLength || (!hasToken && text.length < minLength)) {
      const length = `${hasToken ? 'would be up to' : 'is'} ${count(text.length)} characters`;
      return [`${where} ${length}; ${service} takes ${minLength > 0 ? `${minLength} to ` : 'at most '}${count(maxLength)}. Change ${props}.`];
    }
    if (pattern && !hasToken && !pattern.test(text)) {
      return [`${where} '${text}' has characters ${service} does not take there (${pattern.source}). Change ${props}.`];
    }
    return [];
  });
}

function stackProblems(stack: Stack, template: RenderedTemplate): string[] {
  // Written as synthesis writes it: indented by one space.
  const size = Buffer.byteLength(JSON.stringify(template, undefined, 1), 'utf8');
  const sections = [
    ['outputs', Object.keys(template.Outputs ?? {}).length, DEPLOY_LIMITS.outputs],
    ['parameters', Object.keys(template.Parameters ?? {}).length, DEPLOY_LIMITS.parameters],
    ['mappings', Object.keys(template.Mappings ?? {}).length, DEPLOY_LIMITS.mappings],
  ] as const;
  const split = 'give some of its pipelines (or other resources) stacks of their own';
  return [
    ...(size > DEPLOY_LIMITS.templateBytes
      ? [`The template of stack '${stack.stackName}' would be ${count(size)} bytes; CloudFormation takes at most ${count(DEPLOY_LIMITS.templateBytes)}: ${split}.`]
      : []),
    ...sections
      .filter(([, actual, limit]) => actual > limit)
      .map(([section, actual, limit]) => `Stack '${stack.stackName}' would declare ${actual} ${section}; CloudFormation takes at most ${limit} in one template: ${split}.`),
  ];
}
