import type { AgentAction } from '../domain/agent-action';
import type { InteractiveReply } from '../domain/interactive-reply';
import type { TokenUsage } from '../domain/customer-budget';
import { PipelineError } from '../domain/errors';
import type { StoredMedia } from '../domain/media';
import type { MediaStore } from './media-store';
import type { AgentToolRounds, ModelCallTrace } from './agent-tools';
import type { ConversationSummarizer } from './conversation-summarizer';

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
  /**
   * How the agent's older history folds into the session's summary (docs/DESIGN.md#memory), for
   * an agent that shows the summary (`conversationSummary`). Absent: the window slides, as the
   * newest 50 messages within the history's characters.
   */
  readonly memory?: AgentMemory;
  respond(request: AgentRequest): Promise<AgentResponse>;
}

/** An agent's memory: who writes the summaries, and how often at most. */
export interface AgentMemory {
  readonly summarizer: ConversationSummarizer;
  readonly foldEveryTurns: number;
}

/**
 * A staged backend (`AgentBackend.stages()`): named agents, one of them the entry. The session's
 * current agent (`currentAgent`, the entry until a handover) answers the turn; an agent hands the
 * conversation to another with the `handover_to_agent` action, and the turn asks that agent next
 * (docs/DESIGN.md#stages).
 */
export interface AgentStages {
  /** The stage a conversation starts with, and the one that answers a session naming no configured stage. */
  readonly entry: string;
  /** Handovers one turn follows at most; the agent asked last answers, and its handover waits for the next turn. */
  readonly maxHandoversPerTurn: number;
  readonly names: readonly string[];
  /** The agent of a configured stage; undefined for any other name. */
  agentOf(stage: string): AgentPort | undefined;
}

/** Whether the turn's agent is a set of stages rather than one agent. */
export function isAgentStages(agent: AgentPort | AgentStages): agent is AgentStages {
  return 'agentOf' in agent;
}

export interface AgentRequest {
  /** The system prompt (the current admin prompt resource, or the default). */
  readonly systemPrompt: string;
  /** The session's conversation in chronological order, ending with the customer messages of this turn. */
  readonly history: readonly ConversationEntry[];
  /**
   * In the first turns of a conversation opened after the customer's previous one closed (by the
   * agent, an operator or the idle timeout): that conversation's last messages, in chronological
   * order and bounded, as context — not part of this conversation.
   */
  readonly earlierConversation?: readonly ConversationEntry[];
  /**
   * With memory: the summary of this conversation's messages before `history`'s first, which
   * `history` then starts after (the fold point). Text of the customer and the agent: data, not
   * instructions.
   */
  readonly conversationSummary?: string;
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
  /**
   * Reads the stored attachments of the history's entries: their bytes (Bedrock's image and
   * document blocks) or a short-lived URL (a consumer's function).
   * @default - none: attachments are only described in text
   */
  readonly mediaStore?: AgentMediaStore;
  /**
   * The turn's side of the consumer's tools: the rounds an earlier attempt persisted, to replay, and
   * the runner of each round's consumer tool calls (`application/turn-tool-rounds.ts`).
   * @default - none: consumer tools answer `unavailable`
   */
  readonly toolRounds?: AgentToolRounds;
}

/** What an agent adapter may do with the media bucket: read, never write. */
export type AgentMediaStore = Pick<MediaStore, 'get' | 'presignedGetUrl'>;

export interface ConversationEntry {
  readonly role: ConversationRole;
  readonly text: string;
  /** ISO-8601 UTC. */
  readonly at: string;
  /**
   * A reply that may not have reached the customer: an attempt died between its send and its
   * record, and no receipt of Meta's settled it since. Absent: delivered as far as the pipeline knows.
   */
  readonly mayNotHaveReached?: true;
  /** The attachment of a customer message: shown to the model when it can read it, described otherwise. */
  readonly media?: StoredMedia;
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
  /** The registration data recorded so far; absent while there is none. */
  readonly cadastralData?: Readonly<Record<string, string>>;
  readonly segment?: string;
  readonly intent?: string;
  /** With stages: the stage that has the conversation (the one being asked). */
  readonly agent?: string;
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
  /** Each model round trip, in order, for the turn's trace (a backend that reports none leaves it out). */
  readonly modelCalls?: readonly ModelCallTrace[];
  /** Where the passages of the knowledge base the agent searched came from (S3 URIs, URLs…), stored with the reply for the operators. */
  readonly knowledgeSources?: readonly string[];
  /**
   * Buttons, a list or a link button the agent chose to show under `reply` (its body). Sent as
   * WhatsApp's interactive message when within its limits, else as the same content in text.
   */
  readonly interactive?: InteractiveReply;
}

/** `superseded`: {@link AgentRequest.stillLatest} answered that a newer message arrived; the reply is obsolete. */
export type AgentStopReason = 'completed' | 'max_iterations' | 'deadline' | 'superseded';

export type {
  AgentAction,
  AgentActionType,
  CloseSessionAction,
  HandoverToAgentAction,
  RecordOutOfPortfolioDemandAction,
  RequestHumanHandoffAction,
  SetIntentAction,
  SetSegmentAction,
  UpdateCadastralDataAction,
  UpdateQualificationAction,
} from '../domain/agent-action';

/**
 * The agent backend failed to produce a usable answer. Whether a retry can help depends on the
 * reason ({@link AGENT_FAILURE_RETRYABLE}): a retryable failure fails the record, which SQS
 * delivers again (after the redrive limit it lands in the DLQ); any other is answered with the
 * fallback text at once, since the same request would fail the same way.
 */
export class AgentInvocationError extends PipelineError {
  override readonly name = 'AgentInvocationError';
  override readonly code = 'agent_invocation_failed';

  constructor(
    readonly reason: AgentFailureReason,
    message: string,
    options?: { readonly cause?: unknown },
  ) {
    super(message, options);
  }

  override get retryable(): boolean {
    return AGENT_FAILURE_RETRYABLE[this.reason];
  }
}

/** Whether a retry can fix each way an agent call fails. */
export const AGENT_FAILURE_RETRYABLE = {
  /** The backend answered something that does not follow its contract (no assistant message, malformed JSON): it would again. */
  malformed_response: false,
  /** The consumer's function raised (Lambda `FunctionError`): often a dependency of theirs, which may recover. */
  function_error: true,
  /** The backend could not be called or failed the call (throttling, timeouts, 5xx, access): may pass. */
  invocation_failed: true,
  /** The backend refused the request as invalid (Bedrock `ValidationException`): the same request is refused again. */
  invalid_request: false,
  /** The model refused to answer (Bedrock `guardrail_intervened` or `content_filtered`): the same history is refused again. */
  refused: false,
} as const satisfies Record<string, boolean>;

export type AgentFailureReason = keyof typeof AGENT_FAILURE_RETRYABLE;
