// CloudFormation's resource provider schemas, offline: the validator aws-cdk-lib ships bundled
// (`@aws/cloudformation-validate`, the engine of its own synth-time validation), which checks a
// template's properties against 1,899 resource types — required properties, types, enums, lengths,
// patterns — without network or credentials. Its release is aws-cdk-lib's: the npm registry offers
// only older betas of it on their own.
import { createRequire } from 'module';

export interface ResourceSchemas {
  /** What the schemas refuse in `template` (warnings and errors; notes such as "create-only" left out), one line each. */
  violations(template: object, region: string): string[];
  /** Frees the validator's WebAssembly memory. */
  free(): void;
}

interface Diagnostic {
  readonly severity: string;
  readonly ruleId: string;
  readonly message: string;
  readonly propertyPath?: string;
  readonly entity?: { readonly logicalId: string };
}

/** The validator that comes with `cdkLib` (this repository's aws-cdk-lib by default); throws, saying so, where that release has none. */
export function resourceSchemas(cdkLib = 'aws-cdk-lib'): ResourceSchemas {
  const cdkRequire = createRequire(require.resolve(`${cdkLib}/package.json`));
  let validate: { SchemaValidator: new () => { validate(template: unknown, region: string): Diagnostic[]; free(): void }; TemplateContent: new (content: string, name: string) => unknown };
  try {
    validate = cdkRequire('@aws/cloudformation-validate');
  } catch {
    throw new Error(`${cdkLib} ${cdkRequire('./package.json').version} comes without @aws/cloudformation-validate: the templates cannot be validated against the resource schemas with it.`);
  }
  const validator = new validate.SchemaValidator();
  return {
    violations: (template, region) =>
      validator
        .validate(new validate.TemplateContent(JSON.stringify(template), 'template'), region)
        .filter((diagnostic) => !['INFO', 'DEBUG'].includes(diagnostic.severity))
        .map(({ severity, ruleId, entity, propertyPath, message }) => `${severity} ${ruleId} ${entity?.logicalId ?? ''} ${propertyPath ?? ''}: ${message}`),
    free: () => validator.free(),
  };
}
