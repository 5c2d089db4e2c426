import { Arn, ArnFormat, Aws } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { crossRegionProfilePrefix, foundationModelArn, GLOBAL_PROFILE_PREFIX, isApplicationProfileArn, knowledgeBaseArn, warnOnGeographyMismatch } from './bedrock-model-ids';
import { acknowledgeFinding } from './nag-acknowledgements';
import { BEDROCK_INVOKE_ACTIONS, BEDROCK_RETRIEVE_ACTIONS } from './permissions';

/** Each orchestrator's one `bedrock:Retrieve` statement, which every knowledge base of its agents joins. */
const retrieveStatements = new WeakMap<iam.IPrincipal, iam.PolicyStatement>();

/**
 * Lets the orchestrator search the knowledge base: `bedrock:Retrieve` on exactly its ARN. Stages
 * with knowledge bases of their own share one statement, so ten of them cost the role ten ARNs
 * rather than ten statements (the role's policies have a size limit; docs/DEPLOY-LIMITS.md).
 */
export function grantKnowledgeBaseSearch(orchestrator: iam.IGrantable, knowledgeBaseId: string): void {
  const principal = orchestrator.grantPrincipal;
  const arn = knowledgeBaseArn(knowledgeBaseId);
  const shared = retrieveStatements.get(principal);
  if (shared !== undefined) {
    if (!shared.resources.includes(arn)) shared.addResources(arn);
    return;
  }
  const statement = new iam.PolicyStatement({ actions: [...BEDROCK_RETRIEVE_ACTIONS], resources: [arn] });
  retrieveStatements.set(principal, statement);
  principal.addToPrincipalPolicy(statement);
}

/**
 * Lets the orchestrator invoke `modelId`: exactly the model, or, for an inference profile, the
 * profile plus the models it routes to, only when invoked through that profile.
 */
export function grantModelInvocation(scope: Construct, orchestrator: iam.IGrantable, modelId: string): void {
  if (isApplicationProfileArn(modelId)) {
    grantApplicationProfile(orchestrator, modelId);
    return;
  }
  const profilePrefix = crossRegionProfilePrefix(modelId);
  if (profilePrefix === undefined) {
    orchestrator.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({ actions: [...BEDROCK_INVOKE_ACTIONS], resources: [foundationModelArn(modelId, Aws.REGION)] }));
    return;
  }
  grantInferenceProfile(orchestrator, modelId, profilePrefix);
  warnOnGeographyMismatch(scope, modelId, profilePrefix);
}

/**
 * An application inference profile routes to a model or a system-defined profile chosen when it
 * was created, which the ARN does not reveal: the grant is the profile itself, plus any foundation
 * model or system profile but only when invoked through this profile.
 */
function grantApplicationProfile(orchestrator: iam.IGrantable, modelId: string): void {
  const principal = orchestrator.grantPrincipal;
  principal.addToPrincipalPolicy(new iam.PolicyStatement({ actions: [...BEDROCK_INVOKE_ACTIONS], resources: [modelId] }));
  principal.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: [...BEDROCK_INVOKE_ACTIONS],
      resources: [foundationModelArn('*', '*'), Arn.format({ partition: Aws.PARTITION, service: 'bedrock', region: '*', account: Aws.ACCOUNT_ID, resource: 'inference-profile', resourceName: '*', arnFormat: ArnFormat.SLASH_RESOURCE_NAME })],
      conditions: { StringEquals: { 'bedrock:InferenceProfileArn': modelId } },
    }),
  );
  if (Construct.isConstruct(principal)) {
    acknowledgeFinding(principal, {
      id: 'AwsSolutions-IAM5',
      appliesTo: 'Resource::arn:<AWS::Partition>:bedrock:*::foundation-model/*',
      reason:
        `The application inference profile ${modelId} routes to a model fixed when it was created, which its ARN does not name; ` +
        'the bedrock:InferenceProfileArn condition limits the statement to calls made through this profile.',
    });
    acknowledgeFinding(principal, {
      id: 'AwsSolutions-IAM5',
      appliesTo: 'Resource::arn:<AWS::Partition>:bedrock:*:<AWS::AccountId>:inference-profile/*',
      reason: `The application inference profile ${modelId} may copy a cross-Region profile; the condition limits the statement to calls made through it.`,
    });
  }
}

/**
 * A cross-Region profile needs the profile itself plus the foundation model in every destination
 * Region (global profiles also use a Region-less model ARN). Destination Regions change as Bedrock
 * grows, so they are a wildcard, bounded by the condition that the call goes through this profile.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/geographic-cross-region-inference.html
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/global-cross-region-inference.html
 */
function grantInferenceProfile(orchestrator: iam.IGrantable, modelId: string, prefix: string): void {
  const principal = orchestrator.grantPrincipal;
  const foundationModelId = modelId.slice(prefix.length + 1);
  const profileArn = Arn.format({
    partition: Aws.PARTITION,
    service: 'bedrock',
    region: Aws.REGION,
    account: Aws.ACCOUNT_ID,
    resource: 'inference-profile',
    resourceName: modelId,
    arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
  });
  const anyRegionModelArn = foundationModelArn(foundationModelId, '*');
  const modelArns = prefix === GLOBAL_PROFILE_PREFIX ? [anyRegionModelArn, foundationModelArn(foundationModelId, '')] : [anyRegionModelArn];
  principal.addToPrincipalPolicy(new iam.PolicyStatement({ actions: [...BEDROCK_INVOKE_ACTIONS], resources: [profileArn] }));
  principal.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: [...BEDROCK_INVOKE_ACTIONS],
      resources: modelArns,
      conditions: { StringEquals: { 'bedrock:InferenceProfileArn': profileArn } },
    }),
  );
  if (Construct.isConstruct(principal)) {
    acknowledgeFinding(principal, {
      id: 'AwsSolutions-IAM5',
      appliesTo: `Resource::arn:<AWS::Partition>:bedrock:*::foundation-model/${foundationModelId}`,
      reason:
        `The cross-Region inference profile ${modelId} routes each call to any of its destination Regions, ` +
        'which AWS changes over time; the statement is limited to this one model and, by the bedrock:InferenceProfileArn ' +
        'condition, to calls made through this profile.',
    });
  }
}
