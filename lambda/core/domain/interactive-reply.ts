/**
 * A reply the customer answers with a tap: up to three reply buttons, a list of rows in sections, or
 * a button that opens a web address. The reply's text is its body. Stored with the message as the
 * customer saw it, and sent as WhatsApp's `interactive` message by both channels.
 */
export type InteractiveReply = ReplyButtons | ChoiceList | LinkButton;

interface InteractiveFrame {
  /** Text above the body. */
  readonly header?: string;
  /** Small text under the body. */
  readonly footer?: string;
}

export interface ReplyButtons extends InteractiveFrame {
  readonly kind: 'buttons';
  readonly buttons: readonly InteractiveOption[];
}

export interface ChoiceList extends InteractiveFrame {
  readonly kind: 'list';
  /** The label of the button that opens the list. */
  readonly button: string;
  readonly sections: readonly ChoiceSection[];
}

export interface ChoiceSection {
  /** Required by WhatsApp when the list has more than one section. */
  readonly title?: string;
  readonly rows: readonly InteractiveOption[];
}

export interface LinkButton extends InteractiveFrame {
  readonly kind: 'cta_url';
  readonly displayText: string;
  readonly url: string;
}

/** A button or a list row: the id WhatsApp returns when the customer taps it, and what they read. */
export interface InteractiveOption {
  readonly id: string;
  readonly title: string;
  /** List rows only. */
  readonly description?: string;
}

export type InteractiveKind = InteractiveReply['kind'];

/**
 * WhatsApp's limits on interactive messages (Meta's Cloud API reference: "Interactive reply buttons
 * messages", "Interactive list messages", "Interactive Call-to-Action URL Button Messages"), in characters.
 */
export const INTERACTIVE_LIMITS = {
  body: 1024,
  header: 60,
  footer: 60,
  buttons: 3,
  buttonTitle: 20,
  buttonId: 256,
  listButton: 20,
  sections: 10,
  rows: 10,
  sectionTitle: 24,
  rowTitle: 24,
  rowDescription: 72,
  rowId: 200,
  displayText: 20,
  url: 2000,
} as const;

/**
 * What keeps `interactive` with `body` from going out as WhatsApp's interactive message, each
 * naming the part; empty when it is within every limit.
 */
export function interactiveProblems(body: string, interactive: InteractiveReply): string[] {
  const L = INTERACTIVE_LIMITS;
  const problems = [
    ...bounded('the body', body, L.body, true),
    ...bounded('the header', interactive.header, L.header),
    ...bounded('the footer', interactive.footer, L.footer),
  ];
  if (interactive.kind === 'buttons') {
    if (interactive.buttons.length === 0 || interactive.buttons.length > L.buttons) problems.push(`a reply has 1 to ${L.buttons} buttons, not ${interactive.buttons.length}`);
    problems.push(...optionProblems('button', interactive.buttons, L.buttonTitle, L.buttonId));
    if (new Set(interactive.buttons.map(({ title }) => title)).size !== interactive.buttons.length) problems.push('button titles must differ');
  } else if (interactive.kind === 'list') {
    const rows = interactive.sections.flatMap((section) => section.rows);
    problems.push(...bounded('the list button', interactive.button, L.listButton, true));
    if (interactive.sections.length === 0 || interactive.sections.length > L.sections) problems.push(`a list has 1 to ${L.sections} sections, not ${interactive.sections.length}`);
    if (rows.length === 0 || rows.length > L.rows) problems.push(`a list has 1 to ${L.rows} rows in all, not ${rows.length}`);
    if (interactive.sections.some((section) => section.rows.length === 0)) problems.push('every section needs a row');
    for (const section of interactive.sections) {
      problems.push(...bounded('a section title', section.title, L.sectionTitle, interactive.sections.length > 1));
    }
    problems.push(...optionProblems('row', rows, L.rowTitle, L.rowId));
    for (const row of rows) problems.push(...bounded(`the description of row ${row.id}`, row.description, L.rowDescription));
  } else {
    problems.push(...bounded('the display text', interactive.displayText, L.displayText, true));
    if (!isWebAddress(interactive.url) || interactive.url.length > L.url) problems.push('the url must be an http(s) address');
  }
  return problems;
}

/** The same content as plain text: the body, then each option on a line of its own (the link after its text). */
export function interactiveAsText(body: string, interactive: InteractiveReply): string {
  const lines = [interactive.header, body, ''];
  if (interactive.kind === 'buttons') lines.push(...interactive.buttons.map(({ title }) => `• ${title}`));
  else if (interactive.kind === 'list') {
    for (const section of interactive.sections) {
      if (section.title) lines.push(`${section.title}:`);
      lines.push(...section.rows.map(({ title, description }) => `• ${title}${description ? ` — ${description}` : ''}`));
    }
  } else lines.push(`${interactive.displayText}: ${interactive.url}`);
  return [...lines, ...(interactive.footer ? ['', interactive.footer] : [])].filter((line) => line !== undefined).join('\n').trim();
}

