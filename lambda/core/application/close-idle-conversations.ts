import { ConditionFailedError, type SessionRepository } from '../ports/repositories';
import { isEvaluationCustomer } from '../domain/evaluation/prompt-gate';
import { AGENT_OWNED_STATES, lastActivityOf, type Session } from '../domain/session';
import { addMilliseconds, toEpochMicros, type IsoTimestamp } from '../domain/timestamps';
import type { Clock } from '../ports/clock';
import type { EvaluationCleanup } from '../ports/evaluation';
import { IDLE_SWEEP_AUTHOR, type CloseConversation } from './close-conversation';

/** Sessions read per page of the activity index, and pages per agent state and pass: a pass handles at most 2 × 500. */
const SWEEP_PAGE_SIZE = 50;
const SWEEP_MAX_PAGES = 10;
/** Sessions handled at once: a close is a transaction, a pointer update, its history's TTL and an audit event. */
const HANDLED_AT_ONCE = 5;
/** A pass takes no new page with less time left than this: a page's closes fit in it. */
const RESERVE_MS = 30_000;

export interface IdleSweepSettings {
  /** A conversation the agent serves is closed this long after its last activity (`conversationIdleTimeout`). */
  readonly idleTimeoutMs: number;
}

export interface IdleSweepDependencies {
  readonly sessions: SessionRepository;
  readonly closer: CloseConversation;
  /** Erases what an evaluation run that did not finish left of a scenario's customer. */
  readonly leftovers: EvaluationCleanup;
  readonly clock: Clock;
  readonly settings: IdleSweepSettings;
}

export interface IdleSweepReport {
  /** Conversations the index listed as idle. */
  readonly idle: number;
  readonly closed: number;
  /** Listed, but the customer wrote again (before or during the close), or the session moved on. */
  readonly kept: number;
  /** Scenario customers an evaluation run left when it did not finish (it timed out or crashed), erased; absent: none. */
  readonly evaluationLeftoversErased?: number;
  /** `false` when the run stopped at its bound or its deadline: the next run goes on where the index still lists idle sessions. */
  readonly complete: boolean;
}

/**
 * The scheduled idle sweep: closes the conversations the agent serves (NEW, QUALIFYING) once their
 * last activity is `idleTimeoutMs` old, so their retention starts. It reads the activity-ordered
 * index of each state up to the cutoff (bounded Queries, never a Scan) and closes each session
 * through {@link CloseConversation}, on the condition that it is still idle when written: a message
 * registered first makes the close fail and the conversation goes on; a message registered after it
 * opens a new session, which is shown the closed one's last messages. Conversations waiting for or
 * served by a person are left to people and the handoff sweeper.
 */
export class CloseIdleConversations {
  constructor(private readonly deps: IdleSweepDependencies) {}

  /** One run; `remainingMs` is the invocation's time left (Lambda's `getRemainingTimeInMillis`). */
  async sweep(remainingMs: () => number = () => Number.POSITIVE_INFINITY): Promise<IdleSweepReport> {
    const idleSince = addMilliseconds(this.deps.clock.now(), -this.deps.settings.idleTimeoutMs);
    let erased = 0;
    const { listed, handled: closed, complete } = await forEachQuietSession(this.deps.sessions, idleSince, remainingMs, async (session) => {
      if (!isEvaluationCustomer(session.customerId)) return this.closeIfIdle(session, idleSince);
      // Idle for the timeout (an hour at least), longer than a run may last (15 minutes): its run
      // ended without erasing it. Closed, it would reach the CRM and keep its items for the retention.
      await this.deps.leftovers.forget(session.customerId, [session]);
      erased++;
      return false;
    });
    const idle = listed - erased;
    return { idle, closed, kept: idle - closed, ...(erased > 0 && { evaluationLeftoversErased: erased }), complete };
  }

  /** `false` when the session turned out not idle: its activity is newer than the index said, or the close's condition failed. */
  private async closeIfIdle(session: Session, idleSince: IsoTimestamp): Promise<boolean> {
    if (toEpochMicros(lastActivityOf(session)) > toEpochMicros(idleSince)) return false;
    try {
      await this.deps.closer.close(session, IDLE_SWEEP_AUTHOR, { idleSince });
      return true;
    } catch (error) {
      if (error instanceof ConditionFailedError) return false;
      throw error;
    }
  }
}

/** What {@link forEachQuietSession} went through. */
export interface QuietSessionsPass {
  /** Sessions the index listed as quiet since the cutoff. */
  readonly listed: number;
  /** Those the handler acted on (it returned `true`). */
  readonly handled: number;
  /** `false` when the pass stopped at its bound or its deadline. */
  readonly complete: boolean;
}

/**
 * Hands each session of the agent's states whose last activity is at or before `quietSince` to
 * `handle`, longest quiet first, a few at once: bounded Queries of the activity index (never a
 * Scan), and no new page with less than a page's time left.
 */
export async function forEachQuietSession(
  sessions: Pick<SessionRepository, 'listIdle'>,
  quietSince: IsoTimestamp,
  remainingMs: () => number,
  handle: (session: Session) => Promise<boolean>,
): Promise<QuietSessionsPass> {
  let listed = 0;
  let handled = 0;
  let complete = true;
  for (const state of AGENT_OWNED_STATES) {
    let cursor: string | undefined;
    let pages = 0;
    do {
      if (pages === SWEEP_MAX_PAGES || remainingMs() < RESERVE_MS) {
        complete = false;
        break;
      }
      const page = await sessions.listIdle(state, quietSince, { limit: SWEEP_PAGE_SIZE, cursor });
      pages++;
      listed += page.items.length;
      for (let start = 0; start < page.items.length; start += HANDLED_AT_ONCE) {
        const outcomes = await Promise.all(page.items.slice(start, start + HANDLED_AT_ONCE).map(handle));
        handled += outcomes.filter(Boolean).length;
      }
      cursor = page.cursor;
    } while (cursor !== undefined);
  }
  return { listed, handled, complete };
}
