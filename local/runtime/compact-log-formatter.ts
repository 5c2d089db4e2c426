import { LogFormatter, LogItem } from '@aws-lambda-powertools/logger';
import type { LogAttributes, UnformattedAttributes } from '@aws-lambda-powertools/logger/types';

/**
 * One short JSON line per log entry for a terminal: level, message, service and the entry's own
 * attributes; errors as name and message without stack traces. The functions' structured fields
 * stay intact, only the Lambda-specific envelope is left out.
 */
export class CompactLogFormatter extends LogFormatter {
  override formatAttributes(attributes: UnformattedAttributes, additionalLogAttributes: LogAttributes): LogItem {
    return new LogItem({
      attributes: { level: attributes.logLevel, message: attributes.message, service: attributes.serviceName },
    }).addAttributes(additionalLogAttributes);
  }

  override formatError(error: Error): LogAttributes {
    return { name: error.name, message: error.message };
  }
}
