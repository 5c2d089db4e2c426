/**
 * Bounds of `AgentBackend.stages()`, checked by the construct and again by the orchestrator's cold
 * start, and a stage name by the console before it asks the API. Imports nothing: the console
 * bundles this module. Internal: not part of the jsii API.
 */
export const AGENT_STAGE_LIMITS = {
  /** A stage name: it names the stage's prompt resource (`system.<name>`) and is shown in the console and the CRM. */
  namePattern: /^[a-z][a-z0-9_-]{0,31}$/,
  maxStages: 10,
  /** Handovers followed within one turn by default: enough for a hand-on, too few for ping-pong. */
  defaultMaxHandoversPerTurn: 3,
  maxHandoversPerTurn: 5,
} as const;
