/** How much the functions log (Powertools log levels). */
export enum LogLevel {
  /** Everything, including each DynamoDB and agent step: for investigations, not for steady traffic. */
  DEBUG = 'DEBUG',
  /** One line per notification and per turn, plus warnings and errors. */
  INFO = 'INFO',
  /** Rejected requests, retries and errors only. */
  WARN = 'WARN',
  /** Failures only. */
  ERROR = 'ERROR',
}
