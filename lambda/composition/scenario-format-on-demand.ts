import type { ScenarioParser } from '../core/ports/evaluation';

/** The scenario format's checker (`scenario-format.ts`): Ajv and the format's JSON Schema. */
type ScenarioFormat = typeof import('../core/application/evaluation/scenario-format');

let scenarioFormat: ScenarioFormat | undefined;

/**
 * The scenario format's checker, required at its first call, not imported at the top: the operator
 * function reaches `scenario-format.ts` only through this `require`, which the Lambda bundles turn
 * into the file `scenario-format.js` beside `index.js` (scripts/bundle-lambdas.mjs), so only a
 * request that checks a scenario loads and compiles Ajv and the schema. The evaluator, which
 * checks every suite it plays, imports it directly.
 */
export const scenarioParserOnDemand: ScenarioParser = (sources) => (scenarioFormat ??= require('../core/application/evaluation/scenario-format') as ScenarioFormat).parseScenarios(sources);
