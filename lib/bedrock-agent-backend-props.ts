import type { AgentTool } from './agent-tool';

/** Settings of each Converse call (the Converse API's `inferenceConfig`). */
export interface BedrockInferenceConfig {
  /**
   * Upper bound on the tokens of each model answer (a whole number, at least 1).
   *
   * @default 1024 — a WhatsApp reply, not an essay
   */
  readonly maxTokens?: number;

  /**
   * Randomness of the answer, from 0 to 1.
   *
   * @default - the model's default
   */
  readonly temperature?: number;

  /**
   * Nucleus sampling: the share of most likely tokens considered, from 0 to 1.
   *
   * @default - the model's default
   */
  readonly topP?: number;

  /**
   * Texts that end the answer when the model writes them (each non-empty).
   *
   * @default - none
   */
  readonly stopSequences?: string[];
}

/** An Amazon Bedrock guardrail applied to every Converse call (its `guardrailConfig`). */
export interface BedrockGuardrail {
  /** The guardrail's id (`abc123def456`) or ARN (`arn:aws:bedrock:…:guardrail/abc123def456`). */
  readonly identifier: string;

  /** The guardrail version: a published version number (`'1'`) or `'DRAFT'`. */
  readonly version: string;
}

/**
 * An Amazon Bedrock knowledge base the agent searches: the model is offered a tool,
 * `search_knowledge_base`, and calls it when a question needs the business's documents (not on
 * every turn). Each search is one Bedrock Agent Runtime `Retrieve`; the orchestrator is granted
 * `bedrock:Retrieve` on exactly this knowledge base.
 */
export interface BedrockKnowledgeBase {
  /** The knowledge base's id (ten upper-case letters and digits, e.g. `ABCDE12345`), in the stack's account and Region. */
  readonly knowledgeBaseId: string;

  /**
   * Passages one search hands the model, best first (1–10); each is cut to 1,500 characters, so a
   * search adds at most about 4,000 tokens to the turn.
   *
   * @default 5
   */
  readonly numberOfResults?: number;

  /**
   * A metadata filter every search applies, in Retrieve's `RetrievalFilter` grammar: one operator
   * per object — `equals`, `notEquals`, `greaterThan`, `greaterThanOrEquals`, `lessThan`,
   * `lessThanOrEquals`, `in`, `notIn`, `startsWith`, `listContains`, `stringContains` with
   * `{ key, value }`, or `andAll` / `orAll` with 2–5 filters. For example
   * `{ equals: { key: 'audience', value: 'customers' } }`. Checked at synth.
   *
   * @default - no filter: every document of the knowledge base
   */
  readonly filter?: { [key: string]: any };
}

/**
 * The agent's memory of a long conversation. The agent is shown the conversation's last 50
 * messages within `agentHistoryMaxCharacters`; once a conversation outgrows that, its older
 * messages fold into a summary kept on the session, written by `modelId`. The agent is then shown
 * the summary and the messages after the fold point — a prefix that stays the same from turn to
 * turn until the next fold, so the prompt cache keeps reading it. What the agent recorded
 * (qualification and registration data, segment, intent) is shown on every turn whatever folds.
 */
export interface BedrockAgentMemory {
  /**
   * `false`: no summary; the agent is shown the newest messages that fit, the oldest falling off.
   *
   * @default true
   */
  readonly enabled?: boolean;

  /**
   * The model that writes the summary: a model id, inference profile id or application inference
   * profile ARN, as `modelId` takes them (the orchestrator is granted it). A smaller model than the
   * agent's does this well (e.g. a Claude Haiku or Amazon Nova Lite). Written into the orchestrator's
   * asset at synth, so it must be a plain text.
   *
   * @default - the agent's own model
   */
  readonly modelId?: string;

  /**
   * Agent replies between two folds at least (1–20). Each fold costs one call of `modelId` and
   * rewrites the cached prompt once; a fold keeps the newest `50 − 2 × foldEveryTurns` messages.
   *
   * @default 5
   */
  readonly foldEveryTurns?: number;
}

