import { PipelineError } from '../../domain/errors';

/** The body is not JSON, or not a WhatsApp Business Account notification Meta would send. */
export class WebhookPayloadError extends PipelineError {
  override readonly code = 'invalid_webhook_payload';
  override readonly retryable = false;

  constructor(message: string) {
    super(message);
    this.name = 'WebhookPayloadError';
  }
}

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

export function requireString(value: unknown, where: string): string {
  const text = optionalString(value);
  if (text === undefined) throw new WebhookPayloadError(`${where} must be a non-empty string`);
  return text;
}

export function requireArray(value: unknown, where: string): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new WebhookPayloadError(`${where} must be an array`);
  return value;
}

export function requireObject(value: unknown, where: string): Json {
  if (!isObject(value)) throw new WebhookPayloadError(`${where} must be an object`);
  return value;
}

/** The parts that are there, with `separator` between them. */
export function joinParts(parts: ReadonlyArray<string | undefined>, separator = ' '): string {
  return parts.filter((part): part is string => part !== undefined).join(separator);
}
