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
   * leaves it unchanged never overwrites a console edit. At most 3,000 bytes (UTF-8): it travels in
   * the function's environment, which Lambda caps at 4 KB; write longer prompts in the console.
   * See the README, "Writing the system prompt".
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
}
