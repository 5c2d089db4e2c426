import { createHash } from 'crypto';
import { Stack, Token } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * Default names for the resources a service names once per account, whatever the Region
 * (CloudWatch dashboards, CloudFront's origin access controls): the same app deployed to two
 * Regions of one account must not give both the same name. Internal.
 */

/** Room a Region known only at deploy takes in a name: above every Region code today (the longest are 15). */
export const LONGEST_REGION = 20;

/**
 * `${stackName}-${path in the stack}`: unique per account and Region as long as the stack name is,
 * which CloudFormation requires.
 */
export function stackQualifiedName(construct: IConstruct): string {
  const stack = Stack.of(construct);
  const scopes = construct.node.scopes;
  return [stack.stackName, ...scopes.slice(scopes.indexOf(stack) + 1).map((scope) => scope.node.id)].join('-');
}

/** `base` and the stack's Region, in at most `maxLength` characters: unique per account when `base` is unique per Region. */
export function accountUniqueName(scope: IConstruct, base: string, maxLength: number): string {
  const region = Stack.of(scope).region;
  if (Token.isUnresolved(base)) return `${base}-${region}`;
  const regionLength = Token.isUnresolved(region) ? LONGEST_REGION : region.length;
  return `${fitted(base, maxLength - 1 - regionLength)}-${region}`;
}

/** `name`, or, when longer than `maxLength`, its beginning and a hash of the whole, so that two long names that differ only at the end stay apart. */
function fitted(name: string, maxLength: number): string {
  if (name.length <= maxLength) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8).toUpperCase();
  return `${name.slice(0, maxLength - hash.length - 1)}-${hash}`;
}
