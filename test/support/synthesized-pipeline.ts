import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, type CfnElement, Stack, Stage } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { AgentBackend, AgentPipeline, type AgentPipelineProps } from '../../lib';
import { RUNTIME_ENV, SETTINGS_DOCUMENT_FILE, type SettingsDocument } from '../../lib/contract';

export interface SynthesizedPipeline {
  readonly app: App;
  readonly stack: Stack;
  readonly pipeline: AgentPipeline;
  readonly template: Template;
}

/** Props for a minimal valid pipeline, overridable per test. */
export function pipelineProps(overrides: Partial<AgentPipelineProps> = {}): AgentPipelineProps {
  return { environment: 'test', agentBackend: AgentBackend.scripted(), ...overrides };
}

/**
 * One stack with one pipeline; `extend` adds what a test needs next to it (a topic, a key…)
 * before the template is synthesized.
 */
export function synthPipeline(
  overrides: Partial<AgentPipelineProps> = {},
  extend?: (stack: Stack) => Partial<AgentPipelineProps>,
): SynthesizedPipeline {
  const app = new App();
  const stack = new Stack(app, 'TestStack');
  const pipeline = new AgentPipeline(stack, 'Pipeline', pipelineProps({ ...overrides, ...extend?.(stack) }));
  return { app, stack, pipeline, template: Template.fromStack(stack) };
}

/** What a synthesized function is told: the variables of its template resource, and the settings document in its staged asset. */
export interface FunctionTold {
  readonly environment: Record<string, unknown>;
  readonly document: SettingsDocument;
}

/** What `fn` of the synthesized stack is told. */
export function toldTo({ stack, template }: Pick<SynthesizedPipeline, 'stack' | 'template'>, fn: lambda.IFunction): FunctionTold {
  const properties = template.toJSON().Resources[stack.getLogicalId(fn.node.defaultChild as CfnElement)].Properties;
  return { environment: properties.Environment?.Variables ?? {}, document: stagedDocument(Stage.of(stack)!.outdir, properties.Code) };
}

/** What every function of the pipeline in the synthesized stack is told (those the table's name is given to), by logical id. */
export function everyFunctionTold({ stack, template }: Pick<SynthesizedPipeline, 'stack' | 'template'>): Record<string, FunctionTold> {
  const functions = Object.entries(template.findResources('AWS::Lambda::Function')).filter(([, fn]) => fn.Properties.Environment?.Variables?.[RUNTIME_ENV.tableName] !== undefined);
  return Object.fromEntries(functions.map(([logicalId, fn]) => [logicalId, { environment: fn.Properties.Environment.Variables, document: stagedDocument(Stage.of(stack)!.outdir, fn.Properties.Code) }]));
}

/** The settings document of the asset a function's `Code` names, as staged in the cloud assembly's folder. */
export function stagedDocument(assemblyFolder: string, code: { readonly S3Key: string }): SettingsDocument {
  const assetHash = code.S3Key.replace(/\.zip$/, '');
  return JSON.parse(readFileSync(join(assemblyFolder, `asset.${assetHash}`, SETTINGS_DOCUMENT_FILE), 'utf8')) as SettingsDocument;
}

/** The dashboard's body as synthesized (JSON text, quotes escaped), to look for titles and metric names. */
export function dashboardBody({ template, stack }: Pick<SynthesizedPipeline, 'template' | 'stack'>): string {
  return JSON.stringify(stack.resolve(Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0].Properties.DashboardBody));
}

/** A policy statement in a comparable form: sorted action list, resources as a list. */
export interface NormalizedStatement {
  readonly actions: string[];
  readonly resources: unknown[];
  readonly condition?: unknown;
}

/** Every statement of the identity policies attached to `role`, normalised for exact comparison. */
export function roleStatements(synth: SynthesizedPipeline, role: iam.IRole): NormalizedStatement[] {
  const roleRef = synth.stack.resolve(role.roleName);
  const policies = Object.values(synth.template.findResources('AWS::IAM::Policy')).filter((policy) =>
    (policy.Properties.Roles as unknown[]).some((attached) => JSON.stringify(attached) === JSON.stringify(roleRef)),
  );
  return policies.flatMap((policy) =>
    (policy.Properties.PolicyDocument.Statement as Record<string, unknown>[]).map((statement) => {
      expect(statement.Effect).toBe('Allow');
      return normalize(statement.Action, statement.Resource, statement.Condition);
    }),
  );
}

/** The expected form of a statement, with CDK tokens resolved the way the template renders them. */
export function statement(synth: SynthesizedPipeline, actions: readonly string[], resources: unknown[], condition?: unknown): NormalizedStatement {
  return normalize([...actions], synth.stack.resolve(resources), condition === undefined ? undefined : synth.stack.resolve(condition));
}

function normalize(actions: unknown, resources: unknown, condition: unknown): NormalizedStatement {
  const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);
  return {
    actions: (list(actions) as string[]).slice().sort(),
    resources: list(resources),
    ...(condition === undefined ? {} : { condition }),
  };
}

/** Exactly these statements, in any order. */
export function expectExactStatements(actual: NormalizedStatement[], expected: NormalizedStatement[]): void {
  const key = (s: NormalizedStatement) => JSON.stringify(s);
  expect(actual.map(key).sort()).toEqual(expected.map(key).sort());
}

export const XRAY_ACTIONS = ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'];
export const LOG_ACTIONS = ['logs:CreateLogStream', 'logs:PutLogEvents'];
export const SECRET_READ_ACTIONS = ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'];

/** A consumer's own function, as the CRM target of `CrmTarget.fromFunction`. */
export function consumerCrmFunction(stack: Stack): lambda.Function {
  return new lambda.Function(stack, 'Crm', { runtime: lambda.Runtime.NODEJS_24_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler = async () => ({})') });
}
