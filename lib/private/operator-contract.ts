/**
 * The operator plane's values shared by the construct, the functions and the local runtime.
 * Internal: not part of the jsii API.
 */

/** Environment variables of the operator plane (the orchestrator and the operator function read them). */
export const OPERATOR_ENV = {
  /** Comma-separated deploy-time admin phones; its presence turns the plane on. */
  adminPhoneNumbers: 'OPERATOR_ADMIN_PHONE_NUMBERS',
  /** IANA zone whose midnight ends login links, operator sessions and availability. */
  timeZone: 'OPERATOR_TIME_ZONE',
  /** The operator function's URL, which the orchestrator puts in login links. */
  consoleUrl: 'CONSOLE_URL',
  /** JSON object of the deployment's handoff texts (the `handoff_texts` setting overrides them). */
  handoffTexts: 'HANDOFF_TEXTS',
  handoffRenotifyAfterSeconds: 'HANDOFF_RENOTIFY_AFTER_SECONDS',
  customerRenotifyAfterSeconds: 'CUSTOMER_RENOTIFY_AFTER_SECONDS',
  /** The turn queue's dead-letter queue, for the admin's dead-letter calls. */
  deadLetterQueueUrl: 'DEAD_LETTER_QUEUE_URL',
} as const;

export const OPERATOR_DEFAULTS = {
  timeZone: 'America/Sao_Paulo',
  handoffRenotifyAfterSeconds: 300,
  customerRenotifyAfterSeconds: 600,
  operatorTimeoutSeconds: 15,
  operatorMemorySize: 512,
} as const;

/** Splits the comma-separated admin list the construct writes. */
export function parseAdminPhoneNumbers(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((phone) => phone.trim())
    .filter((phone) => phone !== '');
}
