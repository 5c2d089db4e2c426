import type { SynthesizedDeployment } from './deployment-variants';
import { TemplateIntrinsics } from './template-intrinsics';

/** The account and Region every variant is evaluated in. */
export const CONFORMANCE_PLACE = { account: '123456789012', region: 'us-east-1' } as const;

export type PolicyDocument = { readonly Version?: string; readonly Statement: readonly Record<string, unknown>[] };

/** A principal's role as deployed: its ARN and every identity policy attached to it. */
export interface DeployedRole {
  readonly logicalId: string;
  readonly arn: string;
  readonly policies: readonly { readonly name: string; readonly policy: PolicyDocument }[];
}

/** A resource the requests name, with the key it is encrypted with and its resource policy. */
export interface DeployedResource {
  readonly arn: string;
  /** Its customer managed key, if any. */
  readonly keyArn?: string;
  readonly policy?: PolicyDocument;
}

/** One variant's roles and resources, every intrinsic resolved. */
export interface DeploymentPermissions {
  readonly variant: string;
  readonly account: string;
  readonly region: string;
  /** Principal (`webhook`, `redrive`, …) → its role. */
  readonly roles: ReadonlyMap<string, DeployedRole>;
  readonly table: DeployedResource;
  readonly queues: { readonly turn: DeployedResource; readonly deadLetter: DeployedResource; readonly inboundDeadLetter?: DeployedResource };
  readonly secrets: { readonly whatsApp?: DeployedResource; readonly crmWebhook?: DeployedResource };
  /** The media bucket, with the key its objects are encrypted with. */
  readonly mediaBucket?: DeployedResource;
  /** Key ARN → its key policy. */
  readonly keyPolicies: ReadonlyMap<string, PolicyDocument>;
}

/** Reads a synthesized variant as IAM sees it deployed at {@link CONFORMANCE_PLACE}. */
export function deploymentPermissions(deployment: SynthesizedDeployment): DeploymentPermissions {
  const { template } = deployment;
  const intrinsics = new TemplateIntrinsics(template, { ...CONFORMANCE_PLACE, stackName: deployment.stackName });
  const resources = Object.entries(template.Resources);
  const ofType = (type: string) => resources.filter(([, resource]) => resource.Type === type);
  const refersTo = (value: unknown, logicalId: string) => JSON.stringify(value) === JSON.stringify({ Ref: logicalId });

  const keyPolicies = new Map(ofType('AWS::KMS::Key').map(([logicalId, key]) => [intrinsics.text({ 'Fn::GetAtt': [logicalId, 'Arn'] }), intrinsics.resolve(key.Properties?.KeyPolicy) as PolicyDocument]));
  const keyArnOf = (keyReference: unknown): string | undefined => {
    if (keyReference === undefined) return undefined;
    const resolved = intrinsics.text(keyReference);
    return resolved.startsWith('arn:') ? resolved : `arn:aws:kms:${CONFORMANCE_PLACE.region}:${CONFORMANCE_PLACE.account}:key/${resolved}`;
  };
  const queue = (logicalId: string): DeployedResource => {
    const properties = template.Resources[logicalId].Properties ?? {};
    const policy = ofType('AWS::SQS::QueuePolicy').find(([, candidate]) => (candidate.Properties?.Queues as unknown[]).some((attached) => refersTo(attached, logicalId)));
    return { arn: intrinsics.text({ 'Fn::GetAtt': [logicalId, 'Arn'] }), keyArn: keyArnOf(properties.KmsMasterKeyId), policy: policy && (intrinsics.resolve(policy[1].Properties?.PolicyDocument) as PolicyDocument) };
  };
  const secret = (logicalId: string | undefined): DeployedResource | undefined =>
    logicalId === undefined ? undefined : { arn: intrinsics.text({ Ref: logicalId }), keyArn: keyArnOf(template.Resources[logicalId].Properties?.KmsKeyId) };

  const bucket = (logicalId: string | undefined): DeployedResource | undefined => {
    if (logicalId === undefined) return undefined;
    const encryption = template.Resources[logicalId].Properties?.BucketEncryption as { ServerSideEncryptionConfiguration?: { ServerSideEncryptionByDefault?: { KMSMasterKeyID?: unknown } }[] } | undefined;
    return { arn: intrinsics.text({ 'Fn::GetAtt': [logicalId, 'Arn'] }), keyArn: keyArnOf(encryption?.ServerSideEncryptionConfiguration?.[0]?.ServerSideEncryptionByDefault?.KMSMasterKeyID) };
  };

  const roles = new Map(
    Object.entries(deployment.roles).map(([principal, roleId]) => {
      const inline = ((template.Resources[roleId].Properties?.Policies as { PolicyName: string; PolicyDocument: unknown }[] | undefined) ?? []).map((policy) => ({
        name: policy.PolicyName,
        policy: intrinsics.resolve(policy.PolicyDocument) as PolicyDocument,
      }));
      const attached = ofType('AWS::IAM::Policy')
        .filter(([, policy]) => ((policy.Properties?.Roles as unknown[] | undefined) ?? []).some((role) => refersTo(role, roleId)))
        .map(([logicalId, policy]) => ({ name: logicalId, policy: intrinsics.resolve(policy.Properties?.PolicyDocument) as PolicyDocument }));
      return [principal, { logicalId: roleId, arn: intrinsics.text({ 'Fn::GetAtt': [roleId, 'Arn'] }), policies: [...inline, ...attached] }] as const;
    }),
  );
  const tableProperties = template.Resources[deployment.resources.table].Properties ?? {};
  return {
    variant: deployment.variant,
    ...CONFORMANCE_PLACE,
    roles,
    table: { arn: intrinsics.text({ 'Fn::GetAtt': [deployment.resources.table, 'Arn'] }), keyArn: keyArnOf((tableProperties.SSESpecification as { KMSMasterKeyId?: unknown } | undefined)?.KMSMasterKeyId) },
    queues: {
      turn: queue(deployment.resources.turnQueue),
      deadLetter: queue(deployment.resources.deadLetterQueue),
      inboundDeadLetter: deployment.resources.inboundDeadLetterQueue === undefined ? undefined : queue(deployment.resources.inboundDeadLetterQueue),
    },
    secrets: { whatsApp: secret(deployment.resources.whatsAppSecret), crmWebhook: secret(deployment.resources.crmWebhookSecret) },
    mediaBucket: bucket(deployment.resources.mediaBucket),
    keyPolicies,
  };
}
