import { ConditionFailedError, type SessionRepository } from '../ports/repositories';
import { AGENT_OWNED_STATES, lastActivityOf, type Session } from '../domain/session';
import { addMilliseconds, toEpochMicros, type IsoTimestamp } from '../domain/timestamps';
import type { Clock } from '../ports/clock';
import { IDLE_SWEEP_AUTHOR, type CloseConversation } from './close-conversation';

/** Sessions read per page of the activity index, and pages per agent state and run: a run closes at most 2 × 500. */
const SWEEP_PAGE_SIZE = 50;
const SWEEP_MAX_PAGES = 10;
/** Closes in flight at once: each is a transaction, a pointer update, its history's TTL and an audit event. */
const CLOSES_AT_ONCE = 5;
/** A run takes no new page with less time left than this: a page's closes fit in it. */
const RESERVE_MS = 30_000;

export interface IdleSweepSettings {
  /** A conversation the agent serves is closed this long after its last activity (`conversationIdleTimeout`). */
  readonly idleTimeoutMs: number;
}

export interface IdleSweepDependencies {
  readonly sessions: SessionRepository;
  readonly closer: CloseConversation;
  readonly clock: Clock;
  readonly settings: IdleSweepSettings;
}

export interface IdleSweepReport {
  /** Sessions the index listed as idle. */
  readonly idle: number;
  readonly closed: number;
  /** Listed, but the customer wrote again (before or during the close), or the session moved on. */
  readonly kept: number;
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
    let idle = 0;
    let closed = 0;
    let complete = true;
    for (const state of AGENT_OWNED_STATES) {
      let cursor: string | undefined;
      let pages = 0;
      do {
        if (pages === SWEEP_MAX_PAGES || remainingMs() < RESERVE_MS) {
          complete = false;
          break;
        }
        const page = await this.deps.sessions.listIdle(state, idleSince, { limit: SWEEP_PAGE_SIZE, cursor });
        pages++;
        idle += page.items.length;
        for (let start = 0; start < page.items.length; start += CLOSES_AT_ONCE) {
          const outcomes = await Promise.all(page.items.slice(start, start + CLOSES_AT_ONCE).map((session) => this.closeIfIdle(session, idleSince)));
          closed += outcomes.filter(Boolean).length;
        }
        cursor = page.cursor;
      } while (cursor !== undefined);
    }
    return { idle, closed, kept: idle - closed, complete };
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
