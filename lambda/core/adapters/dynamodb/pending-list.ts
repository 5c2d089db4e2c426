import { advancedWatermark, type CompletedInbound, type LatestInbound } from '../../domain/inbound-receipt';
import { ConditionFailedError } from '../../ports/repositories';
import { isoMicros } from '../../domain/timestamps';
import type { Clock } from '../../ports/clock';
import type { DynamoKit, TransactAction, UpdateRequest } from './dynamo-kit';
import { InboundAttribute as A, latestInboundFromItem } from './codecs/inbound-codec';
import { latestInboundKey } from './keys';
import { conditionally, retryTransactionConflicts } from './repository-support';

/** Attempts of the read-then-conditional-remove on the pending list before giving up. */
const PENDING_REMOVAL_ATTEMPTS = 8;

/**
 * Messages settled per transaction: DynamoDB allows 100 actions; each message takes up to two (its
 * receipt and its history entry) and the pending list one.
 */
const SETTLED_PER_TRANSACTION = 49;

export type ReceiptUpdate = Omit<UpdateRequest, 'returnValues'>;

export interface SettleOptions {
  /** The marker as just read (consistently): the first transaction is built on it without reading. */
  readonly latest?: LatestInbound;
  /** Written with the first chunk, each left out if its own condition fails (e.g. a reply's status). */
  readonly alongside?: readonly ReceiptUpdate[];
  /** The outbox reference removed with the last chunk, while the marker still holds it. */
  readonly outboxSortKey?: string;
}

export interface RemoveOptions {
  /**
   * When one of the messages removed is the latest, the newest message left on the list becomes the
   * latest: the turn that drains it then passes the latest-message guard. For a message that is
   * gone as if never sent (the customer deleted it), not for one consumed elsewhere.
   */
  readonly handLatestBack?: boolean;
}

/**
 * Writes to the pending list of the customer's LATEST_INBOUND marker. The list is changed by index,
 * so every write is conditioned on the positions it removes and re-read when it lost a race.
 */
export class PendingList {
  constructor(
    private readonly kit: DynamoKit,
    private readonly clock: Clock,
  ) {}

  async latest(customerId: string): Promise<LatestInbound | undefined> {
    const item = await this.kit.get({ key: latestInboundKey(customerId), consistentRead: true });
    return item && latestInboundFromItem(item);
  }

  /**
   * Marks the receipts (and what goes with them) and takes them off the pending list in ONE
   * transaction per chunk. Separate writes could be cut between them, leaving a settled message on
   * the list: no later turn would ever remove it (only unsettled receipts are drained), and the
   * history watermark would stay behind it.
   */
  async settle(customerId: string, turns: readonly CompletedInbound[], mark: (turn: CompletedInbound) => ReceiptUpdate[], options: SettleOptions = {}): Promise<void> {
    if (turns.some((turn) => turn.customerId !== customerId)) throw new RangeError('Receipts are settled one customer at a time');
    const chunks: CompletedInbound[][] = [];
    for (let start = 0; start < turns.length; start += SETTLED_PER_TRANSACTION) chunks.push(turns.slice(start, start + SETTLED_PER_TRANSACTION));
    if (chunks.length === 0) {
      if ((options.alongside ?? []).length === 0 && options.outboxSortKey === undefined) return;
      chunks.push([]);
    }
    let known = options.latest;
    for (const [index, chunk] of chunks.entries()) {
      const first = index === 0;
      const last = index === chunks.length - 1;
      // What goes with the first chunk is recorded even if a later chunk fails; the outbox is cleared
      // with the last one only, so a retry still finds the reply that owns the rest.
      const updates = [...chunk.flatMap(mark), ...(first ? (options.alongside ?? []) : [])];
      await this.settleTogether(customerId, chunk, updates, known, last ? options.outboxSortKey : undefined);
      known = undefined;
    }
  }

  /** Removes the messages from the pending list, re-reading it when it changed meanwhile. */
  async remove(customerId: string, turns: readonly CompletedInbound[], options: RemoveOptions = {}): Promise<void> {
    for (let attempt = 1; attempt <= PENDING_REMOVAL_ATTEMPTS; attempt++) {
      const removal = await this.removal(customerId, turns, options);
      if (!removal || (await conditionally(() => this.kit.update(removal)))) return;
    }
    throw new ConditionFailedError(`The pending list of ${customerId} kept changing; completion not recorded on it`);
  }

