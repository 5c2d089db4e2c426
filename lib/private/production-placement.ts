import { Token } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { AgentPipelineProps } from '../agent-pipeline-props';

/** The alias settings with defaults applied. Internal. */
export interface AliasSettings {
  readonly aliasName: string;
  readonly webhookProvisionedConcurrency?: number;
  readonly orchestratorProvisionedConcurrency?: number;
}

/** Where the functions run when `vpc` is set. Internal. */
export interface VpcPlacement {
  readonly vpc: ec2.IVpc;
  readonly vpcSubnets?: ec2.SubnetSelection;
  readonly securityGroups?: ec2.ISecurityGroup[];
}

/** `functionAlias`, `vpc`, `vpcSubnets`, `securityGroups` resolved. Internal. */
export interface ProductionPlacement {
  /** Undefined: no alias. */
  readonly alias?: AliasSettings;
  /** Undefined: outside any VPC. */
  readonly vpcPlacement?: VpcPlacement;
}

const DEFAULT_ALIAS_NAME = 'live';
/** Lambda's alias name rule: 1–128 of letters, digits, `-`, `_`, and not only digits. */
const ALIAS_NAME = /^(?!\d+$)[A-Za-z0-9_-]{1,128}$/;
/** Lambda's per-function ceiling is the account's concurrency; 1000 is the default account quota. */
const MAX_PROVISIONED_CONCURRENCY = 1000;

/**
 * The ENI actions Lambda needs to attach a function to a VPC (what the AWSLambdaVPCAccessExecutionRole
 * managed policy grants, on `*`: the network interfaces do not exist before Lambda creates them).
 */
export const VPC_NETWORK_INTERFACE_ACTIONS = [
  'ec2:CreateNetworkInterface',
  'ec2:DescribeNetworkInterfaces',
  'ec2:DescribeSubnets',
  'ec2:DeleteNetworkInterface',
  'ec2:AssignPrivateIpAddresses',
  'ec2:UnassignPrivateIpAddresses',
] as const;

/** Checks the alias and VPC props against each other and against the concurrency props. */
export function resolveProductionPlacement(constructPath: string, props: AgentPipelineProps): ProductionPlacement {
  const fail = (problem: string): never => {
    throw new Error(`AgentPipeline at '${constructPath}': ${problem}`);
  };
  if (!props.vpc) {
    const stray = (['vpcSubnets', 'securityGroups'] as const).filter((prop) => props[prop] !== undefined);
    if (stray.length > 0) fail(`${stray.join(' and ')} only apply inside a VPC; set vpc as well, or remove them.`);
  }
  if (props.securityGroups !== undefined && props.securityGroups.length === 0) {
    fail('securityGroups is empty: a function in a VPC needs at least one; leave it out to get one per function.');
  }
  return {
    alias: props.functionAlias && resolveAlias(fail, props),
    vpcPlacement: props.vpc && { vpc: props.vpc, vpcSubnets: props.vpcSubnets, securityGroups: props.securityGroups },
  };
}

function resolveAlias(fail: (problem: string) => never, props: AgentPipelineProps): AliasSettings {
  const { aliasName = DEFAULT_ALIAS_NAME, webhookProvisionedConcurrency, orchestratorProvisionedConcurrency } = props.functionAlias ?? {};
  if (!Token.isUnresolved(aliasName) && !ALIAS_NAME.test(aliasName)) {
    fail(`functionAlias.aliasName '${aliasName}' is not a Lambda alias name: use 1 to 128 letters, digits, '-' or '_', not only digits (e.g. 'live').`);
  }
  const checkCount = (name: string, value: number | undefined, ceiling: number | undefined, ceilingProp: string, why: string) => {
    if (value === undefined || Token.isUnresolved(value)) return;
    if (!Number.isInteger(value) || value < 1 || value > MAX_PROVISIONED_CONCURRENCY) {
      fail(`functionAlias.${name} must be a whole number from 1 to ${MAX_PROVISIONED_CONCURRENCY}; got ${value}. Leave it out for no provisioned concurrency.`);
    }
    if (ceiling !== undefined && !Token.isUnresolved(ceiling) && value > ceiling) {
      fail(`functionAlias.${name} (${value}) is above ${ceilingProp} (${ceiling}): ${why} Lower one or raise the other.`);
    }
  };
  checkCount('webhookProvisionedConcurrency', webhookProvisionedConcurrency, props.webhookReservedConcurrency, 'webhookReservedConcurrency',
    'Lambda refuses provisioned concurrency beyond the function\'s reserved concurrency.');
  checkCount('orchestratorProvisionedConcurrency', orchestratorProvisionedConcurrency, props.orchestratorMaxConcurrency, 'orchestratorMaxConcurrency',
    'the queue never runs more turns at once, so the extra environments would be paid for and stay idle.');
  return { aliasName, webhookProvisionedConcurrency, orchestratorProvisionedConcurrency };
}

/** The inline policy a function's role needs in a VPC (inline, so the role has it before the function is created). */
export function vpcNetworkingPolicy(): iam.PolicyDocument {
  return new iam.PolicyDocument({ statements: [new iam.PolicyStatement({ actions: [...VPC_NETWORK_INTERFACE_ACTIONS], resources: ['*'] })] });
}
