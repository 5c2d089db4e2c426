/**
 * Bounds of `AgentTool.fromFunction()`, checked by the construct and again by the orchestrator's
 * cold start. Internal: not part of the jsii API.
 */
export const AGENT_TOOL_LIMITS = {
  /** What Converse accepts as a tool's name. */
  namePattern: /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/,
  descriptionMaxCharacters: 1_000,
  /** The schema's JSON: it is sent with every model call, so it stays small. */
  inputSchemaMaxCharacters: 10_000,
  /** Consumer tools of one agent (beside the built-in ones). */
  maxTools: 20,
  defaultTimeoutMs: 10_000,
  minTimeoutMs: 1_000,
  /** A call must fit well inside the turn's deadline. */
  maxTimeoutMs: 30_000,
  /** The built-in tools' names (lambda/core/adapters/agent/agent-actions.ts), which a consumer tool may not take. */
  builtInNames: [
    'record_out_of_portfolio_demand',
    'update_qualification',
    'request_human_handoff',
    'close_session',
    'update_cadastral_data',
    'set_segment',
    'set_intent',
    'handover_to_agent',
    'offer_choices',
  ] as readonly string[],
} as const;
