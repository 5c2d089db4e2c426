/**
 * Investigate before redrive: for every turn in the dead-letter queue, read what the table knows
 * about its message — the receipt, the customer's latest-inbound marker and outbox, the active
 * session, the replies already recorded for it — decide what a redrive would do, and do only what
 * is safe (or what the operator confirmed). Works against a deployed pipeline with the operator's
 * credentials, and against the local runtime's endpoints.
 *
 * A redrive puts the customer's parked messages back on the pending list (visible to the agent
 * again) and sends the record to the main queue — same message group, fresh deduplication id — then
 * deletes it from the DLQ. The turn protocol does the rest and never sends a reply twice on its own: a reply
 * already sent only gets its bookkeeping completed, and a message a newer one overtook is completed
 * without a reply.
 */
import { randomUUID } from 'node:crypto';
import { ChangeMessageVisibilityCommand, DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand, type Message as SqsMessage, type SQSClient } from '@aws-sdk/client-sqs';
import { decodeDispatchMessage } from '../../lambda/core/adapters/sqs/dispatch-message';
import type { DynamoRepositories } from '../../lambda/core/adapters/dynamodb/dynamo-repositories';
import type { InboundReceipt, LatestInbound } from '../../lambda/core/domain/inbound-receipt';
import type { Message } from '../../lambda/core/domain/message';
import { isHumanOwned, type Session } from '../../lambda/core/domain/session';

/**
 * - `drop`: the message was consumed already (answered, superseded or sent to a human): nothing to
 *   redo, the record is deleted from the DLQ;
 * - `redrive`: no reply for the message was sent: it goes back to its customer's turn;
 * - `complete`: a reply for it was already sent; the redriven turn only completes the bookkeeping
 *   (the protocol never re-sends a reply recorded as sent);
 * - `confirm`: something is unusual; nothing happens unless the operator confirms `onConfirm`.
 */
export type RedriveVerdict = 'drop' | 'redrive' | 'complete' | 'confirm';

export interface ReplyRecord {
  readonly messageId: string;
  readonly status: string;
  readonly at: string;
  readonly sentAt?: string;
}

export interface ParkedMessage {
  readonly messageId: string;
  /** Its place in the history (where it is, or will be once its turn appends it). */
  readonly historyTimestamp?: string;
}

export interface DeadLetterInspection {
  readonly sqsMessageId: string;
  readonly receiveCount: number;
  /** When the record first entered the main queue. */
  readonly sentAt?: string;
  readonly customer?: string;
  readonly messageId?: string;
  readonly receipt?: InboundReceipt;
  readonly latest?: LatestInbound;
  /** The reply waiting in the customer's outbox, if any (whatever message it answers). */
  readonly outbox?: ReplyRecord & { readonly replyTo: string };
  readonly session?: Pick<Session, 'sessionId' | 'state' | 'updatedAt'>;
  /** Replies recorded for this message (sent, pending, superseded, failed). */
  readonly replies: readonly ReplyRecord[];
  /**
   * The customer's parked messages, oldest first (a failed turn parks every message it drained,
   * while only its own record reaches the DLQ): a redrive restores them all, in this order.
   */
  readonly parked: readonly ParkedMessage[];
  readonly verdict: RedriveVerdict;
  /** Why, in words an operator can check against the fields above. */
  readonly reasons: readonly string[];
  /** What a confirmation of a `confirm` verdict does. */
  readonly onConfirm?: 'drop' | 'redrive';
}

export type RedriveAction = 'dropped' | 'redriven' | 'held' | 'inspected';

export interface RedriveOutcome {
  readonly inspection: DeadLetterInspection;
  readonly action: RedriveAction;
}

export interface DlqRedriveOptions {
  readonly turnQueueUrl: string;
  readonly deadLetterQueueUrl: string;
  readonly sqs: SQSClient;
  readonly repositories: DynamoRepositories;
  /** How long records are held while the run looks at them. Default 300 s. */
  readonly holdSeconds?: number;
  /** Replies searched for in the customer's history, newest first. Default 500. */
  readonly historyDepth?: number;
}

