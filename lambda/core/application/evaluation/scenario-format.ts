import Ajv, { type ErrorObject } from 'ajv';
import SCENARIO_SCHEMA from '../../../../evaluation/scenario.schema.json';
import { compiles, invalidPatterns } from '../../domain/evaluation/expectations';
import type { Scenario } from '../../domain/evaluation/scenario';
import { ScenarioFormatError, type ScenarioSource } from '../../ports/evaluation';

// Ajv and the schema are most of what this module weighs: the operator function reaches it only
// through lambda/composition/scenario-format-on-demand.ts, at the first scenario it checks, so
// nothing the operator composes may import it (the evaluator and the CLI do, and load it at once).

const ajv = new Ajv({ allErrors: true, strict: false });
const validate = ajv.compile<Scenario>(SCENARIO_SCHEMA);

/**
 * The scenarios of a suite, checked against `evaluation/scenario.schema.json` and for what a schema
 * cannot say (regular expressions that compile, one name per scenario). Every problem of every
 * file is reported at once, so one run shows the whole fix.
 */
export function parseScenarios(sources: readonly ScenarioSource[]): Scenario[] {
  const problems: string[] = [];
  const scenarios: Scenario[] = [];
  const files = new Map<string, string>();
  for (const { file, text } of sources) {
    const parsed = parseScenario(file, text);
    if (typeof parsed === 'string') {
      problems.push(parsed);
      continue;
    }
    const earlier = files.get(parsed.name);
    if (earlier !== undefined) problems.push(`${file}: scenario '${parsed.name}': name is already the name of a scenario in ${earlier}`);
    files.set(parsed.name, file);
    scenarios.push(parsed);
  }
  if (problems.length > 0) throw new ScenarioFormatError(problems.join('\n'));
  return scenarios;
}

/** One file's scenario, or its problems as one text. */
function parseScenario(file: string, text: string): Scenario | string {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    return `${file}: not JSON (${(error as Error).message})`;
  }
  const named = typeof document === 'object' && document !== null && typeof (document as { name?: unknown }).name === 'string' ? (document as { name: string }).name : undefined;
  const where = `${file}: ${named === undefined ? 'scenario' : `scenario '${named}'`}`;
  if (!validate(document)) return (validate.errors ?? []).filter(isReported).map((error) => `${where}: ${fieldOf(error)} ${messageOf(error)}`).join('\n');
  const patterns = document.turns.flatMap(({ expect }, index) => {
    const path = `turns[${index}].expect`;
    const reply = expect?.reply?.matches;
    return [
      ...(reply !== undefined && !compiles(reply) ? [`${path}.reply.matches`] : []),
      ...(expect?.toolsCalled ?? []).flatMap((call, position) => invalidPatterns(call.input, `${path}.toolsCalled[${position}].input`)),
      ...invalidPatterns(expect?.learned, `${path}.learned`),
    ];
  });
  const toolPatterns = Object.entries(document.tools ?? {}).flatMap(([tool, answers]) => answers.flatMap((answer, index) => invalidPatterns(answer.input, `tools.${tool}[${index}].input`)));
  const invalid = [...patterns, ...toolPatterns];
  if (invalid.length > 0) return invalid.map((field) => `${where}: ${field} is not a regular expression`).join('\n');
  return document;
}

/** `oneOf` and `if` failures repeat what their branches said: the branches' errors are the reported ones. */
function isReported(error: ErrorObject): boolean {
  return error.keyword !== 'if' && !(error.keyword === 'oneOf' && error.params.passingSchemas === null);
}

/** The field an error concerns, as `turns[0].expect.reply` (the document itself: `the scenario`). */
function fieldOf(error: ErrorObject): string {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((joined, part) => (/^\d+$/.test(part) ? `${joined}[${part}]` : joined === '' ? part : `${joined}.${part}`), '');
  if (error.keyword === 'additionalProperties') return path === '' ? String(error.params.additionalProperty) : `${path}.${String(error.params.additionalProperty)}`;
  if (error.keyword === 'required') return path === '' ? String(error.params.missingProperty) : `${path}.${String(error.params.missingProperty)}`;
  return path === '' ? 'the scenario' : path;
}

function messageOf(error: ErrorObject): string {
  switch (error.keyword) {
    case 'additionalProperties':
      return 'is not a field of the format (docs/EVALUATION.md)';
    case 'required':
      return 'is required';
    case 'const':
      return `must be ${JSON.stringify(error.params.allowedValue)}`;
    case 'enum':
      return `must be one of ${(error.params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`;
    case 'oneOf':
      return 'must have exactly one of result and error';
    case 'maxProperties':
    case 'minProperties':
      return 'must hold exactly one of text, tap and media';
    default:
      return error.message ?? 'is invalid';
  }
}
