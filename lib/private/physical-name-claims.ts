import { Stack, Token } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/** The explicit physical names of one pipeline, and where it is deployed. */
interface Claim {
  readonly path: string;
  readonly account: string;
  readonly region: string;
  /** Unique per account and Region: the table and the queues. */
  readonly names: readonly string[];
  /** Unique per account, across Regions. */
  readonly dashboardName?: string;
}

/** Per app (construct tree root): the names each pipeline of that app claimed so far. */
const claimsByApp = new WeakMap<IConstruct, Claim[]>();

/**
 * Throws when another pipeline of the same app already uses one of `names` in the same account and
 * Region, or `dashboardName` in the same account: CloudFormation would only fail at the second
 * deployment ("already exists"), or one stack's update would replace the other's table. Stacks
 * without an explicit account or Region share the same placeholder, so they count as deployed to
 * the same place, which is where `cdk deploy` puts them with one set of credentials.
 */
export function claimPhysicalNames(pipeline: IConstruct, names: readonly string[], dashboardName?: string): void {
  const stack = Stack.of(pipeline);
  const resolved = (name: string | undefined) => (name === undefined || Token.isUnresolved(name) ? undefined : name);
  const claim: Claim = {
    path: pipeline.node.path,
    account: stack.account,
    region: stack.region,
    names: names.some((name) => Token.isUnresolved(name)) ? [] : names,
    dashboardName: resolved(dashboardName),
  };
  const claims = claimsByApp.get(pipeline.node.root) ?? [];
  for (const other of claims.filter((candidate) => candidate.account === claim.account)) {
    const shared = other.region === claim.region ? claim.names.filter((name) => other.names.includes(name)) : [];
    if (shared.length > 0) {
      throw new Error(
        `AgentPipeline at '${claim.path}': the names ${shared.map((name) => `'${name}'`).join(', ')} are already used by the pipeline at ` +
          `'${other.path}' in the same account and Region (${describePlace(stack)}). Table and queue names are unique per account and ` +
          'Region, so the second deployment would fail. Give one of the two pipelines other resourceNames (generated names never collide), ' +
          'another environment or serviceName with ResourceNames.seed(), or deploy its stack to another account or Region with an explicit env.',
      );
    }
    if (claim.dashboardName !== undefined && claim.dashboardName === other.dashboardName) {
      throw new Error(
        `AgentPipeline at '${claim.path}': its dashboard '${claim.dashboardName}' is already the dashboard of the pipeline at '${other.path}' in the same ` +
          `account (${describePlace(stack)}). CloudWatch names dashboards once per account, in every Region, so the two deployments would collide. ` +
          "Give each pipeline its own dashboardName, or leave dashboardName out: the default carries the stack's name, the construct path and the Region.",
      );
    }
  }
  claimsByApp.set(pipeline.node.root, [...claims, claim]);
}

function describePlace(stack: Stack): string {
  const part = (value: string, unknown: string) => (Token.isUnresolved(value) ? unknown : value);
  return `account ${part(stack.account, 'of the deploying credentials')}, Region ${part(stack.region, 'of the deploying credentials')}`;
}
