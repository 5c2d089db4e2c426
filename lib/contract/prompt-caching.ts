/**
 * Which Bedrock models take Converse `cachePoint` blocks, and where: the one table the construct's
 * `promptCaching` default and the orchestrator's Converse requests both read. A model id matches by
 * prefix, after a cross-Region inference profile's geography (`us.`, `eu.`, `apac.`, `global.`, …),
 * so every version and profile of a listed family is covered. Internal: not part of the jsii API.
 *
 * Claude models cache the tool definitions, the system prompt and the messages; Amazon Nova models
 * the system prompt and the messages, not the tools.
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html
 */

/** Where a model takes cache points. */
export interface PromptCachingSupport {
  /** A cache point may close `toolConfig.tools`. */
  readonly tools: boolean;
}

const CLAUDE: PromptCachingSupport = { tools: true };
const NOVA: PromptCachingSupport = { tools: false };

/** Model id prefixes (without a profile's geography) and where those models take cache points. */
export const PROMPT_CACHING_MODELS: ReadonlyArray<readonly [prefix: string, support: PromptCachingSupport]> = [
  ['anthropic.claude-3-5-haiku', CLAUDE],
  ['anthropic.claude-3-7-sonnet', CLAUDE],
  ['anthropic.claude-haiku-4', CLAUDE],
  ['anthropic.claude-sonnet-4', CLAUDE],
  ['anthropic.claude-opus-4', CLAUDE],
  ['amazon.nova-micro', NOVA],
  ['amazon.nova-lite', NOVA],
  ['amazon.nova-pro', NOVA],
  ['amazon.nova-premier', NOVA],
];

/** What an explicitly enabled cache takes on a model the table does not know (an application inference profile ARN): what every supported model takes. */
export const PROMPT_CACHING_UNLISTED_MODEL: PromptCachingSupport = NOVA;

/** A cross-Region inference profile's geography (`us.`, `us-gov.`, `global.`…): whatever comes before `<provider>.`. */
const PROFILE_GEOGRAPHY = /^[a-z-]+\.(?=[a-z]+\.)/;

/** Where `modelId` takes cache points; `undefined` when the table does not list it. */
export function promptCachingSupportOf(modelId: string): PromptCachingSupport | undefined {
  const model = modelId.replace(PROFILE_GEOGRAPHY, '');
  return PROMPT_CACHING_MODELS.find(([prefix]) => model.startsWith(prefix))?.[1];
}
