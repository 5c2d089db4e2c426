import { explainedVerdict, verdictFor, type DeadLetterInspection, type ParkedMessage, type ReplyRecord } from '../domain/dead-letter-verdict';
import type { Message } from '../domain/message';
import type { DeadLetterQueue, DeadLetterRecord } from '../ports/dead-letter-queue';
import type { InboundReceiptRepository, MessageRepository, SessionRepository } from '../ports/repositories';

export type RedriveAction = 'dropped' | 'redriven' | 'held' | 'inspected';

export interface RedriveOutcome {
  readonly inspection: DeadLetterInspection;
  readonly action: RedriveAction;
}

export interface RedriveDeadLettersDependencies {
  readonly deadLetters: DeadLetterQueue;
  readonly receipts: InboundReceiptRepository;
  readonly sessions: SessionRepository;
  readonly messages: MessageRepository;
  /** How long records are held while the run looks at them. Default 300 s. */
  readonly holdSeconds?: number;
  /** Replies searched for in the customer's history, newest first. Default 500. */
  readonly historyDepth?: number;
}

export interface RedriveRunOptions {
  /** Without it, nothing changes: every record is inspected and left in the dead-letter queue. */
  readonly apply: boolean;
  /** Decides each `confirm` verdict (`true`: do `onConfirm`). Default: none confirmed. */
  readonly confirm?: (inspection: DeadLetterInspection) => Promise<boolean>;
  /** Sees each record as soon as it is settled. */
  readonly onOutcome?: (outcome: RedriveOutcome) => void;
}

/**
 * Investigate before redrive (docs/DESIGN.md#dead-letters-and-redrive): for every turn in the
 * dead-letter queue, read what the table knows about its message — the receipt, the customer's
 * latest-inbound marker and outbox, the active session, the replies already recorded for it —
 * decide what a redrive would do, and do only what is safe (or what the operator confirmed).
 *
 * A redrive puts the customer's parked messages back on the pending list (visible to the agent
 * again) and sends the record back to the turn queue, then deletes it from the dead-letter queue.
 * The turn protocol does the rest and never sends a reply twice on its own: a reply already sent
 * only gets its bookkeeping completed, and a message a newer one overtook is completed without a
 * reply.
 */
export class RedriveDeadLetters {
  private readonly holdSeconds: number;
  private readonly historyDepth: number;

  constructor(private readonly deps: RedriveDeadLettersDependencies) {
    this.holdSeconds = deps.holdSeconds ?? 300;
    this.historyDepth = deps.historyDepth ?? 500;
  }

  /** The dry run: every record inspected, nothing changed. */
  async inspectAll(): Promise<DeadLetterInspection[]> {
    return (await this.run({ apply: false })).map((outcome) => outcome.inspection);
  }

  /**
   * Goes through the dead-letter queue in its FIFO order. A record that stays (dry run,
   * unconfirmed) is held until the end, which also holds the records of the same customer behind
   * it: a customer's messages are redriven in order or not at all.
   */
  async run(options: RedriveRunOptions): Promise<RedriveOutcome[]> {
    const outcomes: RedriveOutcome[] = [];
    const held: DeadLetterRecord[] = [];
    /** Customers with a record left in the queue: their later records wait behind it. */
    const blocked = new Set<string>();
    try {
      for (;;) {
        const records = await this.deps.deadLetters.receive(this.holdSeconds);
        if (records.length === 0) return outcomes;
        for (const record of records) {
          const group = record.groupId ?? '';
          const inspection = await this.inspect(record);
          const action = !options.apply ? 'inspected' : blocked.has(group) ? 'held' : await this.settle(record, inspection, options.confirm);
          if (action === 'held' || action === 'inspected') {
            held.push(record);
            blocked.add(group);
          }
          const outcome = { inspection, action };
          outcomes.push(outcome);
          options.onOutcome?.(outcome);
        }
      }
    } finally {
      for (const record of held) await this.deps.deadLetters.release(record);
    }
  }

