import type { TokenUsage } from '../domain/customer-budget';

/**
 * Consumer tools: the business's own functions the agent may call (`AgentTool.fromFunction()`), and
 * the turn's record of their calls, which makes a tool with side effects run at most once per
 * idempotency key and never for an obsolete turn (docs/DESIGN.md#consumer-tools).
 */

/** A tool of the consumer's, as the agent offers it to the model and the turn calls it. */
export interface ConsumerTool {
  readonly name: string;
  readonly description: string;
  /** A JSON Schema object: what the model is told the input is, and what the input is checked against before the call. */
  readonly inputSchema: Readonly<Record<string, unknown>>;
  /** The tool changes something (an order, a booking): called only in a turn still the latest, with an idempotency key, its result persisted before the model reads it. */
  readonly sideEffects: boolean;
  /** Problems of `input` against the schema, phrased for the model; empty when valid. */
  validate(input: unknown): readonly string[];
  /** One call of the consumer's function; never throws for what the function answered (see {@link ToolOutcome}). */
  call(request: ToolCallRequest): Promise<ToolCallResult>;
}

/** What the consumer's function is told about the turn (contract version 1, docs/AGENT.md#your-own-tools). */
export interface ToolTurnContext {
  readonly customerId: string;
  readonly sessionId: string;
  /** With stages: the stage whose model asked. */
  readonly stage?: string;
  readonly locale: string;
  /** The customer messages the turn answers, oldest first; the last one is the turn's id. */
  readonly messageIds: readonly string[];
}

export interface ToolCallRequest {
  readonly input: unknown;
  readonly context: ToolTurnContext;
  /** The model's id of this tool use. */
  readonly toolUseId: string;
  /** Only for a tool with side effects: the same for every attempt of the same call (the turn and the tool use). */
  readonly idempotencyKey?: string;
  /** Epoch milliseconds by which the call must have returned. */
  readonly deadline: number;
}

/**
 * How a call ended, each with one rule (`TOOL_OUTCOME_TELLS_MODEL`): the model is told, or the
 * turn fails and is retried.
 */
export const TOOL_OUTCOME_TELLS_MODEL = {
  /** The function answered a result. */
  ok: true,
  /** The input did not match the schema: the function was not called, the model may correct it. */
  invalid_input: true,
  /** The function answered `{error}`: a refusal of the business's (out of stock, no slot), which the model can explain. */
  refused: true,
  /** The result is larger than the model may read: the model is told the call ran and its result was withheld. */
  result_too_large: true,
  /** The function answered something that is not the contract: told as a failure of the tool; a retry would get the same. */
  malformed_result: true,
  /** The function does not exist or may not be invoked: told as unavailable; a retry cannot fix the configuration. */
  unavailable: true,
  /** The function raised (Lambda `FunctionError`): the turn is retried (a tool with side effects under the same key). */
  function_error: false,
  /** Throttled, timed out, or Lambda failed: the turn is retried. */
  invocation_failed: false,
} as const satisfies Record<string, boolean>;

export type ToolOutcome = keyof typeof TOOL_OUTCOME_TELLS_MODEL;

/** What the model is told of a call (the `content` of its tool result), and how it ended. */
export interface ToolCallResult {
  readonly outcome: ToolOutcome;
  /** JSON the model reads: the function's `result`, or an error object naming the outcome. */
  readonly content: unknown;
}

/** One tool use the model asked for in a round. */
export interface ToolUse {
  readonly toolUseId: string;
  readonly name: string;
  readonly input: unknown;
}

/** A consumer tool call as the turn recorded it, and as a retry replays it. */
export interface ToolCallRecord {
  readonly toolUseId: string;
  readonly name: string;
  readonly sideEffects: boolean;
  /** Absent while only the intent is recorded (the call may or may not have run). */
  readonly result?: ToolCallResult;
  readonly durationMs?: number;
  /** The result came from an earlier attempt's record, not from a call. */
  readonly replayed?: boolean;
  /** The call ran again under the key of an intent an earlier attempt left without a result. */
  readonly recalled?: boolean;
}

/**
 * A model round of the turn as persisted: the model's answer (opaque to the turn: the adapter's own
 * message shape) and the consumer tool calls it asked for.
 */
export interface ModelRound {
  readonly message: unknown;
  readonly stopReason: string;
  readonly calls: readonly ToolCallRecord[];
}

/** Where a turn's model rounds are kept, per agent run of the turn (a stage's run is its own), and the turn's trace beside them. */
export interface TurnCheckpointStore {
  /** The rounds an earlier attempt of the turn persisted for this run, oldest first; empty when none. */
  load(customerId: string, turnId: string, run: string): Promise<readonly ModelRound[]>;
  /** Replaces the run's rounds. */
  save(customerId: string, turnId: string, run: string, rounds: readonly ModelRound[]): Promise<void>;
  /** Replaces the turn's trace (the last attempt's is the one kept). */
  saveTrace(customerId: string, turnId: string, trace: TurnTrace): Promise<void>;
  loadTrace(customerId: string, turnId: string): Promise<TurnTrace | undefined>;
}

/** One model round trip of a turn: tokens, cache reads and writes, latency and stop reason; never text. */
export interface ModelCallTrace extends TokenUsage {
  readonly latencyMs: number;
  readonly stopReason: string;
  /** Replayed from the turn's checkpoint on a retry: the model was not asked again. */
  readonly replayed?: boolean;
}

/** One gate the turn asked, and whether it let the turn through or decided it (docs/DESIGN.md#the-turns-gates). */
export interface GateTrace {
  readonly gate: string;
  readonly verdict: 'passed' | 'decided';
}

/**
 * What a turn did, for an admin (docs/DESIGN.md#a-turns-trace): the gates asked, each model round
 * trip and each consumer tool call — figures, names and outcomes only, never the customer's words,
 * a tool's input or its result.
 */
export interface TurnTrace {
  /** When the attempt that wrote it ended. */
  readonly at: string;
  readonly gates: readonly GateTrace[];
  /** With stages: the stage that answered. */
  readonly stage?: string;
  /** How the agent's run ended (`completed`, `max_iterations`, `deadline`, `superseded`); absent when a gate answered. */
  readonly stopReason?: string;
  readonly modelCalls: readonly ModelCallTrace[];
  readonly toolCalls: readonly ToolCallTrace[];
}

/** A consumer tool call in the trace. */
export interface ToolCallTrace {
  readonly name: string;
  readonly sideEffects: boolean;
  readonly outcome?: ToolOutcome;
  readonly durationMs?: number;
  readonly replayed?: boolean;
  readonly recalled?: boolean;
}

/**
 * The turn's side of the agent's tool rounds, handed to the agent with each request: the rounds to
 * resume from, and the runner of each round's consumer tool calls.
 */
export interface AgentToolRounds {
  /** Model rounds an earlier attempt persisted: the agent replays them in order instead of asking the model. */
  resume(): Promise<readonly ModelRound[]>;
  /**
   * Runs the consumer tool calls of the round the model just answered (or that is being replayed,
   * `replaying` its index), in order, under the turn's guarantees; `superseded` when a newer
   * customer message made the turn obsolete before a call with side effects, which then never runs.
   */
  run(round: { readonly message: unknown; readonly stopReason: string }, uses: readonly ToolUse[], tools: readonly ConsumerTool[], replaying?: number): Promise<readonly ToolCallResult[] | 'superseded'>;
}
