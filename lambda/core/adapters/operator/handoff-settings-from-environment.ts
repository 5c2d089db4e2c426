import { DEFAULT_HANDOFF_TEXTS, OPERATOR_DEFAULTS, OPERATOR_ENV, parseAdminPhoneNumbers } from '../../../../lib/contract';
import { type HandoffTexts, handoffTextsFrom } from '../../domain/operational-settings';

/** The operator plane as the construct configures the orchestrator and the sweeper (read once). */
export interface OperatorPlaneEnvironment {
  readonly adminPhoneNumbers: readonly string[];
  readonly consoleUrl: string;
  readonly timeZone: string;
  readonly texts: HandoffTexts;
  readonly renotifyOperatorsAfterMs: number;
  readonly remindCustomerAfterMs: number;
}

/** `undefined` when the plane is off (no admins or no console URL in the environment). */
export function operatorPlaneFromEnvironment(environment: NodeJS.ProcessEnv = process.env): OperatorPlaneEnvironment | undefined {
  const adminPhoneNumbers = parseAdminPhoneNumbers(environment[OPERATOR_ENV.adminPhoneNumbers]);
  const consoleUrl = environment[OPERATOR_ENV.consoleUrl];
  if (adminPhoneNumbers.length === 0 || !consoleUrl) return undefined;
  return {
    adminPhoneNumbers,
    consoleUrl,
    timeZone: environment[OPERATOR_ENV.timeZone] || OPERATOR_DEFAULTS.timeZone,
    texts: handoffTextsFrom(parseJson(environment[OPERATOR_ENV.handoffTexts]), DEFAULT_HANDOFF_TEXTS),
    renotifyOperatorsAfterMs: seconds(environment[OPERATOR_ENV.handoffRenotifyAfterSeconds], OPERATOR_DEFAULTS.handoffRenotifyAfterSeconds) * 1000,
    remindCustomerAfterMs: seconds(environment[OPERATOR_ENV.customerRenotifyAfterSeconds], OPERATOR_DEFAULTS.customerRenotifyAfterSeconds) * 1000,
  };
}

function parseJson(value: string | undefined): unknown {
  if (!value) return undefined;
  try {
    return JSON.parse(value);
  } catch {
    throw new Error(`Environment variable ${OPERATOR_ENV.handoffTexts} is not JSON; the AgentPipeline construct writes it.`);
  }
}

function seconds(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`Expected a whole number of seconds, got '${value}'`);
  return parsed;
}
