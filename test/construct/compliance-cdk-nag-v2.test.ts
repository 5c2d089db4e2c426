// Many pipelines still run cdk-nag 2, an Aspect that reads suppressions from resource metadata,
// instead of cdk-nag 3's validation plugin (test/construct/compliance.test.ts). The construct's
// acknowledgements must reach both with the same reasons.
import { App, Aspects, Stack } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks, NagSuppressions } from 'cdk-nag-v2';
import { addExampleStacks } from '../../bin/example-stacks';
import type { AgentPipeline } from '../../lib';
import { acknowledgeFinding, type NagFinding } from '../../lib/private/nag-acknowledgements';

/** Every unsuppressed AwsSolutions error and warning cdk-nag 2 reports, as `rule at path`. */
function cdkNagV2Findings(app: App, stacks: Stack[]): string[] {
  Aspects.of(app).add(new AwsSolutionsChecks({ reports: false }));
  app.synth();
  return stacks.flatMap((stack) => {
    const annotations = Annotations.fromStack(stack);
    const nagMessage = Match.stringLikeRegexp('AwsSolutions-');
    return [...annotations.findError('*', nagMessage), ...annotations.findWarning('*', nagMessage)].map(
      // "AwsSolutions-IAM5[Resource::…]: The IAM entity contains wildcard permissions…"
      (message) => `${/^AwsSolutions-\w+(\[[^\]]*\])?/.exec(String(message.entry.data))?.[0]} at ${message.id}`,
    );
  });
}

describe('cdk-nag 2 (AwsSolutionsChecks as an Aspect)', () => {
  test('the example dev and prod stacks have no unsuppressed error or warning', () => {
    const app = new App();
    const { dev, prod } = addExampleStacks(app);
    expect(cdkNagV2Findings(app, [dev, prod])).toEqual([]);
  });

  test('suppressions are scoped to exact findings: a wildcard a consumer adds is still reported', () => {
    const app = new App();
    const { dev, prod } = addExampleStacks(app);
    const pipeline = prod.node.findChild('Pipeline') as AgentPipeline;
    pipeline.orchestratorFunction.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: ['arn:aws:s3:::reports/*'] }));
    expect(cdkNagV2Findings(app, [dev, prod])).toEqual([
      'AwsSolutions-IAM5[Resource::arn:aws:s3:::reports/*] at /WhatsAppAgentPipeline-prod/Pipeline/OrchestratorRole/DefaultPolicy/Resource',
    ]);
  });
});

describe('acknowledgeFinding', () => {
  test('writes the metadata cdk-nag 2 NagSuppressions writes, for plain and granular findings and non-Latin-1 reasons', () => {
    const findings: NagFinding[] = [
      { id: 'AwsSolutions-S1', reason: 'Access logs would log themselves into a loop.' },
      { id: 'AwsSolutions-IAM5', reason: 'Operadores revisam o acesso às pastas de relatórios.', appliesTo: 'Resource::*' },
    ];
    const byHelper = new s3.Bucket(new Stack(new App(), 'ByHelper'), 'Bucket');
    findings.forEach((finding) => acknowledgeFinding(byHelper, finding));
    const byNagSuppressions = new s3.Bucket(new Stack(new App(), 'ByNagSuppressions'), 'Bucket');
    NagSuppressions.addResourceSuppressions(
      byNagSuppressions,
      findings.map(({ appliesTo, ...finding }) => ({ ...finding, ...(appliesTo === undefined ? {} : { appliesTo: [appliesTo] }) })),
      true,
    );
    const metadata = (bucket: s3.Bucket) => (bucket.node.defaultChild as s3.CfnBucket).getMetadata('cdk_nag');
    expect(metadata(byHelper)).toEqual(metadata(byNagSuppressions));
    expect(metadata(byHelper).rules_to_suppress).toHaveLength(2);
  });

  test('refuses a scope without CloudFormation resources instead of suppressing nothing', () => {
    expect(() => acknowledgeFinding(new Stack(new App(), 'Nothing'), { id: 'AwsSolutions-S1', reason: 'Nothing here to carry it.' })).toThrow(
      /no CloudFormation resource under Nothing/,
    );
  });
});
