/**
 * The agent's memory of a long conversation (`AgentBackend.bedrock({ memory })`): when the
 * conversation outgrows the window the agent is shown, its older messages fold into a summary kept
 * on the session. Bounds checked by the construct and by the orchestrator's settings reader.
 * CDK-free. Internal: not part of the jsii API.
 */
export const CONVERSATION_MEMORY_LIMITS = {
  /** Turns between two folds at least: each fold rewrites the prompt's cached prefix once. */
  defaultFoldEveryTurns: 5,
  minFoldEveryTurns: 1,
  /** A fold keeps the newest `50 − 2 × foldEveryTurns` messages, so at most 20 leaves ten. */
  maxFoldEveryTurns: 20,
  /** Characters of summary kept on the session and shown to the agent (about 1,000 tokens). */
  summaryMaxCharacters: 4_000,
  /** The summarizing model's answer, in tokens. */
  summaryMaxTokens: 1_024,
} as const;

/** What a deployment tells a Bedrock agent about its memory. */
export interface ConversationMemorySettings {
  readonly foldEveryTurns: number;
  /** The model that writes the summary; `null`: the agent's own. */
  readonly modelId: string | null;
}
