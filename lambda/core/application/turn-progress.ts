import type { OutboundRef } from '../domain/message';
import type { Session } from '../domain/session';

/**
 * How far a turn got, kept for its failure path (turn-failure.ts): whether the failure is the
 * agent's, whether the turn's result may be written (before the write, during it — the outcome
 * unknown when it failed — or past it), and where its messages and its reply are.
 */
export class TurnProgress {
  private appendedTo?: Session;
  private agentAnswering = false;
  private resultWrite: 'not_started' | 'attempted' | 'done' = 'not_started';
  private replyRef?: OutboundRef;

  constructor(
    /** The record goes to the dead-letter queue if this attempt fails: a failed download no longer waits for a retry. */
    readonly finalAttempt: boolean,
  ) {}

  /** The drained messages are in `session`'s history. */
  appended(session: Session): void {
    this.appendedTo = session;
  }

  /** Runs the agent call: until it answers, a failure is the agent's. */
  async askingAgent<T>(ask: () => Promise<T>): Promise<T> {
    this.agentAnswering = true;
    const answer = await ask();
    this.agentAnswering = false;
    return answer;
  }

  /** Runs the result write, whose reply (when it has one) is stored at `reply`: if `write` fails, it may have been applied all the same. */
  async writingResult<T>(reply: OutboundRef | undefined, write: () => Promise<T>): Promise<T> {
    this.replyRef = reply;
    this.resultWrite = 'attempted';
    const written = await write();
    this.resultWrite = 'done';
    return written;
  }

  /** The session the drained messages were appended to, once they were (for an agent's turn). */
  get session(): Session | undefined {
    return this.appendedTo;
  }

  /** The agent was asked and has not answered. */
  get failedInAgent(): boolean {
    return this.agentAnswering;
  }

  /** Where the reply the turn writes is stored, once the write started. */
  get reply(): OutboundRef | undefined {
    return this.replyRef;
  }

  /** `attempted`: the write failed, and DynamoDB may have applied it all the same. */
  get resultWriteState(): 'not_started' | 'attempted' | 'done' {
    return this.resultWrite;
  }
}
