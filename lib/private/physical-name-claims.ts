import { Stack, Token } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/** The explicit physical names of one pipeline, and where it is deployed. */
interface Claim {
  readonly path: string;
  readonly account: string;
  readonly region: string;
  readonly names: readonly string[];
}

/** Per app (construct tree root): the names each pipeline of that app claimed so far. */
const claimsByApp = new WeakMap<IConstruct, Claim[]>();

/**
 * Throws when another pipeline of the same app already uses one of `names` in the same account and
 * Region: CloudFormation would only fail at the second deployment ("already exists"), or one
 * stack's update would replace the other's table. Stacks without an explicit account or Region
 * share the same placeholder, so they count as deployed to the same place, which is where
 * `cdk deploy` puts them with one set of credentials.
 */
export function claimPhysicalNames(pipeline: IConstruct, names: readonly string[]): void {
  if (names.some((name) => Token.isUnresolved(name))) return;
  const stack = Stack.of(pipeline);
  const claim: Claim = { path: pipeline.node.path, account: stack.account, region: stack.region, names };
  const claims = claimsByApp.get(pipeline.node.root) ?? [];
  for (const other of claims) {
    if (other.account !== claim.account || other.region !== claim.region) continue;
    const shared = names.filter((name) => other.names.includes(name));
    if (shared.length > 0) {
      throw new Error(
        `AgentPipeline at '${claim.path}': the names ${shared.map((name) => `'${name}'`).join(', ')} are already used by the pipeline at ` +
          `'${other.path}' in the same account and Region (${describePlace(stack)}). Table and queue names are unique per account and ` +
          'Region, so the second deployment would fail. Give one of the two pipelines other resourceNames (generated names never collide), ' +
          'another environment or serviceName with ResourceNames.seed(), or deploy its stack to another account or Region with an explicit env.',
      );
    }
  }
  claimsByApp.set(pipeline.node.root, [...claims, claim]);
}

function describePlace(stack: Stack): string {
  const part = (value: string, unknown: string) => (Token.isUnresolved(value) ? unknown : value);
  return `account ${part(stack.account, 'of the deploying credentials')}, Region ${part(stack.region, 'of the deploying credentials')}`;
}