/** Properties of `AgentBackend.bedrock()`. */
export interface BedrockAgentBackendProps {
  /**
   * The Amazon Bedrock model the orchestrator calls through the Converse API: a foundation
   * model id (`anthropic.claude-sonnet-4-5-20250929-v1:0`), invoked in the stack's Region; a
   * system-defined cross-Region inference profile id (`us.…`, `eu.…`, `apac.…`, `global.…`),
   * which Bedrock may route to any Region of that profile; or an application inference profile
   * ARN (`arn:aws:bedrock:<region>:<account>:application-inference-profile/<id>`), the way to tag
   * and track Bedrock cost per application.
   */
  readonly modelId: string;

  /**
   * The agent's system prompt. It becomes the first version of the admin prompt resource
   * (type `prompt`, id `system`); admins edit it in the console afterwards. A later deployment with
   * a different prompt adds a new version (it wins over an earlier console edit); a deployment that
   * leaves it unchanged never overwrites a console edit. At most 40,000 characters, as in the
   * console's prompt editor: it is written into the orchestrator's settings document at synth (a
   * `Lazy` must produce the text then). See the README, "Writing the system prompt".
   *
   * @default - a neutral prompt any business can start from (answer briefly in the customer's
   * language, qualify the need, hand over to a human when asked)
   */
  readonly systemPrompt?: string;

  /**
   * Inference settings of each Converse call.
   *
   * @default - maxTokens 1024, the model's defaults for the rest
   */
  readonly inferenceConfig?: BedrockInferenceConfig;

  /**
   * A Bedrock guardrail applied to every call (the orchestrator is granted `bedrock:ApplyGuardrail`
   * on it).
   *
   * @default - no guardrail
   */
  readonly guardrail?: BedrockGuardrail;

  /**
   * Bedrock prompt caching: every Converse call carries cache points after the tools (on models
   * that cache them), the system prompt and the turn's conversation, so the prefix each turn and
   * each tool round re-sends is billed as cache reads (a tenth of the input price on Claude models)
   * instead of input. Support is decided by the model id's family, after any inference profile's
   * geography: Anthropic Claude 3.5 Haiku, 3.7 Sonnet, Haiku 4.x, Sonnet 4.x and Opus 4.x, Amazon
   * Nova Micro, Lite, Pro and Premier (the table of the package's contract, `prompt-caching.ts`).
   *
   * `false` turns caching off. `true` turns it on also for a model id the table cannot place — an
   * application inference profile ARN, or a newer model — with cache points after the system prompt
   * and the conversation only (what every caching model takes). Cache reads and writes are recorded
   * on each reply, emitted as `AgentCacheReadInputTokens` / `AgentCacheWriteInputTokens`, and
   * counted in the token budgets at their weights (reads 0.1, writes 1.25 of an input token).
   *
   * @default - on for the models of the table, off for any other model id
   */
  readonly promptCaching?: boolean;

  /**
   * A knowledge base the agent searches when a customer's question needs the business's documents.
   * The documents each reply drew on are stored with it and shown to operators in the console.
   *
   * @default - no knowledge base
   */
  readonly knowledgeBase?: BedrockKnowledgeBase;

  /**
   * How the agent remembers a conversation longer than its window: older messages fold into a
   * summary kept on the session (docs/AGENT.md, "Memory").
   *
   * @default - on: the agent's own model folds at most every 5 turns
   */
  readonly memory?: BedrockAgentMemory;

  /**
   * Tools of your own the model may call beside the built-in ones (`AgentTool.fromFunction()`), at
   * most 20, each name once. The orchestrator is granted `lambda:InvokeFunction` on exactly their
   * functions. A tool with `sideEffects` runs at most once per idempotency key and never in a turn
   * a newer customer message superseded (see `AgentTool`).
   *
   * @default - only the built-in tools
   */
  readonly tools?: AgentTool[];
}
