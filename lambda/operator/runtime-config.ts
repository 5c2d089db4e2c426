import { RUNTIME_ENV } from '../../lib/private/pipeline-contract';
import { OPERATOR_DEFAULTS, OPERATOR_ENV, parseAdminPhoneNumbers } from '../../lib/private/operator-contract';

/** What the operator function reads from its environment, read once per instance. */
export interface OperatorRuntimeConfig {
  readonly tableName: string;
  readonly adminPhoneNumbers: readonly string[];
  readonly timeZone: string;
}

export function operatorRuntimeConfig(environment: NodeJS.ProcessEnv = process.env): OperatorRuntimeConfig {
  const tableName = environment[RUNTIME_ENV.tableName];
  if (!tableName) throw new Error(`Environment variable ${RUNTIME_ENV.tableName} is not set; the AgentPipeline construct sets it.`);
  const adminPhoneNumbers = parseAdminPhoneNumbers(environment[OPERATOR_ENV.adminPhoneNumbers]);
  if (adminPhoneNumbers.length === 0) throw new Error(`Environment variable ${OPERATOR_ENV.adminPhoneNumbers} is not set; the AgentPipeline construct sets it when adminPhoneNumbers is given.`);
  return { tableName, adminPhoneNumbers, timeZone: environment[OPERATOR_ENV.timeZone] || OPERATOR_DEFAULTS.timeZone };
}
