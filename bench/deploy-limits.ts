/**
 * What each configuration of the deploy-limit suites deploys, measured as AWS measures it: each
 * function's environment (deployed in ap-southeast-5 with the names CloudFormation generates, and at
 * the synth check's worst case), the largest role's inline policy, each template's size and
 * resources. Synthesized without the check, so the configurations it refuses are measured too.
 * Prints lines; not a test. Needs the functions' bundles and the compiled library (`npm run build`).
 *
 *   npx tsx bench/deploy-limits.ts
 */
import { MAXIMAL_CONFIGURATIONS, readmeConfigurations } from '../test/support/deploy-configurations';
import { deployFigures, describeFigures, synthesizeUnchecked } from '../test/support/deploy-limit-figures';

// aws-cdk-lib's own template validation prints its lint warnings on every synth; the figures are what this prints.
process.env.CDK_VALIDATION = 'false';

for (const configuration of [...readmeConfigurations(), ...MAXIMAL_CONFIGURATIONS]) {
  const figures = configuration.apps().flatMap((app) => deployFigures(synthesizeUnchecked(app)));
  console.log(describeFigures(configuration.name, figures).join('\n'));
}
