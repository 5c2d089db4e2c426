import { Buffer } from 'buffer';
import * as cdk from 'aws-cdk-lib';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { Construct, type IConstruct } from 'constructs';

/** A cdk-nag finding the construct accepts on purpose, with the reason a reviewer reads. */
export interface NagFinding {
  /** Rule id, e.g. `AwsSolutions-IAM5`. */
  readonly id: string;
  /** Why the finding is acceptable here (shown in both cdk-nag versions' reports). */
  readonly reason: string;
  /**
   * The one finding of a granular rule this covers, e.g. `Resource::*`; without it the whole rule
   * is acknowledged on the scope.
   */
  readonly appliesTo?: string;
}

/** The resource metadata key cdk-nag 2 reads suppressions from (what its `NagSuppressions` writes). */
const CDK_NAG_V2_METADATA_KEY = 'cdk_nag';

/** The part of aws-cdk-lib's `Validations` this module uses. */
interface AcknowledgingValidations {
  of(scope: IConstruct): { acknowledge?(...rules: { id: string; reason: string }[]): void };
}

/**
 * `Validations.acknowledge()` arrived in aws-cdk-lib 2.252.0, later than the oldest release this
 * package supports (the aws-cdk-lib floor in package.json's peerDependencies). Older releases cannot
 * run cdk-nag 3 at all (it requires 2.257.0), so there the cdk-nag 2 metadata is what counts.
 */
const validations = (cdk as unknown as { Validations?: AcknowledgingValidations }).Validations;

/**
 * Acknowledges `finding` on `scope` for both cdk-nag lines, so users of either see the same
 * reason and neither needs to be a dependency of this package:
 * - cdk-nag 3 (a validation plugin) reads `Validations.of(scope).acknowledge()`, with granular
 *   findings written as `id[appliesTo]` (where aws-cdk-lib has it, see `validations` above);
 * - cdk-nag 2 (an Aspect) reads `cdk_nag.rules_to_suppress` metadata on each CloudFormation
 *   resource, in the format its `NagSuppressions.addResourceSuppressions(scope, …, true)` writes.
 *
 * Call it after the resources under `scope` that the finding concerns exist (for a role, after its
 * first statement has created its default policy): cdk-nag 2 metadata goes on the resources
 * present at the call.
 */
export function acknowledgeFinding(scope: IConstruct, finding: NagFinding): void {
  validations?.of(scope).acknowledge?.({
    id: finding.appliesTo === undefined ? finding.id : `${finding.id}[${finding.appliesTo}]`,
    reason: finding.reason,
  });

  const suppression = cdkNagV2Suppression(finding);
  const resources = scope.node.findAll().filter((construct): construct is cdk.CfnResource => construct instanceof cdk.CfnResource);
  if (resources.length === 0) {
    throw new Error(`acknowledgeFinding: no CloudFormation resource under ${scope.node.path} to carry the cdk-nag 2 suppression of ${finding.id}.`);
  }
  for (const resource of resources) {
    const existing: unknown[] = resource.getMetadata(CDK_NAG_V2_METADATA_KEY)?.rules_to_suppress ?? [];
    const serialized = JSON.stringify(suppression);
    if (!existing.some((rule) => JSON.stringify(rule) === serialized)) {
      resource.addMetadata(CDK_NAG_V2_METADATA_KEY, { rules_to_suppress: [...existing, suppression] });
    }
  }
}

/**
 * Acknowledges `finding` on the policies of `grantee`'s principal when they are in the app: a role
 * it created, or the policy it attaches to a role imported by name. An immutable imported role
 * gets no policy, hence nothing to acknowledge.
 */
export function acknowledgePrincipalFinding(grantee: IGrantable, finding: PrincipalFinding): void {
  const principal: unknown = grantee.grantPrincipal;
  if (!Construct.isConstruct(principal) || !principal.node.findAll().some((construct) => construct instanceof cdk.CfnResource)) return;
  const { onResource, ...rest } = finding;
  acknowledgeFinding(principal, onResource === undefined ? rest : { ...rest, appliesTo: nagResourceFinding(principal, onResource) });
}

/** A finding on a principal's policy; `onResource` names the granular finding by the resource it concerns. */
export interface PrincipalFinding extends NagFinding {
  readonly onResource?: string;
}

/**
 * The granular finding cdk-nag raises for `resource` in a statement of `scope`'s stack
 * (`Resource::…`): the resource resolved, then flattened as cdk-nag flattens references (a `Ref` or
 * `Fn::GetAtt` in angle brackets, `Fn::Join` joined, `Fn::ImportValue` by its export name).
 */
export function nagResourceFinding(scope: IConstruct, resource: string): string {
  const flatten = (node: unknown): string => {
    if (typeof node === 'string') return node.replace(/\$\{/g, '<').replace(/}/g, '>');
    const intrinsic = node as Record<string, unknown>;
    if ('Fn::Join' in intrinsic) {
      const [delimiter, parts] = intrinsic['Fn::Join'] as [string, unknown[]];
      return parts.map(flatten).join(delimiter);
    }
    if ('Fn::GetAtt' in intrinsic) {
      const [logicalId, attribute] = intrinsic['Fn::GetAtt'] as [unknown, unknown];
      return `<${flatten(logicalId)}.${flatten(attribute)}>`;
    }
    if ('Fn::ImportValue' in intrinsic) return flatten(intrinsic['Fn::ImportValue']);
    if ('Ref' in intrinsic) return `<${flatten(intrinsic.Ref)}>`;
    return JSON.stringify(node);
  };
  return `Resource::${flatten(cdk.Stack.of(scope).resolve(resource))}`;
}

/**
 * One `rules_to_suppress` entry as cdk-nag 2 stores it: reasons with characters beyond Latin-1 are
 * base64-encoded and flagged, since the metadata ends up in the template.
 */
function cdkNagV2Suppression(finding: NagFinding): Record<string, unknown> {
  const needsEncoding = [...finding.reason].some((character) => (character.codePointAt(0) ?? 0) > 255);
  return {
    reason: needsEncoding ? Buffer.from(finding.reason).toString('base64') : finding.reason,
    id: finding.id,
    ...(finding.appliesTo === undefined ? {} : { applies_to: [finding.appliesTo] }),
    ...(needsEncoding ? { is_reason_encoded: true } : {}),
  };
}
