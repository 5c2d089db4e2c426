import type { ContentBlock, Tool, ToolInputSchema, ToolUseBlock } from '@aws-sdk/client-bedrock-runtime';
import { KNOWLEDGE_BASE_LIMITS } from '../../../../lib/contract';
import type { KnowledgeBase } from '../../ports/knowledge-base';
import { type ObjectSchema, validateAgainstSchema } from './agent-actions';
import { callBeforeDeadline, DEADLINE_REACHED } from './agent-deadline';

/** The tool the model calls to search the knowledge base; unlike the actions, the agent runs it at once (a read). */
export const KNOWLEDGE_SEARCH_TOOL = 'search_knowledge_base';

const SEARCH_INPUT: ObjectSchema = {
  type: 'object',
  properties: {
    query: { type: 'string', description: "What to look up, as a short question or keywords in the customer's language.", minLength: 1, maxLength: KNOWLEDGE_BASE_LIMITS.maxQueryCharacters },
  },
  required: ['query'],
  additionalProperties: false,
};

export const KNOWLEDGE_SEARCH_TOOL_SPEC: Tool = {
  toolSpec: {
    name: KNOWLEDGE_SEARCH_TOOL,
    description:
      "Search the business's documents (prices, policies, products, opening hours…) before answering a question they may answer. " +
      'Answer from the passages found; when nothing relevant is found, say you do not know rather than guess.',
    inputSchema: { json: SEARCH_INPUT as unknown as ToolInputSchema.JsonMember['json'] },
  },
};

/** A search's answer to the model, and the sources of the passages it was given. */
export interface KnowledgeSearchResult {
  readonly block: ContentBlock;
  readonly sources: readonly string[];
}

/**
 * Runs one `search_knowledge_base` call within the turn's deadline. The model gets the passages
 * (bounded by the adapter), or an error result it can act on — invalid input, the knowledge base
 * unavailable, no time left — never a failed turn: the customer still gets an answer.
 */
export async function searchKnowledge(toolUse: ToolUseBlock, knowledgeBase: KnowledgeBase, deadline: number, now: () => number): Promise<KnowledgeSearchResult> {
  const toolUseId = toolUse.toolUseId;
  const failed = (text: string): KnowledgeSearchResult => ({ block: { toolResult: { toolUseId, status: 'error', content: [{ text }] } }, sources: [] });
  const problems = validateAgainstSchema(SEARCH_INPUT, toolUse.input);
  if (problems.length > 0) return failed(`Invalid input for ${KNOWLEDGE_SEARCH_TOOL}: ${problems.join('; ')}. Call the tool again with corrected input.`);
  const { query } = toolUse.input as { query: string };
  let passages;
  try {
    passages = await callBeforeDeadline(deadline, now, (abortSignal) => knowledgeBase.search(query, abortSignal));
  } catch {
    return failed('The knowledge base could not be searched just now. Answer without it, and offer a person if the customer needs the details.');
  }
  if (passages === DEADLINE_REACHED) return failed('There is no time left to search. Answer briefly without it.');
  const sources = [...new Set(passages.flatMap((passage) => (passage.source === undefined ? [] : [passage.source])))];
  const found = passages.map(({ text, source }): Record<string, string> => (source === undefined ? { text } : { text, source }));
  const json: Record<string, string | Record<string, string>[]> = { passages: found };
  if (found.length === 0) json.note = 'Nothing in the documents matches this search.';
  return { block: { toolResult: { toolUseId, content: [{ json }] } }, sources };
}
