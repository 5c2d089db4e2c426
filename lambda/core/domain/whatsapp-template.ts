import type { IsoTimestamp } from './timestamps';

/**
 * The business's approved WhatsApp message templates, as data: what Meta holds for the WhatsApp
 * Business Account (name, language, category, status, header, body with its parameters, buttons), read into
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
  /** `QUICK_REPLY`, `URL`, `PHONE_NUMBER`, `COPY_CODE`, … as Meta names it. */
  readonly type: string;
  /** The label; a copy-code button has none of its own, so WhatsApp's is stored. */
  readonly text: string;
  /** A URL button's address; ending in `{{1}}` when each send fills in its end. */
  readonly url?: string;
  /** Meta's example: a dynamic URL as it would open, or a copy-code button's code. */
  readonly example?: string;
}

/** The header: text (with at most one parameter) or a media a send names (`IMAGE`, `DOCUMENT`, `VIDEO`), or `LOCATION`. */
export interface TemplateHeader {
  /** As Meta names it: `TEXT`, `IMAGE`, `DOCUMENT`, `VIDEO`, `LOCATION`. */
  readonly format: string;
  /** A text header's text with its placeholder, as approved. */
  readonly text?: string;
  /** Meta's example of the text header's value, or of the media (a link to the sample). */
  readonly example?: string;
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
  /** Absent when the template has no header. */
  readonly header?: TemplateHeader;
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
    .map(buttonFromMeta)
    .filter((button): button is TemplateButton => button !== undefined);
  const header = headerFromMeta(components.find((component) => component?.type === 'HEADER'));
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
    ...(header === undefined ? {} : { header }),
    updatedAt,
  };
}

/** WhatsApp's label of a copy-code button, which a template cannot change. */
const COPY_CODE_LABEL = 'Copy offer code';

function buttonFromMeta(button: Record<string, unknown> | null): TemplateButton | undefined {
  if (typeof button?.type !== 'string') return undefined;
  const text = typeof button.text === 'string' ? button.text : button.type === 'COPY_CODE' ? COPY_CODE_LABEL : undefined;
  if (text === undefined) return undefined;
  // A URL button's example is a list (one URL); a copy-code button's is the code itself.
  const example = Array.isArray(button.example) ? button.example[0] : button.example;
  return {
    type: button.type,
    text,
    ...(typeof button.url === 'string' ? { url: button.url } : {}),
    ...(typeof example === 'string' ? { example } : {}),
  };
}

function headerFromMeta(component: Record<string, unknown> | null | undefined): TemplateHeader | undefined {
  if (typeof component?.format !== 'string') return undefined;
  const example = (component.example ?? {}) as { header_text?: unknown; header_text_named_params?: Array<{ example?: unknown }>; header_handle?: unknown; header_url?: unknown };
  const sample = [firstOf(example.header_text), example.header_text_named_params?.[0]?.example, firstOf(example.header_url), firstOf(example.header_handle)].find((value) => typeof value === 'string');
  return {
    format: component.format.toUpperCase(),
    ...(typeof component.text === 'string' ? { text: component.text } : {}),
    ...(typeof sample === 'string' ? { example: sample } : {}),
  };
}

const firstOf = (value: unknown): unknown => (Array.isArray(value) ? value[0] : undefined);

/** The body as the customer reads it, the parameters filled in (for the conversation's history). */
export function renderTemplateBody(template: Pick<WhatsAppTemplate, 'body' | 'bodyParameters'>, values: readonly string[]): string {
  const byName = new Map(template.bodyParameters.map((name, index) => [name, values[index]]));
  return template.body.replace(PLACEHOLDER, (placeholder, name: string) => byName.get(name) ?? placeholder);
}