  private async settleTogether(customerId: string, turns: readonly CompletedInbound[], updates: ReceiptUpdate[], known: LatestInbound | undefined, outboxSortKey: string | undefined): Promise<void> {
    let latest = known;
    for (let attempt = 1; attempt <= PENDING_REMOVAL_ATTEMPTS + updates.length; attempt++) {
      latest ??= await this.latest(customerId);
      const removal = latest && pendingRemoval(customerId, latest, turns, isoMicros(this.clock.now()), outboxSortKey);
      const actions: TransactAction[] = [...updates, ...(removal ? [removal] : [])].map((update) => ({ update }));
      if (actions.length === 0) return;
      try {
        await retryTransactionConflicts(() => this.kit.transact(actions));
        return;
      } catch (error) {
        if (!(error instanceof ConditionFailedError)) throw error;
        // An update whose condition failed is left out; a failed list condition means the list
        // changed meanwhile: read it again.
        updates = updates.filter((_, index) => !error.failedAt(index));
        latest = undefined;
      }
    }
    throw new ConditionFailedError(`The pending list of ${customerId} kept changing; completion not recorded on it`);
  }

  private async removal(customerId: string, turns: readonly CompletedInbound[], options: RemoveOptions): Promise<ReceiptUpdate | undefined> {
    const latest = await this.latest(customerId);
    return latest && pendingRemoval(customerId, latest, turns, isoMicros(this.clock.now()), undefined, options.handLatestBack);
  }
}

/**
 * The update that removes the messages from the pending list as `latest` shows it, and moves the
 * history watermark past them; `undefined` when there is nothing to change. An index is only valid
 * while the list is unchanged there, so the update is conditioned on each removed position still
 * holding its id (and on the watermark it advances).
 */
function pendingRemoval(customerId: string, latest: LatestInbound, turns: readonly CompletedInbound[], now: string, outboxSortKey?: string, handLatestBack = false): ReceiptUpdate | undefined {
  const ids = new Set(turns.map((turn) => turn.messageId));
  const positions = latest.pendingMessageIds.flatMap((id, index) => (ids.has(id) ? [index] : []));
  const successor = handLatestBack && latest.latestMessageId !== undefined && ids.has(latest.latestMessageId) ? latest.pendingMessageIds.filter((id) => !ids.has(id)).at(-1) : undefined;
  const watermark = advancedWatermark(latest.historyWatermark, turns);
  const watermarkMoves = watermark !== latest.historyWatermark;
  // Another record may have settled the reply already: then its reference is gone, or names a newer reply.
  const clearsOutbox = outboxSortKey !== undefined && latest.outbox?.ref.sortKey === outboxSortKey;
  if (positions.length === 0 && !watermarkMoves && !clearsOutbox && successor === undefined) return undefined;

  const names: Record<string, string> = { '#updated': A.updatedAt, '#watermark': A.historyWatermark };
  if (positions.length > 0) names['#pending'] = A.pendingMessageIds;
  const values: Record<string, unknown> = { ':now': now };
  const conditions = positions.map((position, index) => {
    values[`:id${index}`] = latest.pendingMessageIds[position];
    return `#pending[${position}] = :id${index}`;
  });
  conditions.push(latest.historyWatermark === undefined ? 'attribute_not_exists(#watermark)' : '#watermark = :oldWatermark');
  if (latest.historyWatermark !== undefined) values[':oldWatermark'] = latest.historyWatermark;
  const sets = ['#updated = :now'];
  if (watermarkMoves) {
    sets.push('#watermark = :watermark');
    values[':watermark'] = watermark;
  }
  if (successor !== undefined) {
    // A registration in between makes its own message the latest: the condition keeps it so.
    names['#latest'] = A.latestMessageId;
    values[':successor'] = successor;
    values[':removedLatest'] = latest.latestMessageId;
    sets.push('#latest = :successor');
    conditions.push('#latest = :removedLatest');
  }
  const removes = positions.map((position) => `#pending[${position}]`);
  if (clearsOutbox) {
    Object.assign(names, { '#outbox': A.outboxMessageSk, '#replyTo': A.outboxReplyTo });
    values[':outbox'] = outboxSortKey;
    conditions.push('#outbox = :outbox');
    removes.push('#outbox', '#replyTo');
  }
  return {
    key: latestInboundKey(customerId),
    update: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
    condition: conditions.join(' AND '),
    names,
    values,
  };
}
