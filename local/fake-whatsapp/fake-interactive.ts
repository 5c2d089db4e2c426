/**
 * The fake Graph API's checks of an `interactive` message (reply buttons, a list, a call-to-action
 * URL button), written from Meta's Cloud API reference rather than from the pipeline's own limits,
 * so a test sees a payload Meta would refuse: a missing part is `(#100) Invalid parameter`, a value
 * beyond a limit `(#131009) Parameter value is not valid`, as Meta answers.
 */

export interface AcceptedInteractive {
  readonly type: 'button' | 'list' | 'cta_url';
  readonly header?: { readonly type: 'text'; readonly text: string };
  readonly body: { readonly text: string };
  readonly footer?: { readonly text: string };
  readonly action: {
    readonly buttons?: ReadonlyArray<{ readonly type: 'reply'; readonly reply: { readonly id: string; readonly title: string } }>;
    readonly button?: string;
    readonly sections?: ReadonlyArray<{ readonly title?: string; readonly rows: ReadonlyArray<{ readonly id: string; readonly title: string; readonly description?: string }> }>;
    readonly name?: 'cta_url';
    readonly parameters?: { readonly display_text: string; readonly url: string };
  };
}

export interface InteractiveRefusal {
  readonly problem: string;
  readonly code: number;
  readonly message: string;
}

const INVALID_VALUE = { code: 131009, message: '(#131009) Parameter value is not valid' };
const INVALID_PARAMETER = { code: 100, message: '(#100) Invalid parameter' };

/** The interactive object of a send when Meta would accept it; else Meta's refusal. */
export function checkInteractive(raw: unknown): AcceptedInteractive | InteractiveRefusal {
  const refuse = (problem: string, kind = INVALID_VALUE): InteractiveRefusal => ({ problem, ...kind });
  if (!isRecord(raw) || !['button', 'list', 'cta_url'].includes(raw.type as string)) return refuse("interactive['type'] must be button, list or cta_url.", INVALID_PARAMETER);
  const interactive = raw as unknown as AcceptedInteractive;
  const tooLong = (value: unknown, limit: number) => typeof value !== 'string' || value.trim() === '' || [...value].length > limit;
  if (!isRecord(interactive.body) || tooLong(interactive.body.text, 1024)) return refuse("interactive['body']['text'] is required, at most 1024 characters.");
  if (interactive.header !== undefined && (interactive.header.type !== 'text' || tooLong(interactive.header.text, 60))) return refuse("interactive['header'] must be a text of at most 60 characters.");
  if (interactive.footer !== undefined && tooLong(interactive.footer.text, 60)) return refuse("interactive['footer']['text'] must be at most 60 characters.");
  const action = interactive.action;
  if (!isRecord(action)) return refuse("interactive['action'] is required.", INVALID_PARAMETER);

  if (interactive.type === 'button') {
    const buttons = action.buttons;
    if (!Array.isArray(buttons) || buttons.length === 0 || buttons.length > 3) return refuse('A reply buttons message has 1 to 3 buttons.');
    if (buttons.some((button) => button?.type !== 'reply' || tooLong(button.reply?.title, 20) || tooLong(button.reply?.id, 256))) return refuse('Each button is a reply with a title of at most 20 characters and an id of at most 256.');
    if (new Set(buttons.map((button) => button.reply.title)).size !== buttons.length || new Set(buttons.map((button) => button.reply.id)).size !== buttons.length) return refuse('Button titles and ids must be unique.');
    return interactive;
  }
  if (interactive.type === 'list') {
    const sections = action.sections;
    if (tooLong(action.button, 20)) return refuse("interactive['action']['button'] is required, at most 20 characters.");
    if (!Array.isArray(sections) || sections.length === 0 || sections.length > 10) return refuse('A list has 1 to 10 sections.');
    if (sections.length > 1 && sections.some((section) => tooLong(section.title, 24))) return refuse('Each section of a list of several has a title of at most 24 characters.');
    if (sections.some((section) => section.title !== undefined && tooLong(section.title, 24))) return refuse('A section title has at most 24 characters.');
    const rows = sections.flatMap((section) => (Array.isArray(section.rows) ? section.rows : []));
    if (sections.some((section) => !Array.isArray(section.rows) || section.rows.length === 0) || rows.length > 10) return refuse('A list has 1 to 10 rows in all, none of its sections empty.');
    if (rows.some((row) => tooLong(row.title, 24) || tooLong(row.id, 200) || (row.description !== undefined && tooLong(row.description, 72)))) return refuse('Each row has a title of at most 24 characters, an id of at most 200 and a description of at most 72.');
    if (new Set(rows.map((row) => row.id)).size !== rows.length) return refuse('Row ids must be unique.');
    return interactive;
  }
  const parameters = action.parameters;
  if (action.name !== 'cta_url' || !isRecord(parameters)) return refuse("interactive['action'] of a cta_url has the name cta_url and its parameters.", INVALID_PARAMETER);
  if (tooLong(parameters.display_text, 20)) return refuse('display_text is required, at most 20 characters.');
  if (typeof parameters.url !== 'string' || !/^https?:\/\/\S+$/.test(parameters.url)) return refuse('url must be an http(s) address.');
  return interactive;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