/** How an interactive reply went out: as WhatsApp's interactive message, or as plain text because it broke a limit. */
export type InteractiveOutcome = 'interactive' | 'text_fallback';

/** The reply the customer is sent: the interactive message when it is within WhatsApp's limits, else the same content as text. */
export function shownReply(text: string, interactive: InteractiveReply | undefined): { readonly text: string; readonly interactive?: InteractiveReply; readonly outcome?: InteractiveOutcome } {
  if (interactive === undefined) return { text };
  if (interactiveProblems(text, interactive).length === 0) return { text, interactive, outcome: 'interactive' };
  return { text: interactiveAsText(text, interactive), outcome: 'text_fallback' };
}

/** The option of `interactive` with this id, when there is one. */
export function interactiveOption(interactive: InteractiveReply | undefined, id: string): InteractiveOption | undefined {
  if (interactive?.kind === 'buttons') return interactive.buttons.find((button) => button.id === id);
  if (interactive?.kind === 'list') return interactive.sections.flatMap((section) => section.rows).find((row) => row.id === id);
  return undefined;
}

/**
 * Reads an interactive reply from JSON (a model's tool input, a consumer function's answer, an
 * operator's request): its shape only — the limits are {@link interactiveProblems}'s. Never throws.
 */
export function parseInteractiveReply(input: unknown): { readonly interactive: InteractiveReply } | { readonly problems: readonly string[] } {
  if (!isRecord(input)) return { problems: ['interactive must be an object'] };
  const problems: string[] = [];
  const text = (value: unknown, name: string, required = true): string | undefined => {
    if (value === undefined && !required) return undefined;
    if (typeof value === 'string' && value.trim() !== '') return value;
    problems.push(`${name} must be a non-empty string`);
    return '';
  };
  const list = (value: unknown, name: string): unknown[] => {
    if (Array.isArray(value)) return value;
    problems.push(`${name} must be an array`);
    return [];
  };
  const option = (value: unknown, name: string): InteractiveOption => {
    const record = isRecord(value) ? value : {};
    if (!isRecord(value)) problems.push(`${name} must be an object`);
    const description = text(record.description, `${name}.description`, false);
    return { id: text(record.id, `${name}.id`)!, title: text(record.title, `${name}.title`)!, ...(description === undefined ? {} : { description }) };
  };
  const header = text(input.header, 'header', false);
  const footer = text(input.footer, 'footer', false);
  const frame = { ...(header === undefined ? {} : { header }), ...(footer === undefined ? {} : { footer }) };
  let interactive: InteractiveReply;
  if (input.kind === 'buttons') {
    interactive = { kind: 'buttons', buttons: list(input.buttons, 'buttons').map((button, index) => option(button, `buttons[${index}]`)), ...frame };
  } else if (input.kind === 'list') {
    const sections = list(input.sections, 'sections').map((section, index): ChoiceSection => {
      const record = isRecord(section) ? section : {};
      const title = text(record.title, `sections[${index}].title`, false);
      return { ...(title === undefined ? {} : { title }), rows: list(record.rows, `sections[${index}].rows`).map((row, at) => option(row, `sections[${index}].rows[${at}]`)) };
    });
    interactive = { kind: 'list', button: text(input.button, 'button')!, sections, ...frame };
  } else if (input.kind === 'cta_url') {
    interactive = { kind: 'cta_url', displayText: text(input.displayText, 'displayText')!, url: text(input.url, 'url')!, ...frame };
  } else {
    return { problems: ['kind must be one of buttons, list, cta_url'] };
  }
  return problems.length === 0 ? { interactive } : { problems };
}

function bounded(name: string, value: string | undefined, limit: number, required = false): string[] {
  if (value === undefined || value.trim() === '') return required ? [`${name} is required`] : [];
  return [...value].length > limit ? [`${name} has ${[...value].length} characters, more than ${limit}`] : [];
}

function optionProblems(kind: 'button' | 'row', options: readonly InteractiveOption[], titleLimit: number, idLimit: number): string[] {
  const problems = options.flatMap((option) => [...bounded(`the title of ${kind} ${option.id}`, option.title, titleLimit, true), ...bounded(`the id of ${kind} ${option.title}`, option.id, idLimit, true)]);
  if (new Set(options.map(({ id }) => id)).size !== options.length) problems.push(`${kind} ids must differ`);
  return problems;
}

function isWebAddress(url: string): boolean {
  try {
    return ['https:', 'http:'].includes(new URL(url).protocol);
  } catch {
    return false;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
