// The tests every deploy-limit configuration gets, declared by the suites that list them: it
// synthesizes (the construct's deploy-limit check refuses nothing), every template matches the
// CloudFormation resource schemas, what a deployment holds fits AWS's limits, and the check's worst
// case bounds it. Each configuration is synthesized once for all its tests.
import { App } from 'aws-cdk-lib';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { AgentPipeline } from '../../lib';
import { DEPLOY_LIMITS, deployLimitProblems } from '../../lib/private/deploy-limits';
import type { DeployConfiguration } from './deploy-configurations';
import { deployFigures, synthesizeUnchecked, type StackFigures } from './deploy-limit-figures';
import { type ResourceSchemas, resourceSchemas } from './resource-schemas';

interface Synthesized {
  readonly apps: App[];
  readonly assemblies: CloudAssembly[];
  /** Why synth refused the configuration, if it did. */
  readonly refusal?: Error;
  readonly figures: StackFigures[];
}

/** Synthesizes each app as a consumer would; an app synth refuses is synthesized again unchecked, to measure it all the same. */
function synthesize({ apps }: DeployConfiguration): Synthesized {
  const built = apps();
  let refusal: Error | undefined;
  const assemblies = built.map((app) => {
    try {
      return app.synth() as unknown as CloudAssembly;
    } catch (error) {
      refusal ??= error as Error;
      return synthesizeUnchecked(app);
    }
  });
  return { apps: built, assemblies, refusal, figures: assemblies.flatMap(deployFigures) };
}

/**
 * Declares the tests of `configurations`. Those named in `awaitingSettingsDocument` exceed only a
 * function environment's 4 KB until large settings leave the environment: their synth and their
 * environment sizes run as `test.failing` (passing only while they still fail), and a test proves
 * that the environment is all the check refuses in them.
 */
export function deployLimitSuite(configurations: readonly DeployConfiguration[], awaitingSettingsDocument: readonly string[] = []): void {
  const unknown = awaitingSettingsDocument.filter((name) => !configurations.some((configuration) => configuration.name === name));
  test('every configuration awaiting the settings document is one of the suite', () => expect(unknown).toEqual([]));

  let schemas: ResourceSchemas;
  beforeAll(() => {
    schemas = resourceSchemas();
  }, 120_000);
  afterAll(() => schemas?.free());

  describe.each(configurations.map((configuration) => ({ ...configuration, awaiting: awaitingSettingsDocument.includes(configuration.name) })))('$name', (configuration) => {
    let synthesized: Synthesized;
    beforeAll(() => {
      synthesized = synthesize(configuration);
    }, 300_000);
    const untilSettingsDocument = configuration.awaiting ? test.failing : test;

    untilSettingsDocument('synthesizes: the deploy-limit check refuses nothing', () => {
      expect(synthesized.refusal?.message).toBeUndefined();
    });

    if (configuration.awaiting) {
      test('all the check refuses is the size of function environments', () => {
        const pipelines = synthesized.apps.flatMap((app) => app.node.findAll().filter((construct) => construct instanceof AgentPipeline));
        const problems = pipelines.flatMap((pipeline) => deployLimitProblems(pipeline));
        expect(problems.filter((problem) => !/'s environment would be up to [\d,]+ bytes as Lambda measures it/.test(problem))).toEqual([]);
      });
    }

    test('every template matches the CloudFormation resource schemas', () => {
      for (const stack of synthesized.assemblies.flatMap((assembly) => assembly.stacks)) {
        const region = stack.environment.region === 'unknown-region' ? 'us-east-1' : stack.environment.region;
        expect({ stack: stack.stackName, violations: schemas.violations(stack.template, region) }).toEqual({ stack: stack.stackName, violations: [] });
      }
    });

    untilSettingsDocument("each function's environment fits Lambda's 4 KB as deployed", () => {
      const functions = synthesized.figures.flatMap((stack) => stack.functions.map((fn) => ({ stack: stack.stackName, ...fn })));
      expect(functions.filter((fn) => fn.deployedBytes > DEPLOY_LIMITS.environmentBytes)).toEqual([]);
    });

    test("each role's policies and each template fit IAM's and CloudFormation's limits as deployed", () => {
      for (const stack of synthesized.figures) {
        expect({ stack: stack.stackName, templateBytes: stack.templateBytes <= DEPLOY_LIMITS.templateBytes, resources: stack.resources <= 500 }).toEqual({
          stack: stack.stackName,
          templateBytes: true,
          resources: true,
        });
        expect(stack.outputs).toBeLessThanOrEqual(DEPLOY_LIMITS.outputs);
        expect(stack.parameters).toBeLessThanOrEqual(DEPLOY_LIMITS.parameters);
        const oversized = stack.roles.filter(
          (role) =>
            role.inlineDeployed > DEPLOY_LIMITS.roleInlinePolicyCharacters ||
            role.largestManagedDeployed > DEPLOY_LIMITS.managedPolicyCharacters ||
            role.managedPolicies > DEPLOY_LIMITS.managedPoliciesPerRole,
        );
        expect(oversized).toEqual([]);
      }
    });

    test('names a service takes once per account (dashboards, origin access controls) differ across its stacks and Regions', () => {
      const names = synthesized.figures.flatMap((stack) => stack.accountWideNames);
      expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
    });

    test("the check's worst case bounds every size a deployment gets", () => {
      const functions = synthesized.figures.flatMap((stack) => stack.functions);
      const roles = synthesized.figures.flatMap((stack) => stack.roles);
      expect(functions.length).toBeGreaterThan(0);
      expect(functions.filter((fn) => fn.worstCaseBytes < fn.deployedBytes)).toEqual([]);
      expect(roles.filter((role) => role.inlineWorstCase < role.inlineDeployed)).toEqual([]);
    });
  });
}
