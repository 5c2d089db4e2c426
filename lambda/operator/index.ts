// Entry point of the operator function. The HTTP contract lives in operator-http.ts, the behaviour in
// core/application/operator/, the composition in ../composition/operator.ts.
import path from 'node:path';
import { composedOnFirstInvocation } from '../composition/compose-function';
import { composeOperator } from '../composition/operator';
import { readOperatorSettings, toldToThisFunction } from '../composition/read-settings';
import { CONSOLE_DIRECTORY_NAME, StaticConsole } from './static-console';

// The build copies the console next to this bundle; the construct writes the settings document beside it.
export const handler = composedOnFirstInvocation(() => {
  const settings = readOperatorSettings(toldToThisFunction(__dirname));
  return composeOperator(settings, { console: StaticConsole.load(path.join(__dirname, CONSOLE_DIRECTORY_NAME), settings.locale) });
});