  /** Everything the table knows about the record's message, and the verdict it leads to. */
  async inspect(record: DeadLetterRecord): Promise<DeadLetterInspection> {
    const base = { recordId: record.recordId, receiveCount: record.receiveCount, queuedAt: record.queuedAt, replies: [] as ReplyRecord[], parked: [] as ParkedMessage[] };
    const dispatch = record.turn;
    if (dispatch === undefined) {
      return { ...base, ...explainedVerdict({ verdict: 'confirm', onConfirm: 'drop' }, { code: 'not_a_turn' }) };
    }
    const { receipts, sessions, messages } = this.deps;
    const customer = dispatch.customerId;
    const [latest, session, history, parked] = await Promise.all([
      receipts.getLatest(customer),
      sessions.getActive(customer),
      this.recentHistory(customer),
      receipts.listDeadLettered(customer),
    ]);
    const outboxReply = latest?.outbox && (await messages.getOutbound(latest.outbox.ref));
    const context = {
      ...base,
      customer,
      latest,
      session: session && { sessionId: session.sessionId, state: session.state, updatedAt: session.updatedAt },
      outbox: latest?.outbox && outboxReply ? { ...replyRecord(outboxReply), replyTo: latest.outbox.replyToMessageId } : undefined,
      parked: parked.map(({ turn, historyTimestamp }) => ({ messageId: turn.messageId, historyTimestamp })),
    };
    if (dispatch.messageId === undefined) {
      return { ...context, ...explainedVerdict({ verdict: 'confirm', onConfirm: 'redrive' }, { code: 'no_message' }) };
    }
    const messageId = dispatch.messageId;
    const receipt = await receipts.getReceipt({ customerId: customer, messageId });
    const replies = history.filter((message) => message.direction === 'outbound' && message.replyToMessageId === messageId).map(replyRecord);
    const inspection = { ...context, messageId, receipt, replies };
    return { ...inspection, ...verdictFor(inspection) };
  }

  /** Applies the verdict (or the confirmed action); returns what became of the record. */
  private async settle(record: DeadLetterRecord, inspection: DeadLetterInspection, confirm: RedriveRunOptions['confirm']): Promise<RedriveAction> {
    let action: 'drop' | 'redrive';
    if (inspection.verdict === 'confirm') {
      if (!(await confirm?.(inspection))) return 'held';
      action = inspection.onConfirm ?? 'drop';
    } else {
      action = inspection.verdict === 'drop' ? 'drop' : 'redrive';
    }
    if (action === 'redrive') await this.redrive(record, inspection);
    await this.deps.deadLetters.remove(record);
    return action === 'redrive' ? 'redriven' : 'dropped';
  }

  /**
   * Each step is idempotent, so a redrive interrupted half-way is finished by running it again.
   * The history entry is shown to the agent again before the message goes back on the pending
   * list: a turn must never drain a message the agent cannot see.
   */
  private async redrive(record: DeadLetterRecord, inspection: DeadLetterInspection): Promise<void> {
    const { receipts, messages } = this.deps;
    const { customer } = inspection;
    if (customer !== undefined) {
      // Oldest first: restoring appends to the pending list, the order turns drain in.
      for (const { messageId, historyTimestamp } of inspection.parked) {
        // A message parked before its turn appended it has no history entry yet: nothing to show.
        if (historyTimestamp !== undefined) await messages.setQuarantined(messages.refFor({ customerId: customer, messageId, timestamp: historyTimestamp }), null);
        await receipts.restoreDeadLettered({ customerId: customer, messageId });
      }
    }
    await this.deps.deadLetters.sendBackToTurnQueue({ ...record, groupId: record.groupId ?? customer });
  }

  /** The customer's history, oldest first, as far back as `historyDepth` messages. */
  private async recentHistory(customer: string): Promise<Message[]> {
    const newestFirst: Message[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.deps.messages.history(customer, { limit: 100, cursor });
      newestFirst.push(...page.items);
      cursor = page.cursor;
    } while (cursor !== undefined && newestFirst.length < this.historyDepth);
    return newestFirst.reverse();
  }
}

function replyRecord(message: Message): ReplyRecord {
  return { messageId: message.messageId, status: message.deliveryStatus ?? 'unknown', at: message.timestamp, ...(message.sentAt ? { sentAt: message.sentAt } : {}) };
}
