import { bodyParametersOf, type WhatsAppTemplate } from './whatsapp-template';

/**
 * What a send of a template must give besides its name: a value for each parameter of each
 * component, as Meta checks it (the header's text or media, the body's texts, a URL button's
 * suffix, a copy-code button's code), read from the synced template so nothing about a particular
 * template is known to the code.
 */

export type TemplateParameterKind = 'text' | 'image' | 'document' | 'video' | 'coupon_code';

/** One value a send must give, where Meta expects it. */
export interface TemplateParameter {
  readonly component: 'header' | 'body' | 'button';
  readonly kind: TemplateParameterKind;
  /** A header or body text's placeholder (`1`, `first_name`); sent as `parameter_name` when {@link named}. */
  readonly placeholder?: string;
  readonly named: boolean;
  /** A button's position among the template's buttons (Meta's `index`) and its label. */
  readonly button?: { readonly index: number; readonly text: string };
  /** Meta's example value, to show whoever fills it in. */
  readonly example?: string;
}

/** The values of one send: the body's in the order of its parameters, the header's, each button's by index. */
export interface TemplateValues {
  readonly body: readonly string[];
  /** A text header's value, or a media header's `https://` link or uploaded media id. */
  readonly header?: string;
  /** A URL button's suffix or a copy-code button's code, by the button's index. */
  readonly buttons?: readonly { readonly index: number; readonly value: string }[];
}

export interface FilledTemplateParameter extends TemplateParameter {
  readonly value: string;
}

const MEDIA_FORMATS: Readonly<Record<string, TemplateParameterKind>> = { IMAGE: 'image', DOCUMENT: 'document', VIDEO: 'video' };
/** A dynamic URL button ends in its one placeholder. */
const URL_SUFFIX_PLACEHOLDER = /\{\{\s*1\s*\}\}$/;
/** What WhatsApp refuses in a text parameter (Meta's error 132018): new lines, tabs, more than four spaces in a row. */
const PARAMETER_FORMAT_FORBIDDEN = /[\n\t]| {5,}/;
/** Meta's limit of a body text parameter. */
const TEMPLATE_PARAMETER_MAX_CHARACTERS = 1024;
/** Meta's limit of a text header, its value included. */
const HEADER_TEXT_MAX_CHARACTERS = 60;
/** Meta's limit of a copy-code button's code. */
const COUPON_CODE_MAX_CHARACTERS = 15;
/** Meta's limit of a button's URL, its suffix included. */
const BUTTON_URL_MAX_CHARACTERS = 2000;
/** An upload's id, as `POST /{phone-number-id}/media` answers it. */
const MEDIA_ID = /^\d{1,32}$/;

/** Every parameter a send of this template fills, header first, then the body's, then the buttons'. */
export function templateParametersOf(template: Pick<WhatsAppTemplate, 'header' | 'bodyParameters' | 'parameterFormat' | 'buttons'>): TemplateParameter[] {
  const named = template.parameterFormat === 'named';
  const parameters: TemplateParameter[] = [];
  const { header } = template;
  const media = header && MEDIA_FORMATS[header.format];
  if (header !== undefined && media !== undefined) parameters.push({ component: 'header', kind: media, named: false, ...exampleOf(header) });
  const headerPlaceholder = header?.format === 'TEXT' ? bodyParametersOf(header.text ?? '')[0] : undefined;
  if (header !== undefined && headerPlaceholder !== undefined) parameters.push({ component: 'header', kind: 'text', placeholder: headerPlaceholder, named, ...exampleOf(header) });
  for (const placeholder of template.bodyParameters) parameters.push({ component: 'body', kind: 'text', placeholder, named });
  template.buttons.forEach((button, index) => {
    const kind = button.type === 'COPY_CODE' ? 'coupon_code' : button.type === 'URL' && URL_SUFFIX_PLACEHOLDER.test(button.url ?? '') ? 'text' : undefined;
    if (kind !== undefined) parameters.push({ component: 'button', kind, named: false, button: { index, text: button.text }, ...exampleOf(button) });
  });
  return parameters;
}

/** Whether a template takes any value beyond its body's (a header's, a button's). */
export function takesMoreThanBody(template: Parameters<typeof templateParametersOf>[0]): boolean {
  return templateParametersOf(template).some((parameter) => parameter.component !== 'body');
}

/**
 * The parameters filled with these values, or why they cannot fill the template — in words that
 * name the parameter an operator acts on. The rules are Meta's, checked before a send so a refusal
 * costs no request and writes nothing.
 */
