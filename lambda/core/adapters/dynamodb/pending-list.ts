import { advancedWatermark, type CompletedInbound, type LatestInbound } from '../../domain/inbound-receipt';
import { ConditionFailedError } from '../../domain/errors';
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
  async settle(turns: readonly CompletedInbound[], mark: (turn: CompletedInbound) => ReceiptUpdate[]): Promise<void> {
    if (turns.length === 0) return;
    if (new Set(turns.map((turn) => turn.customerId)).size > 1) throw new RangeError('Receipts are settled one customer at a time');
    for (let start = 0; start < turns.length; start += SETTLED_PER_TRANSACTION) {
      await this.settleTogether(turns.slice(start, start + SETTLED_PER_TRANSACTION), mark);
    }
  }

  /** Removes the messages from the pending list, re-reading it when it changed meanwhile. */
  async remove(customerId: string, turns: readonly CompletedInbound[]): Promise<void> {
    for (let attempt = 1; attempt <= PENDING_REMOVAL_ATTEMPTS; attempt++) {
      const removal = await this.removal(customerId, turns);
      if (!removal || (await conditionally(() => this.kit.update(removal)))) return;
    }
    throw new ConditionFailedError(`The pending list of ${customerId} kept changing; completion not recorded on it`);
  }

  private async settleTogether(turns: readonly CompletedInbound[], mark: (turn: CompletedInbound) => ReceiptUpdate[]): Promise<void> {
    const customerId = turns[0].customerId;
    let updates = turns.flatMap(mark);
    for (let attempt = 1; attempt <= PENDING_REMOVAL_ATTEMPTS + updates.length; attempt++) {
      const removal = await this.removal(customerId, turns);
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
      }
    }
    throw new ConditionFailedError(`The pending list of ${customerId} kept changing; completion not recorded on it`);
  }

  private async removal(customerId: string, turns: readonly CompletedInbound[]): Promise<ReceiptUpdate | undefined> {
    const latest = await this.latest(customerId);
    return latest && pendingRemoval(customerId, latest, turns, isoMicros(this.clock.now()));
  }
}

/**
 * The update that removes the messages from the pending list as `latest` shows it, and moves the
 * history watermark past them; `undefined` when there is nothing to change. An index is only valid
 * while the list is unchanged there, so the update is conditioned on each removed position still
 * holding its id (and on the watermark it advances).
 */
function pendingRemoval(customerId: string, latest: LatestInbound, turns: readonly CompletedInbound[], now: string): ReceiptUpdate | undefined {
  const ids = new Set(turns.map((turn) => turn.messageId));
  const positions = latest.pendingMessageIds.flatMap((id, index) => (ids.has(id) ? [index] : []));
  const watermark = advancedWatermark(latest.historyWatermark, turns);
  const watermarkMoves = watermark !== latest.historyWatermark;
  if (positions.length === 0 && !watermarkMoves) return undefined;

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
  const removes = positions.map((position) => `#pending[${position}]`);
  return {
    key: latestInboundKey(customerId),
    update: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
    condition: conditions.join(' AND '),
    names,
    values,
  };
}
