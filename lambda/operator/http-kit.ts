import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { OperatorFailureReason } from '../core/application/operator/operator-errors';
import { PipelineError, type Problem } from '../core/domain/errors';

/**
 * The small HTTP toolkit of the operator function: JSON bodies read strictly (size, media type,
 * UTF-8, known fields only), answers with the plane's security headers, and cookies.
 */

export type HttpResponse = APIGatewayProxyStructuredResultV2;

/** No API body is larger: the longest is a prompt. */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * The console loads nothing from elsewhere but, with `mediaOrigin`, the attachments it shows (the
 * media bucket's presigned links: images, audio and video only), and may not be framed.
 */
export function contentSecurityPolicy(mediaOrigin?: string): string {
  const media = mediaOrigin === undefined ? '' : `; img-src 'self' ${mediaOrigin}; media-src 'self' ${mediaOrigin}`;
  return `default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'${media}`;
}

/** The console loads nothing from elsewhere and may not be framed; tokens never leak in a Referer. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': contentSecurityPolicy(),
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=63072000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
};

/**
 * The operator API's one table from error code to HTTP status (docs/OPERATOR-API.md). The HTTP
 * layer's refusals (HttpError) and the use cases' (OperatorActionError, whose reason is its code)
 * are answered under their own code; any error whose code is neither here nor in
 * {@link ANSWERED_AS} is a 500 `internal_error`.
 */
const STATUS_OF_CODE = {
  bad_body: 400,
  bad_customer_id: 400,
  bad_field: 400,
  bad_id: 400,
  bad_json: 400,
  bad_query: 400,
  invalid: 400,
  missing_field: 400,
  unexpected_body: 400,
  unknown_field: 400,
  invalid_token: 401,
  not_signed_in: 401,
  admin_only: 403,
  bad_csrf_token: 403,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  evaluation_regression: 409,
  evaluation_required: 409,
  no_scenarios: 409,
  not_evaluated: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  outside_window: 422,
  template_not_approved: 422,
  too_many_attempts: 429,
  internal_error: 500,
  send_failed: 502,
} as const satisfies Readonly<Record<OperatorFailureReason, number> & Record<string, number>>;

/** A code the operator API answers with: the `error` of an error answer's body. */
export type ApiErrorCode = keyof typeof STATUS_OF_CODE;

/** Every code the operator API may answer with (the console words each one). */
export const API_ERROR_CODES = Object.keys(STATUS_OF_CODE) as readonly ApiErrorCode[];

/**
 * Errors of the core the API answers under one of its own codes, by their code; with the API's
 * message when theirs is not written for the operator.
 */
const ANSWERED_AS: Readonly<Record<string, { readonly code: ApiErrorCode; readonly message?: string }>> = {
  invalid_cursor: { code: 'bad_query', message: 'cursor is not a cursor this API returned' },
  invalid_customer_id: { code: 'bad_customer_id' },
  illegal_state_transition: { code: 'conflict' },
  invalid_report_range: { code: 'bad_query' },
  erasure_incomplete: { code: 'conflict' },
  template_catalog_failed: { code: 'send_failed', message: 'WhatsApp did not give the templates list; nothing changed, try again' },
};

/** A request the plane refuses, under one of the API's codes; the status is the code's. */
export class HttpError extends PipelineError {
  override readonly name = 'HttpError';

  constructor(
    override readonly code: ApiErrorCode,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
    override readonly problem?: Problem,
  ) {
    super(message);
  }

  get statusCode(): number {
    return STATUS_OF_CODE[this.code];
  }

  /** Too many attempts pass with time and our own failures may; a request refused as it is never passes. */
  override get retryable(): boolean {
    return this.statusCode === 429 || this.statusCode >= 500;
  }
}

/**
 * The refusal the API answers `error` with: an HttpError as it is, another error under the API code
 * its code is (or is answered as); `undefined` for an error the API does not know, a failure.
 */
export function refusalOf(error: unknown): HttpError | undefined {
  if (error instanceof HttpError) return error;
  if (!(error instanceof PipelineError)) return undefined;
  if (Object.hasOwn(ANSWERED_AS, error.code)) {
    const { code, message } = ANSWERED_AS[error.code];
    return new HttpError(code, message ?? error.message, {}, error.problem);
  }
  return isApiErrorCode(error.code) ? new HttpError(error.code, error.message, {}, error.problem) : undefined;
}

function isApiErrorCode(code: string): code is ApiErrorCode {
  return Object.hasOwn(STATUS_OF_CODE, code);
}

export function json(statusCode: number, body: unknown, extra: { readonly cookies?: string[]; readonly headers?: Record<string, string> } = {}): HttpResponse {
  return {
    statusCode,
    headers: { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8', ...extra.headers },
    cookies: extra.cookies,
    body: JSON.stringify(body),
  };
}

/** `304 Not Modified`: the caller's copy (named by `etag`) is current. */
export function notModified(etag: string): HttpResponse {
  return { statusCode: 304, headers: { ...SECURITY_HEADERS, etag }, body: '' };
}

export function errorResponse(error: HttpError): HttpResponse {
  return json(error.statusCode, { error: error.code, message: error.message, ...(error.problem === undefined ? {} : { problem: error.problem }) }, { headers: { ...error.headers } });
}

export function header(event: APIGatewayProxyEventV2, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(event.headers ?? {})) if (key.toLowerCase() === wanted) return value;
  return undefined;
}

/** A cookie's value from the event's `cookies` (Function URLs) or a `Cookie` header. */
export function cookie(event: APIGatewayProxyEventV2, name: string): string | undefined {
  const pairs = event.cookies ?? (header(event, 'cookie') ?? '').split(';');
  for (const pair of pairs) {
    const index = pair.indexOf('=');
    if (index > 0 && pair.slice(0, index).trim() === name) return pair.slice(index + 1).trim();
  }
  return undefined;
}

export type FieldType = 'string' | 'boolean' | 'integer' | 'any';

/** The field type that reads a value of type `Value` (`integer` for numbers: the API takes whole numbers only; a list is `any`, checked by its route). */
type FieldTypeOf<Value> = unknown extends Value ? 'any' : Value extends readonly unknown[] ? 'any' : Value extends string ? 'string' : Value extends boolean ? 'boolean' : Value extends number ? 'integer' : never;

interface FieldRule {
  readonly type: FieldType;
  readonly required?: boolean;
  readonly maxLength?: number;
}

/**
 * How to read each field of a body of type `Body`: every field of it, of its type, required
 * exactly when `Body` requires it. A schema that misses or mistypes a field does not compile.
 */
export type BodySchema<Body> = {
  readonly [Field in keyof Body]-?: { readonly type: FieldTypeOf<Body[Field]>; readonly maxLength?: number } & ({} extends Pick<Body, Field> ? { readonly required?: false } : { readonly required: true });
};

/**
 * The request's JSON object, checked against `schema`: 413 when too large, 415 when not JSON,
 * 400 for bad JSON, a non-object, an unknown field, a missing or mistyped field.
 */
export function jsonBody<Body>(event: APIGatewayProxyEventV2, schema: BodySchema<Body>): Body {
  const raw = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
  if (raw.length > MAX_BODY_BYTES) throw new HttpError('payload_too_large', `The body may be at most ${MAX_BODY_BYTES} bytes`);
  if (!/^application\/json\s*(;|$)/i.test(header(event, 'content-type') ?? '')) throw new HttpError('unsupported_media_type', 'Send the body as application/json');
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw));
  } catch {
    throw new HttpError('bad_json', 'The body is not valid UTF-8 JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new HttpError('bad_body', 'The body must be a JSON object');
  const body = parsed as Record<string, unknown>;
  for (const field of Object.keys(body)) if (!Object.hasOwn(schema, field)) throw new HttpError('unknown_field', `Unknown field "${field.slice(0, 64)}"`);
  for (const [field, rule] of Object.entries<FieldRule>(schema)) {
    const value = body[field];
    if (value === undefined) {
      if (rule.required) throw new HttpError('missing_field', `Field "${field}" is required`);
      continue;
    }
    if (!hasType(value, rule.type)) throw new HttpError('bad_field', `Field "${field}" must be ${rule.type === 'integer' ? 'a whole number' : `a ${rule.type}`}`);
    if (rule.maxLength !== undefined && typeof value === 'string' && value.length > rule.maxLength) {
      throw new HttpError('bad_field', `Field "${field}" may be at most ${rule.maxLength} characters`);
    }
  }
  return body as Body;
}

function hasType(value: unknown, type: FieldType): boolean {
  if (type === 'any') return true;
  if (type === 'integer') return Number.isSafeInteger(value);
  return typeof value === type;
}

/** A request with a body it must not have (or any body at all on GET/DELETE) is refused. */
export function requireNoBody(event: APIGatewayProxyEventV2): void {
  if ((event.body ?? '') !== '') throw new HttpError('unexpected_body', 'This call takes no body');
}
