import { bodyParametersOf, renderTemplateBody } from '../../lambda/core/domain/whatsapp-template';

/**
 * The fake Graph API's reading of a template send (`type: template`) and Meta's checks of it
 * against the business's template: the template must exist in the language (132001) and be
 * sendable (132015 paused, 132016 disabled); every component — the header, the body, each button
 * that takes a value — must carry as many parameters as the template's definition has (132000,
 * "Number of parameters does not match the expected number of params") of the kind it defines
 * (132012, "Parameter format does not match format in the created template": a media header sent
 * as text, a copy-code button sent as a URL, a name that is not the template's); a text may not
 * hold a new line, a tab or more than four spaces in a row (132018). Codes and titles are those of
 * Meta's error-code reference; the `details` texts are the fake's own, naming the component.
 */

/** A component of a template as `GET /{wabaId}/message_templates` lists it (the fields the pipeline reads). */
export interface FakeTemplateComponent {
  readonly type: string;
  readonly text?: string;
  /** A header's: `TEXT`, `IMAGE`, `DOCUMENT`, `VIDEO`, `LOCATION`. */
  readonly format?: string;
  /** Meta's examples: `header_text`, `header_handle`, `body_text`… */
  readonly example?: unknown;
  readonly buttons?: readonly FakeTemplateButton[];
}

export interface FakeTemplateButton {
  readonly type: string;
  /** A copy-code button has none (WhatsApp's label). */
  readonly text?: string;
  /** A URL button's address; `{{1}}` at its end when a send fills the suffix. */
  readonly url?: string;
  /** A URL button's example URLs, or a copy-code button's example code. */
  readonly example?: unknown;
}

/** The template a send names, as {@link parseTemplateSend} read it. */
export interface AcceptedTemplate {
  readonly name: string;
  readonly language: string;
  /** The body's parameters as sent. */
  readonly parameters: readonly AcceptedTextParameter[];
  /** The header's parameter as sent: a text, or a media by `link` or uploaded `id`. */
  readonly header?: AcceptedTextParameter | { readonly type: string; readonly link?: string; readonly id?: string };
  /** Each button component as sent: its index, its sub-type and its value (a URL's suffix, a code). */
  readonly buttons?: readonly { readonly index: number; readonly subType: string; readonly type: string; readonly value: string }[];
}

export interface AcceptedTextParameter {
  readonly type: string;
  readonly text: string;
  readonly name?: string;
}

/** The part of a template definition the checks read. */
export interface CheckedTemplateDefinition {
  readonly name: string;
  readonly language: string;
  readonly status: string;
  readonly parameter_format?: 'POSITIONAL' | 'NAMED';
  readonly components: readonly FakeTemplateComponent[];
}

export type TemplateSendRefusal = { readonly problem: string; readonly code: number; readonly message: string };

const MEDIA_FORMATS = ['IMAGE', 'DOCUMENT', 'VIDEO'];

