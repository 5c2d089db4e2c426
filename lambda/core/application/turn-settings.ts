import type { ToolCallRecord } from '../ports/agent-tools';
import type { ModelCallTrace } from '../ports/agent-tools';
import { COST_GUARD_DEFAULTS, DEFAULT_SYSTEM_PROMPT, FALLBACK_TEXT_DEFAULTS, UNSUPPORTED_MESSAGE_TEXT_DEFAULT, type TurnOutcome as ContractTurnOutcome } from '../../../lib/contract';
import type { BudgetLimit, TokenUsage } from '../domain/customer-budget';
import type { InteractiveOutcome } from '../domain/interactive-reply';
import type { AgentResponse } from '../ports/agent';
import type { FoldOutcome } from './memory-fold';

/**
 * How a turn ended (the list and the metric each counts live in the contract):
 * - `answered`: the agent's reply was persisted and sent;
 * - `resent`: a reply persisted by an earlier attempt was sent, without calling the agent again;
 * - `superseded`: a newer message or a human takeover made the turn's reply obsolete; nothing sent;
 * - `human_owned`: a human owns the session; the messages went to their inbox, the agent was not called;
 * - `failed_permanent`: WhatsApp refused the reply for good, or the 24-hour window closed before a retry could send it;
 * - `noop`: nothing was pending (a duplicate delivery, or a turn another record already consumed);
 * - `operator_command`: an operator's `login` was answered with a console link; no session, no agent;
 * - `handed_off`: the agent failed for good; the customer got the handoff's fallback text and people have the conversation;
 * - `fallback`: a failure no retry can fix (bad agent output, a refusing model), without people to hand it to: the customer got the fallback text at once;
 * - `consent`: the customer opted out or back in (or is opted out); only the confirmation, if any, was sent;
 * - `over_budget_told_already`: a budget refused the turn and the over-budget reply already went in this window; nothing sent;
 * - `outside_window`: the customer's 24-hour window had closed when the turn would answer; the agent was not called, nothing was sent, and people have the conversation (the console offers the templates).
 * - `unsupported_told_already`: only messages of a type the pipeline cannot read, and the customer was told so earlier in the conversation; nothing sent.
 * - `burst_continued`: the customer wrote again while the turn waited for the burst to settle; nothing sent, the messages left pending for the newer message's turn, which answers them all.
 */
export type TurnOutcome = ContractTurnOutcome;

export interface AgentCallReport {
  readonly iterations: number;
  readonly latencyMs: number;
  readonly stopReason: AgentResponse['stopReason'];
  /** Whether the customer's message was marked read (with a typing indicator) while the agent ran. */
  readonly readReceiptSent: boolean;
  /** Model tokens, when the backend reported them. */
  readonly usage?: TokenUsage;
  /** The consumer tool calls of the turn, in order, when the model asked for any. */
  readonly toolCalls?: readonly ToolCallRecord[];
  /** Each model round trip, when the backend reports them. */
  readonly modelCalls?: readonly ModelCallTrace[];
  /** The memory folded the older history into the summary this turn (with the summarizer's model and tokens), or tried and gave up (the turn answered without). */
  readonly memoryFold?: FoldOutcome;
  /** The model the reply is recorded with (the last stage's), when the backend names one. */
  readonly model?: string;
  /** The agent answered with buttons, a list or a link button: sent so, or as text because it broke a WhatsApp limit. */
  readonly interactive?: InteractiveOutcome;
}

export interface TurnReport {
  readonly outcome: TurnOutcome;
  /** Customer messages this turn consumed. */
  readonly drained: number;
  /** Present when the agent was called. */
  readonly agent?: AgentCallReport;
  /** Present when a budget refused the turn (the customer's, or the pipeline's): the over-budget reply went instead of the agent's. */
  readonly overBudget?: BudgetLimit;
  /** The pipeline's model tokens of the UTC day as this instance knows them, with a pipeline budget. */
  readonly pipelineTokensToday?: number;
  /**
   * How a reply an earlier attempt persisted was settled, when this turn settled it and then went
   * on to answer newer messages (`maybe_sent`, `resent`, `superseded`…): an outcome of its own,
   * counted besides the turn's.
   */
  readonly earlierReply?: TurnOutcome;
}

/** `report`, with the outcome of the earlier attempt's reply the turn settled first (if it did). */
export function withEarlierReply(report: TurnReport, settledFirst: TurnReport | undefined): TurnReport {
  return settledFirst === undefined ? report : { ...report, earlierReply: settledFirst.outcome };
}

export interface TurnSettings {
  /** Model round trips per turn. */
  readonly maxAgentIterations: number;
  /** Time kept back from the invocation deadline for persisting and sending the reply. */
  readonly deliveryReserveMs: number;
  /** How long the customer must have been quiet before the agent is asked (the burst settle wait); 0: never wait. */
  readonly burstSettleMs: number;
  /** How often a turn in the settle wait re-reads the customer's marker. */
  readonly burstSettlePollMs: number;
  /** Time a memory fold leaves the agent's own call: a fold that would run later is not tried. */
  readonly agentReserveAfterFoldMs: number;
  /** Messages of the session the agent is shown. */
  readonly historyLimit: number;
  /** Characters of history the agent is shown: the newest messages that fit (the newest one, cut, if it alone does not). */
  readonly historyMaxCharacters: number;
  /** Messages of the customer's previous, closed conversation a new one is shown as context. */
  readonly earlierConversationLimit: number;
  /** Characters of that earlier conversation the agent is shown: its newest messages that fit. */
  readonly earlierConversationMaxCharacters: number;
  /** Used when no active prompt resource exists. */
  readonly defaultSystemPrompt: string;
  /** The admin resource holding the system prompt. */
  readonly promptResource: { readonly type: string; readonly id: string };
  /** How long a process reuses the prompt it read. */
  readonly promptCacheMs: number;
  /** What the customer is told when the turn fails for good and no person takes the conversation. */
  readonly fallbackText: string;
  /** What the customer is told, once per conversation, when a message of theirs is of a type the pipeline cannot read. */
  readonly unsupportedMessageText: string;
}

export const DEFAULT_TURN_SETTINGS: TurnSettings = {
  maxAgentIterations: 10,
  deliveryReserveMs: 15_000,
  // The deployment's default is the plan's (settings-document.ts); a turn composed without one does not wait.
  burstSettleMs: 0,
  burstSettlePollMs: 500,
  agentReserveAfterFoldMs: 30_000,
  historyLimit: 50,
  historyMaxCharacters: COST_GUARD_DEFAULTS.historyMaxCharacters,
  earlierConversationLimit: 10,
  earlierConversationMaxCharacters: 2_000,
  defaultSystemPrompt: DEFAULT_SYSTEM_PROMPT,
  promptResource: { type: 'prompt', id: 'system' },
  promptCacheMs: 60_000,
  fallbackText: FALLBACK_TEXT_DEFAULTS.turnFailed,
  unsupportedMessageText: UNSUPPORTED_MESSAGE_TEXT_DEFAULT,
};
