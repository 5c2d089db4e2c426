import type { AgentAction } from '../../domain/agent-action';
import type { LatestInbound, PendingInbound } from '../../domain/inbound-receipt';
import type { Session } from '../../domain/session';
import type { IsoTimestamp } from '../../domain/timestamps';
import type { TurnOutcome, TurnReport } from '../turn-settings';

/**
 * A turn's gates (docs/DESIGN.md#the-turns-gates): each is one rule that may end the turn, or
 * answer it, instead of the agent. The turn asks them in order and stops at the first verdict;
 * a gate that lets the turn through answers `undefined`. A new rule is a new gate in the list of
 * `turn-gates.ts`, not a branch in the turn.
 */
export interface TurnGate {
  /** Names the gate in the turn's trace. */
  readonly name: string;
  /**
   * `before_history`: asked before the turn writes anything, and a verdict keeps the messages out
   * of the history unless it names a session for them (an operator's command, an opt-out word).
   * `with_history`: asked alongside the session and history writes (its reads and writes cost the
   * turn no extra wait), a verdict taken once the messages are in the history.
   */
  readonly step: 'before_history' | 'with_history';
  check(turn: GateTurn): GateVerdict | undefined | Promise<GateVerdict | undefined>;
}

/** What a gate knows of the turn: what the turn read before deciding anything. */
export interface GateTurn {
  readonly latest: LatestInbound;
  /** The drained messages, in registration order. */
  readonly pending: readonly PendingInbound[];
  /** The newest of them (by history timestamp): the message a reply answers, and the turn's id. */
  readonly last: PendingInbound;
  /**
   * Before the history: the active session as read, if any. With the history: the session the
   * messages go to (one this turn opened when none was active, or the active one was closed).
   */
  readonly session?: Session;
  /** The customer's current messaging consent is withdrawn. */
  readonly optedOut: boolean;
  /** Free-form text still reaches the customer: their last message is less than 24 hours old. */
  readonly windowOpen: boolean;
  /** Epoch milliseconds at which the invocation is cut off (a gate that waits stops well before). */
  readonly deadline: number;
  /** Whether `last` is still the customer's latest message: one consistent read of the marker, under the persist guard's rule. */
  stillLatest(): Promise<boolean>;
  /**
   * Marks `last` read with a typing indicator, once per turn (the agent's call reuses it): a gate
   * that makes the customer wait shows it first. Best effort: `false` when it failed.
   */
  showTyping(): Promise<boolean>;
}

/** What a gate decided instead of the agent. */
export type GateVerdict = Unanswered | PipelineAnswer;

/** The turn's messages are completed and nothing is sent. */
export interface Unanswered {
  readonly kind: 'unanswered';
  readonly outcome: TurnOutcome;
  /** Before the history: the session the messages are appended to first (default: they stay out of it). */
  readonly appendTo?: Session;
  /**
   * The messages stay pending instead: a newer message's turn, already queued behind this one,
   * drains them with its own (the burst settle wait).
   */
  readonly keepPending?: boolean;
  readonly report?: TurnReportExtras;
}

/**
 * The turn's result is the pipeline's own, written like an agent's answer under the latest-message
 * guard: `reply`, when there is one, goes to the customer in place of the agent's through the
 * outbox, and the session takes `actions` (as the agent's are applied) and then `change`.
 */
export interface PipelineAnswer {
  readonly kind: 'answer';
  readonly reply?: string;
  readonly actions?: readonly AgentAction[];
  readonly change?: (session: Session, at: IsoTimestamp) => Session;
  /** How a written answer without a reply ends (one with a reply ends as its delivery does). */
  readonly outcome?: TurnOutcome;
  readonly report?: TurnReportExtras;
  /** Once the customer received the reply (`answered`); best effort: a failure is ignored. */
  readonly onAnswered?: () => Promise<void>;
}

/** What a gate adds to the turn's report. */
export type TurnReportExtras = Pick<TurnReport, 'overBudget' | 'pipelineTokensToday'>;