/** The `template` object of a send: a name, a language code, and its `header`, `body` and `button` components. */
export function parseTemplateSend(raw: unknown): AcceptedTemplate | { readonly problem: string } {
  const template = raw as { name?: unknown; language?: { code?: unknown }; components?: unknown } | undefined;
  if (typeof template?.name !== 'string' || template.name === '') return { problem: "The parameter template['name'] is required." };
  if (typeof template.language?.code !== 'string' || template.language.code === '') return { problem: "The parameter template['language']['code'] is required." };
  const components = template.components ?? [];
  if (!Array.isArray(components)) return { problem: "Param template['components'] must be an array." };
  const parameters: AcceptedTextParameter[] = [];
  const buttons: NonNullable<AcceptedTemplate['buttons']>[number][] = [];
  let header: AcceptedTemplate['header'];
  for (const [position, component] of (components as Array<{ type?: unknown; sub_type?: unknown; index?: unknown; parameters?: unknown } | null>).entries()) {
    if (!Array.isArray(component?.parameters)) return { problem: `Param template['components'][${position}]['parameters'] must be an array.` };
    const sent = component.parameters as Array<Record<string, unknown> | null>;
    if (component.type === 'body') {
      for (const parameter of sent) {
        if (typeof parameter?.type !== 'string' || typeof parameter.text !== 'string' || parameter.text === '') return { problem: 'Every body parameter needs a type and a non-empty text.' };
        parameters.push(textParameter(parameter));
      }
    } else if (component.type === 'header') {
      if (sent.length > 1) return { problem: 'A header takes at most one parameter.' };
      header = sent[0] === undefined ? undefined : headerParameter(sent[0]);
      if (sent[0] !== undefined && header === undefined) return { problem: 'The header parameter needs a text, or a media with a link or an id.' };
    } else if (component.type === 'button') {
      const index = Number(component.index);
      if (!Number.isSafeInteger(index) || index < 0 || typeof component.sub_type !== 'string') return { problem: 'A button component needs a sub_type and an index.' };
      const [parameter] = sent;
      const value = parameter?.type === 'coupon_code' ? parameter.coupon_code : parameter?.text;
      if (sent.length !== 1 || typeof parameter?.type !== 'string' || typeof value !== 'string' || value === '') return { problem: `Button ${index} takes one parameter with a value.` };
      buttons.push({ index, subType: component.sub_type, type: parameter.type, value });
    } else {
      return { problem: `Component type ${String(component.type)} is not supported here.` };
    }
  }
  return { name: template.name, language: template.language.code, parameters, ...(header === undefined ? {} : { header }), ...(buttons.length === 0 ? {} : { buttons }) };
}

/** Meta's checks of a template send against the business's templates; the body as delivered when it passes. */
export function checkTemplateSend(templates: readonly CheckedTemplateDefinition[], send: AcceptedTemplate): { readonly text: string } | TemplateSendRefusal {
  const translations = templates.filter((template) => template.name === send.name);
  const template = translations.find((candidate) => candidate.language === send.language);
  if (template === undefined) {
    const elsewhere = translations.length === 0 ? '' : `; it exists in ${translations.map((candidate) => candidate.language).join(', ')}`;
    return { code: 132001, message: '(#132001) Template name does not exist in the translation', problem: `template name (${send.name}) does not exist in ${send.language}${elsewhere}` };
  }
  if (template.status === 'PAUSED') return { code: 132015, message: '(#132015) Template is Paused', problem: 'Template is paused due to low quality so it cannot be sent in a template message.' };
  if (template.status === 'DISABLED') return { code: 132016, message: '(#132016) Template is Disabled', problem: 'Template has been paused too many times due to low quality and is now permanently disabled.' };
  if (template.status !== 'APPROVED') return { code: 132001, message: '(#132001) Template name does not exist in the translation', problem: `template (${send.name}) is ${template.status}, not approved` };
  const named = template.parameter_format === 'NAMED';
  const body = template.components.find((component) => component.type === 'BODY')?.text ?? '';
  const expected = bodyParametersOf(body);
  const refusal = checkHeader(template, send, named) ?? checkTexts('body', send.parameters, expected, named) ?? checkButtons(template, send);
  if (refusal !== undefined) return refusal;
  const texts = [...send.parameters, ...(send.header !== undefined && 'text' in send.header ? [send.header] : []), ...(send.buttons ?? [])];
  if (texts.some((parameter) => /[\n\t]| {5,}/.test('text' in parameter ? parameter.text : parameter.value))) {
    return { code: 132018, message: '(#132018) There was an issue with the parameters in your template.', problem: 'Param text cannot have new-line/tab characters or more than 4 consecutive spaces' };
  }
  return { text: renderTemplateBody({ body, bodyParameters: expected }, send.parameters.map((parameter) => parameter.text)) };
}