export interface RedriveRunOptions {
  /** Without it, nothing changes: every record is inspected and left in the DLQ. */
  readonly apply: boolean;
  /** Decides each `confirm` verdict (`true`: do `onConfirm`). Default: none confirmed. */
  readonly confirm?: (inspection: DeadLetterInspection) => Promise<boolean>;
  /** Sees each record as soon as it is settled. */
  readonly onOutcome?: (outcome: RedriveOutcome) => void;
}

const BATCH = 10;

export class DlqRedrive {
  private readonly holdSeconds: number;
  private readonly historyDepth: number;

  constructor(private readonly options: DlqRedriveOptions) {
    this.holdSeconds = options.holdSeconds ?? 300;
    this.historyDepth = options.historyDepth ?? 500;
  }

  /**
   * Goes through the DLQ in its FIFO order. A record that stays (dry run, unconfirmed) is held
   * until the end, which also holds the records of the same customer behind it: a customer's
   * messages are redriven in order or not at all.
   */
  async run(options: RedriveRunOptions): Promise<RedriveOutcome[]> {
    const outcomes: RedriveOutcome[] = [];
    const held: string[] = [];
    /** Customers with a record left in the DLQ: their later records wait behind it. */
    const blocked = new Set<string>();
    try {
      for (;;) {
        const { Messages: records = [] } = await this.options.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: this.options.deadLetterQueueUrl,
            MaxNumberOfMessages: BATCH,
            VisibilityTimeout: this.holdSeconds,
            WaitTimeSeconds: 0,
            MessageSystemAttributeNames: ['All'],
          }),
        );
        if (records.length === 0) return outcomes;
        for (const record of records) {
          const group = record.Attributes?.MessageGroupId ?? '';
          const inspection = await this.inspect(record);
          const action = !options.apply ? 'inspected' : blocked.has(group) ? 'held' : await this.settle(record, inspection, options.confirm);
          if (action === 'held' || action === 'inspected') {
            held.push(record.ReceiptHandle!);
            blocked.add(group);
          }
          const outcome = { inspection, action };
          outcomes.push(outcome);
          options.onOutcome?.(outcome);
        }
      }
    } finally {
      for (const receiptHandle of held) {
        await this.options.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: this.options.deadLetterQueueUrl, ReceiptHandle: receiptHandle, VisibilityTimeout: 0 }));
      }
    }
  }

  /** Everything the table knows about the record's message, and the verdict it leads to. */
  async inspect(record: SqsMessage): Promise<DeadLetterInspection> {
    const base = {
      sqsMessageId: record.MessageId ?? '?',
      receiveCount: Number(record.Attributes?.ApproximateReceiveCount ?? 0),
      sentAt: record.Attributes?.SentTimestamp ? new Date(Number(record.Attributes.SentTimestamp)).toISOString() : undefined,
      replies: [] as ReplyRecord[],
      parked: [] as ParkedMessage[],
    };
    const dispatch = decodeDispatchMessage(record.Body ?? '');
    if (dispatch === undefined) {
      return { ...base, verdict: 'confirm', onConfirm: 'drop', reasons: ['The body is not a turn of this pipeline ({phone_number, message_id}): no turn can process it.'] };
    }
    const { receipts, sessions, messages } = this.options.repositories;
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
      return { ...context, verdict: 'confirm', onConfirm: 'redrive', reasons: ['The record names no message: a redrive runs a turn for whatever the customer has pending.'] };
    }
    const messageId = dispatch.messageId;
    const receipt = await receipts.getReceipt({ customerId: customer, messageId });
    const replies = history.filter((message) => message.direction === 'outbound' && message.replyToMessageId === messageId).map(replyRecord);
    const inspection = { ...context, messageId, receipt, replies };
    return { ...inspection, ...verdictFor(inspection) };
  }

  /** Applies the verdict (or the confirmed action); returns what became of the record. */
  private async settle(record: SqsMessage, inspection: DeadLetterInspection, confirm: RedriveRunOptions['confirm']): Promise<RedriveAction> {
    let action: 'drop' | 'redrive';
    if (inspection.verdict === 'confirm') {
      if (!(await confirm?.(inspection))) return 'held';
      action = inspection.onConfirm ?? 'drop';
    } else {
      action = inspection.verdict === 'drop' ? 'drop' : 'redrive';
    }
    if (action === 'redrive') await this.redrive(record, inspection);
    await this.options.sqs.send(new DeleteMessageCommand({ QueueUrl: this.options.deadLetterQueueUrl, ReceiptHandle: record.ReceiptHandle }));
    return action === 'redrive' ? 'redriven' : 'dropped';
  }

  /**
   * Each step is idempotent, so a redrive interrupted half-way is finished by running it again.
   * The history entry is shown to the agent again before the message goes back on the pending
   * list: a turn must never drain a message the agent cannot see.
   */
  private async redrive(record: SqsMessage, inspection: DeadLetterInspection): Promise<void> {
    const { receipts, messages } = this.options.repositories;
    const { customer } = inspection;
    if (customer !== undefined) {
      // Oldest first: restoring appends to the pending list, the order turns drain in.
      for (const { messageId, historyTimestamp } of inspection.parked) {
        // A message parked before its turn appended it has no history entry yet: nothing to show.
        if (historyTimestamp !== undefined) await messages.setQuarantined(messages.refFor({ customerId: customer, messageId, timestamp: historyTimestamp }), null);
        await receipts.restoreDeadLettered({ customerId: customer, messageId });
      }
    }
    await this.options.sqs.send(
      new SendMessageCommand({
        QueueUrl: this.options.turnQueueUrl,
        MessageBody: record.Body,
        MessageGroupId: record.Attributes?.MessageGroupId ?? customer,
        // A fresh id: the original one is still in the queue's deduplication window.
        MessageDeduplicationId: randomUUID(),
      }),
    );
  }

  /** The customer's history, oldest first, as far back as `historyDepth` messages. */
  private async recentHistory(customer: string): Promise<Message[]> {
    const newestFirst: Message[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.options.repositories.messages.history(customer, { limit: 100, cursor });
      newestFirst.push(...page.items);
      cursor = page.cursor;
    } while (cursor !== undefined && newestFirst.length < this.historyDepth);
    return newestFirst.reverse();
  }
}

