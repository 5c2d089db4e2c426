import type { IsoTimestamp } from './timestamps';

/**
 * The business's approved WhatsApp message templates, as data: what Meta holds for the WhatsApp
 * Business Account (name, language, category, status, body with its parameters, buttons), read into
 * the table by the template sync and kept current by Meta's `message_template_status_update`
 * notifications. A template is the only message WhatsApp delivers outside the customer's 24-hour
 * service window; nothing about a particular template is known to the code.
 */

/** Meta's review status. Only an `APPROVED` template can be sent. */
export type TemplateStatus = 'APPROVED' | 'PENDING' | 'REJECTED' | 'PAUSED' | 'DISABLED' | 'IN_APPEAL' | 'PENDING_DELETION' | 'DELETED' | 'LIMIT_EXCEEDED' | 'ARCHIVED';

const TEMPLATE_STATUSES: readonly string[] = ['APPROVED', 'PENDING', 'REJECTED', 'PAUSED', 'DISABLED', 'IN_APPEAL', 'PENDING_DELETION', 'DELETED', 'LIMIT_EXCEEDED', 'ARCHIVED'];

/** `positional`: `{{1}}`, `{{2}}`… filled in order; `named`: `{{first_name}}`, filled by name. */
export type TemplateParameterFormat = 'positional' | 'named';

export interface TemplateButton {
  /** `QUICK_REPLY`, `URL`, `PHONE_NUMBER`, … as Meta names it. */
  readonly type: string;
  readonly text: string;
}

export interface WhatsAppTemplate {
  readonly name: string;
  /** Meta's language code (`pt_BR`, `en_US`): a template is one translation of a name. */
  readonly language: string;
  /** `MARKETING`, `UTILITY` or `AUTHENTICATION`. */
  readonly category: string;
  readonly status: TemplateStatus;
  /** Meta's id of this translation. */
  readonly metaTemplateId?: string;
  /** The body text with its placeholders, as approved. */
  readonly body: string;
  readonly parameterFormat: TemplateParameterFormat;
  /** The body's parameters in the order a send fills them: `1`, `2`… or the names. */
  readonly bodyParameters: readonly string[];
  readonly buttons: readonly TemplateButton[];
  /** When this record was last written (sync or status notification). */
  readonly updatedAt: IsoTimestamp;
  /** Meta's reason for a rejection, pause or disabling, from the status notification. */
  readonly statusReason?: string;
}

/** A template's identity: its name in one language. */
export interface TemplateRef {
  readonly name: string;
  readonly language: string;
}

/** Meta's `message_template_status_update` notification, parsed. */
export interface TemplateStatusUpdate extends TemplateRef {
  readonly status: TemplateStatus;
  readonly reason?: string;
  readonly at: IsoTimestamp;
}

/**
 * The status a `message_template_status_update` event leaves the template in: a flagged template
 * can still be sent until Meta pauses it, a reinstated one is approved again; `undefined` for an
 * event that is not a status.
 */
export function statusAfterEvent(event: unknown): TemplateStatus | undefined {
  if (event === 'FLAGGED' || event === 'REINSTATED') return 'APPROVED';
  return isTemplateStatus(event) ? event : undefined;
}

/** Meta's template names: lower-case letters, digits and underscores. */
const TEMPLATE_NAME = /^[a-z0-9_]{1,512}$/;
/** Meta's language codes: `pt_BR`, `en`, `es_MX`, `zh_Hans`… */
const LANGUAGE_CODE = /^[a-z]{2,3}(_[A-Za-z]{2,4})?$/;
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;
/** What WhatsApp refuses in a text parameter (Meta's error 132018): new lines, tabs, more than four spaces in a row. */
const PARAMETER_FORMAT_FORBIDDEN = /[\n\t]| {5,}/;
/** Meta's limit of a body text parameter. */
export const TEMPLATE_PARAMETER_MAX_CHARACTERS = 1024;

export function isTemplateName(value: unknown): value is string {
  return typeof value === 'string' && TEMPLATE_NAME.test(value);
}

export function isLanguageCode(value: unknown): value is string {
  return typeof value === 'string' && LANGUAGE_CODE.test(value);
}

export function isTemplateStatus(value: unknown): value is TemplateStatus {
  return typeof value === 'string' && TEMPLATE_STATUSES.includes(value);
}

/** A template's body parameters, in the order of their first appearance. */
export function bodyParametersOf(body: string): string[] {
  return [...new Set([...body.matchAll(PLACEHOLDER)].map((match) => match[1]))];
}

/** The template as Meta describes it (`GET /{waba-id}/message_templates`, a `GetWhatsAppMessageTemplate` answer); `undefined` when it is not one. */
export function templateFromMeta(raw: unknown, updatedAt: IsoTimestamp): WhatsAppTemplate | undefined {
  const item = raw as Record<string, unknown> | null;
  if (typeof item !== 'object' || item === null) return undefined;
  if (!isTemplateName(item.name) || !isLanguageCode(item.language) || !isTemplateStatus(item.status)) return undefined;
  const components = Array.isArray(item.components) ? (item.components as Array<Record<string, unknown> | null>) : [];
  const bodyComponent = components.find((component) => component?.type === 'BODY');
  const body = typeof bodyComponent?.text === 'string' ? bodyComponent.text : '';
  const buttons = components
    .filter((component) => component?.type === 'BUTTONS')
    .flatMap((component) => (Array.isArray(component!.buttons) ? (component!.buttons as Array<Record<string, unknown> | null>) : []))
    .filter((button) => typeof button?.type === 'string' && typeof button.text === 'string')
    .map((button) => ({ type: button!.type as string, text: button!.text as string }));
  return {
    name: item.name,
    language: item.language,
    category: typeof item.category === 'string' ? item.category : 'UNKNOWN',
    status: item.status,
    metaTemplateId: typeof item.id === 'string' ? item.id : undefined,
    body,
    parameterFormat: item.parameter_format === 'NAMED' ? 'named' : 'positional',
    bodyParameters: bodyParametersOf(body),
    buttons,
    updatedAt,
  };
}

/** The body as the customer reads it, the parameters filled in (for the conversation's history). */
export function renderTemplateBody(template: Pick<WhatsAppTemplate, 'body' | 'bodyParameters'>, values: readonly string[]): string {
  const byName = new Map(template.bodyParameters.map((name, index) => [name, values[index]]));
  return template.body.replace(PLACEHOLDER, (placeholder, name: string) => byName.get(name) ?? placeholder);
}

/**
 * Why these values cannot fill the template, in the words an operator acts on; `undefined` when they
 * can. The rules are Meta's, checked before a send so a refusal costs no request.
 */
export function templateValuesProblem(template: WhatsAppTemplate, values: readonly string[]): string | undefined {
  if (template.status !== 'APPROVED') return `The template ${template.name} (${template.language}) is ${template.status}, not approved: WhatsApp would refuse it`;
  if (values.length !== template.bodyParameters.length) return `The template ${template.name} takes ${template.bodyParameters.length} value(s); got ${values.length}`;
  const index = values.findIndex((value) => value.trim() === '' || value.length > TEMPLATE_PARAMETER_MAX_CHARACTERS || PARAMETER_FORMAT_FORBIDDEN.test(value));
  if (index >= 0) return `Value ${index + 1} must be 1 to ${TEMPLATE_PARAMETER_MAX_CHARACTERS} characters on one line, without tabs or more than four spaces in a row`;
  return undefined;
}