function checkHeader(template: CheckedTemplateDefinition, send: AcceptedTemplate, named: boolean): TemplateSendRefusal | undefined {
  const header = template.components.find((component) => component.type === 'HEADER');
  const format = header?.format?.toUpperCase();
  if (format !== undefined && MEDIA_FORMATS.includes(format)) {
    if (send.header === undefined) return countMismatch('header', 0, 1);
    const kind = send.header.type.toUpperCase();
    return kind === format ? undefined : formatMismatch(`header: Format mismatch, expected ${format}, received ${kind}`);
  }
  const expected = format === 'TEXT' ? bodyParametersOf(header?.text ?? '') : [];
  const sent = send.header === undefined ? [] : [send.header];
  if (sent.some((parameter) => !('text' in parameter))) return formatMismatch(`header: Format mismatch, expected ${format ?? 'no parameter'}, received ${sent[0].type.toUpperCase()}`);
  return checkTexts('header', sent as AcceptedTextParameter[], expected, named);
}

function checkTexts(component: string, sent: readonly AcceptedTextParameter[], expected: readonly string[], named: boolean): TemplateSendRefusal | undefined {
  if (sent.length !== expected.length) return countMismatch(component, sent.length, expected.length);
  const misnamed = sent.findIndex((parameter, index) => parameter.type !== 'text' || (named ? parameter.name !== expected[index] : parameter.name !== undefined));
  return misnamed < 0 ? undefined : formatMismatch(`${component}: parameter ${misnamed + 1} does not match the template's format`);
}

/** Each button that takes a value (a URL ending in `{{1}}`, a copy-code button) gets exactly one, of its kind; no other button gets any. */
function checkButtons(template: CheckedTemplateDefinition, send: AcceptedTemplate): TemplateSendRefusal | undefined {
  const defined = template.components.filter((component) => component.type === 'BUTTONS').flatMap((component) => component.buttons ?? []);
  const sent = send.buttons ?? [];
  for (const [index, button] of defined.entries()) {
    const expected = button.type === 'COPY_CODE' ? { subType: 'copy_code', type: 'coupon_code' } : button.type === 'URL' && /\{\{\s*1\s*\}\}$/.test(button.url ?? '') ? { subType: 'url', type: 'text' } : undefined;
    const given = sent.filter((candidate) => candidate.index === index);
    if (given.length !== (expected === undefined ? 0 : 1)) return countMismatch(`buttons: button at index ${index}`, given.length, expected === undefined ? 0 : 1);
    if (expected !== undefined && (given[0].subType !== expected.subType || given[0].type !== expected.type)) {
      return formatMismatch(`buttons: button at index ${index} is ${button.type}, received sub_type ${given[0].subType} with a ${given[0].type} parameter`);
    }
  }
  const beyond = sent.find((candidate) => candidate.index >= defined.length);
  return beyond === undefined ? undefined : countMismatch(`buttons: button at index ${beyond.index}`, 1, 0);
}

function textParameter(parameter: Record<string, unknown>): AcceptedTextParameter {
  return { type: parameter.type as string, text: parameter.text as string, ...(typeof parameter.parameter_name === 'string' ? { name: parameter.parameter_name } : {}) };
}

function headerParameter(parameter: Record<string, unknown> | null): AcceptedTemplate['header'] {
  if (typeof parameter?.type !== 'string') return undefined;
  if (parameter.type === 'text') return typeof parameter.text === 'string' && parameter.text !== '' ? textParameter(parameter) : undefined;
  const media = parameter[parameter.type] as { link?: unknown; id?: unknown } | undefined;
  if (typeof media?.link === 'string' && /^https?:\/\//.test(media.link)) return { type: parameter.type, link: media.link };
  if (typeof media?.id === 'string' && media.id !== '') return { type: parameter.type, id: media.id };
  return undefined;
}

const countMismatch = (component: string, sent: number, expected: number): TemplateSendRefusal => ({
  code: 132000,
  message: '(#132000) Number of parameters does not match the expected number of params',
  problem: `${component}: number of localizable_params (${sent}) does not match the expected number of params (${expected})`,
});

const formatMismatch = (problem: string): TemplateSendRefusal => ({ code: 132012, message: '(#132012) Parameter format does not match format in the created template', problem });
