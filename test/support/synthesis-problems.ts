// What an app leaves its user to fix when it synthesizes: context it had to look up (which needs
// AWS credentials), warnings and errors, and cdk-nag 3's AWS Solutions findings not acknowledged.
import type { App } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';

export interface SynthesisProblems {
  readonly missingContext: string[];
  readonly warningsAndErrors: string[];
  readonly awsSolutionsFindings: string[];
}

/**
 * Synthesizes `app` and reports what is left to fix. `checks` is the AWS Solutions pack of the
 * cdk-nag copy that loaded `app`'s aws-cdk-lib (an app run outside jest's module registry has its own).
 */
export function synthesisProblems(app: App, checks: new (app: App) => AwsSolutionsChecks = AwsSolutionsChecks): SynthesisProblems {
  const assembly = app.synth();
  const { violations } = new checks(app).validateScope(app);
  return {
    missingContext: (assembly.manifest.missing ?? []).map((missing) => missing.key),
    warningsAndErrors: assembly.stacks.flatMap((stack) =>
      stack.messages.filter((message) => message.level !== 'info').map((message) => `${message.level} ${message.id}: ${String(message.entry.data)}`),
    ),
    awsSolutionsFindings: violations.flatMap((violation) => violation.violatingResources.map((resource) => `${violation.ruleName} at ${resource.constructPath ?? resource.resourceLogicalId}`)),
  };
}

export const NO_PROBLEMS: SynthesisProblems = { missingContext: [], warningsAndErrors: [], awsSolutionsFindings: [] };