export function fillTemplateParameters(template: WhatsAppTemplate, values: TemplateValues): { readonly filled: FilledTemplateParameter[] } | { readonly problem: string } {
  const refuse = (problem: string) => ({ problem: `${template.name} (${template.language}): ${problem}` });
  if (template.status !== 'APPROVED') return refuse(`the template is ${template.status}, not approved: WhatsApp would refuse it`);
  const parameters = templateParametersOf(template);
  const body = parameters.filter((parameter) => parameter.component === 'body');
  if (values.body.length !== body.length) return refuse(`the body takes ${body.length} value(s); got ${values.body.length}`);
  const header = parameters.find((parameter) => parameter.component === 'header');
  if (header === undefined && values.header !== undefined) return refuse('the template has no header value to fill');
  const buttons = parameters.filter((parameter) => parameter.component === 'button');
  const unknownButton = (values.buttons ?? []).find((given) => !buttons.some((parameter) => parameter.button?.index === given.index));
  if (unknownButton !== undefined) return refuse(`button ${unknownButton.index} takes no value`);
  const filled: FilledTemplateParameter[] = [];
  for (const parameter of parameters) {
    const value = parameter.component === 'body' ? values.body[body.indexOf(parameter)] : parameter.component === 'header' ? values.header : values.buttons?.find((given) => given.index === parameter.button?.index)?.value;
    const problem = value === undefined || value.trim() === '' ? `${describeParameter(parameter)} is missing` : valueProblem(template, parameter, value);
    if (problem !== undefined) return refuse(problem);
    filled.push({ ...parameter, value: value! });
  }
  return { filled };
}

/** How an operator knows the parameter: “the body value {{2}}”, “the header image”, “the link ending of the button “Shop” (index 0)”. */
function describeParameter(parameter: TemplateParameter): string {
  if (parameter.component === 'body') return `the body value {{${parameter.placeholder}}}`;
  if (parameter.component === 'header') return parameter.kind === 'text' ? `the header value {{${parameter.placeholder}}}` : `the header ${parameter.kind}`;
  return parameter.kind === 'coupon_code' ? `the code of the copy-code button (index ${parameter.button?.index})` : `the link ending of the button “${parameter.button?.text}” (index ${parameter.button?.index})`;
}

/** A media header's value as Meta takes it: an uploaded media's `id`, or a `link`. */
export function mediaReference(value: string): { readonly id: string } | { readonly link: string } {
  return MEDIA_ID.test(value) ? { id: value } : { link: value };
}

function valueProblem(template: WhatsAppTemplate, parameter: TemplateParameter, value: string): string | undefined {
  const name = describeParameter(parameter);
  if (parameter.kind === 'image' || parameter.kind === 'document' || parameter.kind === 'video') {
    return MEDIA_ID.test(value) || isHttpsLink(value) ? undefined : `${name} must be an https:// link or an uploaded media id`;
  }
  if (parameter.kind === 'coupon_code') {
    return value.length <= COUPON_CODE_MAX_CHARACTERS && !/\s/.test(value) ? undefined : `${name} must be 1 to ${COUPON_CODE_MAX_CHARACTERS} characters without spaces`;
  }
  if (parameter.component === 'button') {
    const url = template.buttons[parameter.button!.index].url ?? '';
    return !/\s/.test(value) && url.replace(URL_SUFFIX_PLACEHOLDER, value).length <= BUTTON_URL_MAX_CHARACTERS ? undefined : `${name} must have no spaces and keep the link within ${BUTTON_URL_MAX_CHARACTERS} characters`;
  }
  const limit = parameter.component === 'header' ? HEADER_TEXT_MAX_CHARACTERS - (template.header?.text ?? '').replace(/\{\{[^}]*\}\}/, '').length : TEMPLATE_PARAMETER_MAX_CHARACTERS;
  if (value.length > limit || PARAMETER_FORMAT_FORBIDDEN.test(value)) return `${name} must be 1 to ${limit} characters on one line, without tabs or more than four spaces in a row`;
  return undefined;
}

function isHttpsLink(value: string): boolean {
  try {
    return new URL(value).protocol === 'https:' && value.length <= BUTTON_URL_MAX_CHARACTERS;
  } catch {
    return false;
  }
}

const exampleOf = (from: { readonly example?: string }) => (from.example === undefined ? {} : { example: from.example });
