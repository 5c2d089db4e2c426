import { afterFoldPoint, type ConversationMemory, planFold, type WindowLimits } from '../domain/conversation-memory';
import type { TokenUsage } from '../domain/customer-budget';
import { isVisibleToAgent, type Message } from '../domain/message';
import type { Session } from '../domain/session';
import { isoMicros } from '../domain/timestamps';
import type { AgentMemory } from '../ports/agent';
import type { Clock } from '../ports/clock';

/** The messages the agent is shown, and what its memory did this turn. */
export interface FoldedWindow {
  /** Oldest first: the messages after the fold point (or the newest ones, as without memory). */
  readonly messages: readonly Message[];
  /** The session's memory as the turn leaves it: the one it found, or a new fold. */
  readonly memory?: ConversationMemory;
  /** What the memory did this turn, when it tried to fold. */
  readonly fold?: FoldOutcome;
}

/** A fold written (`folded`: by `model`, with its tokens) or tried and given up (`failed`: the turn answers as without it). */
export type FoldOutcome = { readonly outcome: 'folded'; readonly usage: TokenUsage; readonly model: string } | { readonly outcome: 'failed' };

/** What a fold may take of the turn: never so much that the agent's own call has no time left. */
export interface FoldBudget {
  /** Epoch ms by which the agent must have answered. */
  readonly deadline: number;
  /** Time the agent's call keeps for itself after a fold. */
  readonly agentReserveMs: number;
}

/**
 * The agent's window over a session's history (docs/DESIGN.md#memory). With memory, the window is
 * the visible messages after the session's fold point; once it outgrows the limits (and at least
 * `foldEveryTurns` replies after the last fold), its older part folds into a new summary — written
 * by the memory's model within the turn's deadline, counted in the turn's tokens, and stored with
 * the turn's result, so only a turn that is still the latest stores it and a retry that finds the
 * result written does not fold again. A fold that fails leaves the turn answering as without one.
 */
export async function foldedWindow(session: Session, history: readonly Message[], memory: AgentMemory | undefined, limits: Omit<WindowLimits, 'foldEveryTurns'>, budget: FoldBudget, clock: Clock): Promise<FoldedWindow> {
  if (memory === undefined) return { messages: history };
  const window = afterFoldPoint(history.filter(isVisibleToAgent).map(windowMessage), session.memory);
  const plan = planFold(window, { ...limits, foldEveryTurns: memory.foldEveryTurns });
  if (plan === undefined) return { messages: window.map(({ message }) => message), memory: session.memory };
  const foldDeadline = budget.deadline - budget.agentReserveMs;
  try {
    if (foldDeadline <= clock.now().getTime()) throw new Error('no time left to fold');
    const { summary, usage } = await memory.summarizer.summarize({ previousSummary: session.memory?.summary, messages: plan.fold, deadline: foldDeadline });
    const folded: ConversationMemory = { summary, through: plan.fold[plan.fold.length - 1].at, foldedAt: isoMicros(clock.now()) };
    return { messages: plan.keep.map(({ message }) => message), memory: folded, fold: { outcome: 'folded', usage, model: memory.summarizer.model } };
  } catch {
    // As without a fold: the window after the last fold point, of which the agent is shown the newest that fit.
    return { messages: window.map(({ message }) => message), memory: session.memory, fold: { outcome: 'failed' } };
  }
}

function windowMessage(message: Message) {
  return { role: message.role === 'user' ? ('customer' as const) : ('assistant' as const), text: message.text, at: message.timestamp, message };
}