function replyRecord(message: Message): ReplyRecord {
  return { messageId: message.messageId, status: message.deliveryStatus ?? 'unknown', at: message.timestamp, ...(message.sentAt ? { sentAt: message.sentAt } : {}) };
}

type Facts = Pick<DeadLetterInspection, 'messageId' | 'receipt' | 'latest' | 'outbox' | 'session' | 'replies' | 'parked'>;

/** The decision table of the runbook (docs/RELIABILITY.md), one row per case. */
export function verdictFor({ messageId, receipt, latest, outbox, session, replies, parked }: Facts): Pick<DeadLetterInspection, 'verdict' | 'reasons' | 'onConfirm'> {
  const sent = replies.find((reply) => reply.status === 'sent');
  const owner = session && isHumanOwned(session.state) ? ` A human owns the session (${session.state}): the message goes to their inbox.` : '';
  const overtaken = latest?.latestMessageId !== undefined && latest.latestMessageId !== messageId ? ' A newer message is the latest: the turn completes this one without a reply.' : '';
  if (receipt === undefined) {
    return {
      verdict: 'confirm',
      onConfirm: 'drop',
      reasons: ['No receipt: it expired (receipts live 7 days, the DLQ keeps records 14) or the message was never registered. Nothing can be redriven; the history still shows what the customer wrote.'],
    };
  }
  const consumed =
    receipt.completedAt !== undefined
      ? `Completed at ${receipt.completedAt}${sent ? `; its reply was sent at ${sent.sentAt ?? sent.at}` : ' (answered together with, or overtaken by, another message)'}.`
      : receipt.humanRoutedAt !== undefined
        ? `Routed to the human inbox at ${receipt.humanRoutedAt}: not the agent's to answer.`
        : undefined;
  if (consumed !== undefined) {
    if (parked.length > 0) return { verdict: 'redrive', reasons: [`${consumed} But the customer has parked messages: the redrive restores them and runs their turn.${overtaken}`] };
    if (outbox !== undefined) {
      return { verdict: 'redrive', reasons: [`${consumed} But a reply (${outbox.status}) is still in the customer's outbox: the redriven turn settles it and sends nothing already sent.`] };
    }
    return { verdict: 'drop', reasons: [`${consumed} Nothing to redo.`] };
  }
  if (latest?.invalidatedAt !== undefined) {
    return { verdict: 'confirm', onConfirm: 'redrive', reasons: [`The customer's pending messages were invalidated at ${latest.invalidatedAt} (an operator barrier): check why before redriving.`] };
  }
  const isParked = receipt.deadLetteredAt !== undefined;
  const pending = messageId !== undefined && (latest?.pendingMessageIds.includes(messageId) ?? false);
  if (!isParked && !pending) {
    return {
      verdict: 'confirm',
      onConfirm: 'drop',
      reasons: ['Neither completed nor parked, and not on the pending list: a turn would find nothing to do. Check the receipt before dropping it.'],
    };
  }
  const others = parked.filter((message) => message.messageId !== messageId).length;
  const where = `${isParked ? `Parked at ${receipt.deadLetteredAt} (hidden from the agent until redriven).` : 'Still on the pending list.'}${
    others > 0 ? ` ${others} other parked message(s) of the customer come back with it.` : ''
  }`;
  if (sent) {
    return {
      verdict: 'complete',
      reasons: [`${where} Its reply was already sent at ${sent.sentAt ?? sent.at}: the redriven turn completes the bookkeeping and never sends it again.${overtaken}`],
    };
  }
  const waiting = outbox !== undefined && outbox.replyTo === messageId && outbox.status === 'pending_send';
  return {
    verdict: 'redrive',
    reasons: [
      `${where} No reply for it was sent.${
        waiting ? ' Its reply waits in the outbox: the turn sends it without asking the agent again (if earlier attempts timed out, WhatsApp may have delivered it already: see ReplyOutcomeUnknown).' : ''
      }${overtaken}${owner}`,
    ],
  };
}

