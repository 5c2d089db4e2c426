// The tests every deploy-limit configuration gets, declared by the suites that list them: it
// synthesizes (the construct's deploy-limit check refuses nothing), every template matches the
// CloudFormation resource schemas, what a deployment holds fits AWS's limits, and the check's worst
// case bounds it. Each configuration is synthesized once for all its tests.
import { App } from 'aws-cdk-lib';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { DEPLOY_LIMITS } from '../../lib/private/deploy-limits';
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

/** Declares the tests of `configurations`. */
export function deployLimitSuite(configurations: readonly DeployConfiguration[]): void {
  let schemas: ResourceSchemas;
  beforeAll(() => {
    schemas = resourceSchemas();
  }, 120_000);
  afterAll(() => schemas?.free());

  describe.each(configurations)('$name', (configuration) => {
    let synthesized: Synthesized;
    beforeAll(() => {
      synthesized = synthesize(configuration);
    }, 300_000);

    test('synthesizes: the deploy-limit check refuses nothing', () => {
      expect(synthesized.refusal?.message).toBeUndefined();
    });

    test('every template matches the CloudFormation resource schemas', () => {
      for (const stack of synthesized.assemblies.flatMap((assembly) => assembly.stacks)) {
        const region = stack.environment.region === 'unknown-region' ? 'us-east-1' : stack.environment.region;
        expect({ stack: stack.stackName, violations: schemas.violations(stack.template, region) }).toEqual({ stack: stack.stackName, violations: [] });
      }
    });

    test("each function's environment fits Lambda's 4 KB as deployed", () => {
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
