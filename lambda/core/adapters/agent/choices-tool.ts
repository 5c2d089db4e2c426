import type { ContentBlock, Tool, ToolInputSchema, ToolUseBlock } from '@aws-sdk/client-bedrock-runtime';
import { INTERACTIVE_LIMITS as L, type InteractiveReply, parseInteractiveReply } from '../../domain/interactive-reply';

/**
 * The tool the model calls to show the customer buttons, a list or a link button under its reply.
 * A tool rather than structured output: every reply stays the model's plain text, as with every
 * backend and every other tool, and only a reply that offers choices carries them.
 */
export const CHOICES_TOOL = 'offer_choices';

const text = (description: string, maxLength: number) => ({ type: 'string', description, minLength: 1, maxLength });
const option = (title: number, id: number, described: boolean) => ({
  type: 'object',
  properties: {
    id: text('What comes back when the customer taps it.', id),
    title: text('What the customer reads.', title),
    ...(described ? { description: text('A short line under the title.', L.rowDescription) } : {}),
  },
  required: ['id', 'title'],
  additionalProperties: false,
});

/** JSON Schema for the model (arrays included): the shape `parseInteractiveReply` reads. */
const CHOICES_INPUT = {
  type: 'object',
  properties: {
    kind: { type: 'string', enum: ['buttons', 'list', 'cta_url'], description: 'buttons: up to 3 quick answers; list: up to 10 options in sections; cta_url: one button that opens a web address.' },
    header: text('Optional short title above your reply.', L.header),
    footer: text('Optional small text under your reply.', L.footer),
    buttons: { type: 'array', maxItems: L.buttons, items: option(L.buttonTitle, L.buttonId, false), description: 'For kind buttons.' },
    button: text('For kind list: the label of the button that opens the list.', L.listButton),
    sections: {
      type: 'array',
      maxItems: L.sections,
      description: `For kind list: at most ${L.rows} rows in all; every section needs a title when there are several.`,
      items: { type: 'object', properties: { title: text('The section title.', L.sectionTitle), rows: { type: 'array', items: option(L.rowTitle, L.rowId, true) } }, required: ['rows'], additionalProperties: false },
    },
    displayText: text('For kind cta_url: the button label.', L.displayText),
    url: { type: 'string', description: 'For kind cta_url: the https address it opens.' },
  },
  required: ['kind'],
  additionalProperties: false,
};

export const CHOICES_TOOL_SPEC: Tool = {
  toolSpec: {
    name: CHOICES_TOOL,
    description:
      'Show the customer tappable choices under your reply when they must pick one of a few options: reply buttons, a list, or a button opening a link. ' +
      `Limits: body ${L.body} characters, button titles ${L.buttonTitle}, row titles ${L.rowTitle}, descriptions ${L.rowDescription}. ` +
      'Call it at most once, then write your reply text as usual: it becomes the message above the choices. The customer\'s tap comes back as their next message.',
    inputSchema: { json: CHOICES_INPUT as unknown as ToolInputSchema.JsonMember['json'] },
  },
};

/** Records the model's choices (the last call wins) and answers it: recorded, or what to correct. */
export function recordChoices(toolUse: ToolUseBlock, chosen: { interactive?: InteractiveReply }): ContentBlock {
  const parsed = parseInteractiveReply(toolUse.input);
  if ('problems' in parsed) {
    return { toolResult: { toolUseId: toolUse.toolUseId, status: 'error', content: [{ text: `Invalid input for ${CHOICES_TOOL}: ${parsed.problems.join('; ')}. Call the tool again with corrected input.` }] } };
  }
  chosen.interactive = parsed.interactive;
  return { toolResult: { toolUseId: toolUse.toolUseId, content: [{ json: { recorded: true, next: 'Write the reply text shown above the choices.' } }] } };
}
