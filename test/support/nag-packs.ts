// Every rule pack cdk-nag ships, run the way each cdk-nag line runs: cdk-nag 3 as a validation
// plugin over the construct tree (acknowledgements through Validations), cdk-nag 2 as an Aspect
// (suppressions in the resources' metadata).
import { type App, Aspects, type Stack } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import * as nag from 'cdk-nag';
import * as nagV2 from 'cdk-nag-v2';

export interface NagPackLine {
  /** The pack's rule-id prefix, as reports show it. */
  readonly prefix: string;
  readonly v3: new (scope?: App) => nag.NagPack;
  readonly v2: new (props?: { reports?: boolean }) => nagV2.NagPack;
}

/** Every pack of cdk-nag 3, with its cdk-nag 2 twin. */
export const NAG_PACKS: Readonly<Record<string, NagPackLine>> = {
  'AWS Solutions': { prefix: 'AwsSolutions', v3: nag.AwsSolutionsChecks, v2: nagV2.AwsSolutionsChecks },
  'HIPAA Security': { prefix: 'HIPAA.Security', v3: nag.HIPAASecurityChecks, v2: nagV2.HIPAASecurityChecks },
  'NIST 800-53 rev 4': { prefix: 'NIST.800.53.R4', v3: nag.NIST80053R4Checks, v2: nagV2.NIST80053R4Checks },
  'NIST 800-53 rev 5': { prefix: 'NIST.800.53.R5', v3: nag.NIST80053R5Checks, v2: nagV2.NIST80053R5Checks },
  'PCI DSS 3.2.1': { prefix: 'PCI.DSS.321', v3: nag.PCIDSS321Checks, v2: nagV2.PCIDSS321Checks },
  Serverless: { prefix: 'Serverless', v3: nag.ServerlessChecks, v2: nagV2.ServerlessChecks },
};

/** One finding: the rule (with its granular part) and the construct path of the resource. */
export interface NagFindingAt {
  readonly rule: string;
  readonly path: string;
}

/**
 * What cdk-nag 3 reports for `pack` on `app`. With `ignoringAcknowledgements`, also what the
 * construct acknowledged: every finding the rules raise (for the counts in docs/COMPLIANCE.md).
 */
export function nagV3Findings(app: App, pack: NagPackLine, options: { readonly ignoringAcknowledgements?: boolean } = {}): NagFindingAt[] {
  const checks = new pack.v3(app);
  if (options.ignoringAcknowledgements) {
    // The pack's own check of the acknowledgements, switched off for this one run.
    (checks as unknown as { isAcknowledged: () => boolean }).isAcknowledged = () => false;
  }
  return checks.validateScope(app).violations.flatMap((violation) => violation.violatingResources.map((resource) => ({ rule: violation.ruleName, path: resource.constructPath ?? resource.resourceLogicalId ?? '' })));
}

/** What cdk-nag 2 reports (errors and warnings not suppressed) for `pack` on the stacks of `app`. */
export function nagV2Findings(app: App, stacks: readonly Stack[], pack: NagPackLine): NagFindingAt[] {
  Aspects.of(app).add(new pack.v2({ reports: false }));
  app.synth();
  const message = Match.stringLikeRegexp(`^${pack.prefix.replace(/\./g, '\\.')}-`);
  return stacks.flatMap((stack) => {
    const annotations = Annotations.fromStack(stack);
    return [...annotations.findError('*', message), ...annotations.findWarning('*', message)].map((found) => ({
      rule: new RegExp(`^${pack.prefix.replace(/\./g, '\\.')}-\\w+(\\[[^\\]]*\\])?`).exec(String(found.entry.data))?.[0] ?? String(found.entry.data),
      path: found.id,
    }));
  });
}
