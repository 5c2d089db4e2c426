/**
 * An Amazon Bedrock knowledge base the agent searches (`AgentBackend.bedrock({ knowledgeBase })`):
 * its bounds, checked by the construct at synth and again by the orchestrator's settings reader,
 * and the grammar of Retrieve's metadata filter. CDK-free. Internal: not part of the jsii API.
 */
export const KNOWLEDGE_BASE_LIMITS = {
  /** A knowledge base id as Bedrock makes them: ten upper-case letters and digits. */
  idPattern: /^[0-9A-Z]{10}$/,
  /** Passages one search hands the model: enough to answer from, few enough to keep a turn's prompt small. */
  defaultNumberOfResults: 5,
  /** Retrieve takes up to 100; more than this is a prompt, not a search. */
  maxNumberOfResults: 10,
  /** Characters of one passage the model reads (a chunk of the default chunking is about 1,200). */
  maxPassageCharacters: 1_500,
  /** Characters of a search query the model may send (Retrieve's own limit is larger). */
  maxQueryCharacters: 1_000,
  /** Sources stored with one reply, and characters of each: what the operator is shown. */
  maxSourcesPerReply: 10,
  maxSourceCharacters: 500,
} as const;

/** What a deployment tells its agent about the knowledge base, besides the id in the environment. */
export interface KnowledgeBaseSettings {
  readonly numberOfResults: number;
  /** Retrieve's `filter` as the construct checked it; `null`: none. */
  readonly filter: RetrievalFilter | null;
}

/** Retrieve's metadata filter (`vectorSearchConfiguration.filter`): one operator per object. */
export type RetrievalFilter = { readonly [operator: string]: unknown };

/** Operators that compare one metadata attribute: `{ <operator>: { key, value } }`. */
const ATTRIBUTE_OPERATORS = [
  'equals',
  'notEquals',
  'greaterThan',
  'greaterThanOrEquals',
  'lessThan',
  'lessThanOrEquals',
  'in',
  'notIn',
  'startsWith',
  'listContains',
  'stringContains',
] as const;
/** Operators that join filters: `{ andAll: [filter, filter, …] }`. */
const LIST_OPERATORS = ['andAll', 'orAll'] as const;
/** Retrieve's bounds on a list operator's filters and an attribute key's length. */
const LIST_MIN = 2;
const LIST_MAX = 5;
const KEY_MAX_CHARACTERS = 100;

/**
 * Problems of `filter` against Retrieve's `RetrievalFilter` grammar, each naming where it is
 * (`filter.andAll[1].equals`); empty when Retrieve would take it. Every object holds exactly one
 * operator: an attribute operator takes `{ key, value }` (a key of 1–100 characters, any JSON
 * value; `in`/`notIn` a list), `andAll`/`orAll` take 2–5 filters.
 */
export function retrievalFilterProblems(filter: unknown, path = 'filter'): string[] {
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) return [`${path} must be an object with one operator, e.g. { equals: { key: 'category', value: 'prices' } }`];
  const operators = Object.keys(filter);
  if (operators.length !== 1) return [`${path} must hold exactly one operator; it holds ${operators.length} (${operators.join(', ') || 'none'})`];
  const [operator] = operators;
  const operand = (filter as Record<string, unknown>)[operator];
  const at = `${path}.${operator}`;
  if ((LIST_OPERATORS as readonly string[]).includes(operator)) {
    if (!Array.isArray(operand) || operand.length < LIST_MIN || operand.length > LIST_MAX) return [`${at} must be a list of ${LIST_MIN} to ${LIST_MAX} filters`];
    return operand.flatMap((inner, index) => retrievalFilterProblems(inner, `${at}[${index}]`));
  }
  if (!(ATTRIBUTE_OPERATORS as readonly string[]).includes(operator)) return [`${path} has the unknown operator '${operator}'; use one of ${[...ATTRIBUTE_OPERATORS, ...LIST_OPERATORS].join(', ')}`];
  if (typeof operand !== 'object' || operand === null || Array.isArray(operand)) return [`${at} must be { key, value }`];
  const { key, value, ...rest } = operand as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof key !== 'string' || key.length < 1 || key.length > KEY_MAX_CHARACTERS) problems.push(`${at}.key must be a text of 1 to ${KEY_MAX_CHARACTERS} characters`);
  if (value === undefined || value === null) problems.push(`${at}.value is required`);
  else if ((operator === 'in' || operator === 'notIn') && !Array.isArray(value)) problems.push(`${at}.value must be a list`);
  if (Object.keys(rest).length > 0) problems.push(`${at} allows only key and value; remove ${Object.keys(rest).join(', ')}`);
  return problems;
}
