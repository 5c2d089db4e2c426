import type { AgentAction } from '../domain/agent-action';
import type { TokenUsage } from '../domain/customer-budget';
import { PipelineError } from '../domain/errors';

/**
 * The AI agent that writes the reply to a customer's turn.
 *
 * An agent NEVER performs side effects. When the model decides to act (record a demand, update
 * qualification data, hand the conversation to a human, close the session), the adapter records
 * the decision as an {@link AgentAction} and feeds the model an acknowledgement as the tool result.
 * The turn use case applies the returned actions durably, in the same conditional write as the
 * session and the outbox reply, and only after its latest-message guard. That is why a turn that
 * is superseded by a newer customer message while the agent runs leaves no trace: its actions are
 * simply dropped, and the newer turn's agent call sees the full history and decides again.
 *
 * Adapters: Amazon Bedrock Converse with tool use, a consumer's Lambda function, and a
 * deterministic scripted agent for development and tests.
 */
export interface AgentPort {
  /** The model that answers, when the backend names one (Bedrock's model id): recorded with each reply for the usage report. */
  readonly model?: string;
  respond(request: AgentRequest): Promise<AgentResponse>;
}

export interface AgentRequest {
  /** The system prompt (the current admin prompt resource, or the default). */
  readonly systemPrompt: string;
  /** The session's conversation in chronological order, ending with the customer messages of this turn. */
  readonly history: readonly ConversationEntry[];
  readonly session: AgentSessionContext;
  /**
   * Epoch milliseconds by which the agent must have returned: the Lambda's remaining time minus a
   * safety margin, computed by the caller. Adapters stop early (with their best reply so far or a
   * fallback, `stopReason: 'deadline'`) instead of overrunning it.
   */
  readonly deadline: number;
  /** Upper bound on model round trips (tool-use iterations) for this turn; the pipeline uses 10. */
  readonly maxIterations: number;
  /**
   * Whether the turn's messages are still the customer's latest: asked between tool rounds, before
   * each further model call. When it answers `false`, a newer message has arrived whose turn will
   * answer everything again, so the adapter stops at once (`stopReason: 'superseded'`) instead of
   * spending more model calls on a reply nobody will receive.
   * @default - never asked: only the turn's guard at persist time notices a newer message
   */
  readonly stillLatest?: () => Promise<boolean>;
}

export interface ConversationEntry {
  readonly role: ConversationRole;
  readonly text: string;
  /** ISO-8601 UTC. */
  readonly at: string;
}

export type ConversationRole = 'customer' | 'assistant';

/** What the agent may know about the session. Never includes message text beyond the history. */
export interface AgentSessionContext {
  readonly sessionId: string;
  /** The customer's WhatsApp id (phone, or business-scoped user id). */
  readonly customerId: string;
  /** The session state name of the domain state machine (e.g. `QUALIFYING`). */
  readonly state: string;
  readonly qualificationData: Readonly<Record<string, string>>;
}

export interface AgentResponse {
  /** The text to send to the customer. Never empty: adapters fall back to a safe text. */
  readonly reply: string;
  /** The decisions the agent took this turn, in the order it took them; applied by the use case. */
  readonly actions: readonly AgentAction[];
  /** Model round trips used (1 for a single-shot backend). */
  readonly iterations: number;
  readonly stopReason: AgentStopReason;
  /**
   * Model tokens of every round trip of the turn, when the backend reports them (Bedrock always;
   * a consumer's function optionally), prompt cache reads and writes included. Counted against the
   * customer's daily token budget, each kind at its weight (see `budgetTokens`).
   */
  readonly usage?: TokenUsage;
}

/** `superseded`: {@link AgentRequest.stillLatest} answered that a newer message arrived; the reply is obsolete. */
export type AgentStopReason = 'completed' | 'max_iterations' | 'deadline' | 'superseded';

export type {
  AgentAction,
  AgentActionType,
  CloseSessionAction,
  RecordOutOfPortfolioDemandAction,
  RequestHumanHandoffAction,
  UpdateQualificationAction,
} from '../domain/agent-action';

/**
 * The agent backend failed to produce a usable answer. The turn should be retried (the SQS record
 * is reported as failed; after the redrive limit it lands in the DLQ).
 */
export class AgentInvocationError extends PipelineError {
  override readonly name = 'AgentInvocationError';
  override readonly code = 'agent_invocation_failed';
  override readonly retryable = true;

  constructor(
    readonly reason: AgentFailureReason,
    message: string,
    options?: { readonly cause?: unknown },
  ) {
    super(message, options);
  }
}

export type AgentFailureReason =
  /** The backend answered something that does not follow its contract. */
  | 'malformed_response'
  /** The consumer's function raised (Lambda `FunctionError`). */
  | 'function_error'
  /** The backend could not be called or refused the call. */
  | 'invocation_failed';
