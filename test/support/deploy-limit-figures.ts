// What a deployment of a synthesized app holds, measured as AWS measures it: each function's
// environment (the JSON of its variables), each role's inline and managed policies (characters other
// than whitespace), each template (bytes as written, resources, outputs, parameters). Each size twice:
// at the deploy-limit check's worst case (lib/private/worst-case-values.ts), and as deployed in a
// real Region with the names CloudFormation generates, resolved by the permission check's own
// resolver, so that the suites prove the check's bound holds over what a deployment gets.
import * as fs from 'fs';
import type { App } from 'aws-cdk-lib';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { nameLength, WorstCaseValues } from '../../lib/private/worst-case-values';
import type { CloudFormationTemplate } from './permissions/deployment-variants';
import { TemplateIntrinsics } from './permissions/template-intrinsics';

export interface FunctionFigures {
  readonly logicalId: string;
  readonly worstCaseBytes: number;
  readonly deployedBytes: number;
}

export interface RoleFigures {
  readonly logicalId: string;
  readonly inlineWorstCase: number;
  readonly inlineDeployed: number;
  readonly managedPolicies: number;
  /** The largest managed policy the stack creates for the role, deployed. */
  readonly largestManagedDeployed: number;
}

export interface StackFigures {
  readonly stackName: string;
  readonly templateBytes: number;
  readonly resources: number;
  readonly outputs: number;
  readonly parameters: number;
  readonly functions: FunctionFigures[];
  readonly roles: RoleFigures[];
  /** The names a service takes once per account, whatever the Region (dashboards, CloudFront's origin access controls), as deployed. */
  readonly accountWideNames: string[];
}

/** Where each resource type named once per account keeps its name. */
const ACCOUNT_WIDE_NAMES: Readonly<Record<string, readonly string[]>> = {
  'AWS::CloudWatch::Dashboard': ['DashboardName'],
  'AWS::CloudFront::OriginAccessControl': ['OriginAccessControlConfig', 'Name'],
};

/** Where an environment-agnostic stack is taken to be deployed: the longest commercial Region code, a real account length. */
export const DEPLOYED_PLACE = { account: '123456789012', region: 'ap-southeast-5' } as const;

/** The random part CloudFormation appends to the names it generates (12 or 13 characters). */
const GENERATED_SUFFIX = 'A1B2C3D4E5F6G';

/**
 * `{stack name}-{logical id}-{random}`, cut to the longest name the service takes, as CloudFormation
 * generates a name; as long as the identifier where the service makes one up (a key id, a distribution id).
 */
const cloudFormationName = (stackName: string) => (logicalId: string, type: string) => {
  const name = `${stackName}-${logicalId}-${GENERATED_SUFFIX}`;
  const length = nameLength(type);
  if (length === undefined) return logicalId;
  return length.identifier ? name.padEnd(length.longest, '0').slice(0, length.longest) : name.slice(0, length.longest);
};

/** The figures of every stack of `app`'s assembly. */
export function deployFigures(assembly: CloudAssembly): StackFigures[] {
  return assembly.stacks.map((artifact) => {
    const region = artifact.environment.region === 'unknown-region' ? DEPLOYED_PLACE.region : artifact.environment.region;
    return stackFigures(artifact.stackName, artifact.template as CloudFormationTemplate, fs.statSync(artifact.templateFullPath).size, region);
  });
}

/** Synthesizes `app` without the construct tree's validations (the deploy-limit check among them), to measure what it would deploy. */
export function synthesizeUnchecked(app: App): CloudAssembly {
  return app.synth({ skipValidation: true, force: true }) as unknown as CloudAssembly;
}

function stackFigures(stackName: string, template: CloudFormationTemplate, templateBytes: number, region: string): StackFigures {
  const worst = new WorstCaseValues(template, stackName);
  const deployed = new TemplateIntrinsics(template, { ...DEPLOYED_PLACE, region, stackName }, cloudFormationName(stackName));
  const resources = Object.entries(template.Resources);
  const ofType = (type: string) => resources.filter(([, resource]) => resource.Type === type);
  const envBytes = (variables: unknown) => Buffer.byteLength(JSON.stringify(variables), 'utf8');
  const policyCharacters = (document: unknown) => JSON.stringify(document).replace(/\s/g, '').length;
  const attached = (type: string, roleId: string) =>
    ofType(type).filter(([, policy]) => ((policy.Properties?.Roles as unknown[] | undefined) ?? []).some((role) => JSON.stringify(role) === JSON.stringify({ Ref: roleId })));
  return {
    stackName,
    templateBytes,
    resources: resources.length,
    outputs: Object.keys((template.Outputs as object | undefined) ?? {}).length,
    parameters: Object.keys((template.Parameters as object | undefined) ?? {}).length,
    functions: ofType('AWS::Lambda::Function').map(([logicalId, fn]) => {
      const variables = (fn.Properties?.Environment as { Variables?: unknown } | undefined)?.Variables ?? {};
      return { logicalId, worstCaseBytes: envBytes(worst.resolve(variables)), deployedBytes: envBytes(deployed.resolve(variables)) };
    }),
    roles: ofType('AWS::IAM::Role').map(([logicalId, role]) => {
      const documents = [
        ...((role.Properties?.Policies as { PolicyDocument: unknown }[] | undefined) ?? []).map((policy) => policy.PolicyDocument),
        ...attached('AWS::IAM::Policy', logicalId).map(([, policy]) => policy.Properties?.PolicyDocument),
      ];
      const managed = attached('AWS::IAM::ManagedPolicy', logicalId);
      const sum = (measure: (document: unknown) => number) => documents.reduce((total: number, document) => total + measure(document), 0);
      return {
        logicalId,
        inlineWorstCase: sum((document) => policyCharacters(worst.resolve(document))),
        inlineDeployed: sum((document) => policyCharacters(deployed.resolve(document))),
        managedPolicies: ((role.Properties?.ManagedPolicyArns as unknown[] | undefined) ?? []).length + managed.length,
        largestManagedDeployed: Math.max(0, ...managed.map(([, policy]) => policyCharacters(deployed.resolve(policy.Properties?.PolicyDocument)))),
      };
    }),
    accountWideNames: resources.flatMap(([, resource]) => {
      const path = ACCOUNT_WIDE_NAMES[resource.Type];
      const name = path?.reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], resource.Properties);
      return name === undefined ? [] : [deployed.text(name)];
    }),
  };
}

/** One line per stack, function and largest role: the figures docs/DEPLOY-LIMITS.md quotes. */
export function describeFigures(configuration: string, stacks: StackFigures[]): string[] {
  return stacks.flatMap((stack) => {
    // A stack that only references a pipeline (the README's operations stack) may hold no role.
    const largestRole = stack.roles.reduce<(typeof stack.roles)[number] | undefined>((a, b) => (a === undefined || b.inlineDeployed > a.inlineDeployed ? b : a), undefined);
    const role = largestRole === undefined ? 'no role' : `largest role inline policy ${largestRole.inlineDeployed} characters deployed (${largestRole.inlineWorstCase} worst case, ${largestRole.logicalId})`;
    return [
      `${configuration} — ${stack.stackName}: template ${stack.templateBytes} bytes, ${stack.resources} resources, ${stack.outputs} outputs; ${role}`,
      ...stack.functions.map((fn) => `    ${fn.logicalId}: environment ${fn.deployedBytes} bytes deployed, ${fn.worstCaseBytes} worst case`),
    ];
  });
}