/** A record's inspection as the operator reads it. */
export function describeInspection(inspection: DeadLetterInspection, action: RedriveAction): string {
  const { receipt, latest, outbox, session } = inspection;
  const markers = receipt
    ? (['registeredAt', 'agentRoutedAt', 'humanRoutedAt', 'dispatchedAt', 'completedAt', 'deadLetteredAt'] as const)
        .flatMap((marker) => (receipt[marker] ? [`${marker.replace(/At$/, '')} ${receipt[marker]}`] : []))
        .join(', ')
    : 'none';
  return [
    `record ${inspection.sqsMessageId} · received ${inspection.receiveCount}× · queued ${inspection.sentAt ?? '?'}`,
    `  customer   ${inspection.customer ?? '?'} · message ${inspection.messageId ?? '?'}`,
    `  receipt    ${markers}`,
    `  latest     ${latest ? `${latest.latestMessageId ?? '-'} · pending [${latest.pendingMessageIds.join(', ')}]${latest.invalidatedAt ? ` · invalidated ${latest.invalidatedAt}` : ''}` : 'none'}`,
    `  outbox     ${outbox ? `${outbox.messageId} (${outbox.status}) answering ${outbox.replyTo}` : 'empty'}`,
    `  session    ${session ? `${session.sessionId} · ${session.state} · updated ${session.updatedAt}` : 'none'}`,
    `  parked     ${inspection.parked.length > 0 ? inspection.parked.map((message) => message.messageId).join(', ') : 'none'}`,
    `  replies    ${inspection.replies.length > 0 ? inspection.replies.map((reply) => `${reply.messageId} ${reply.status}${reply.sentAt ? ` ${reply.sentAt}` : ''}`).join('; ') : 'none'}`,
    `  verdict    ${inspection.verdict}${inspection.onConfirm ? ` (confirmed: ${inspection.onConfirm})` : ''} → ${action}`,
    ...inspection.reasons.map((reason) => `  why        ${reason}`),
  ].join('\n');
}
