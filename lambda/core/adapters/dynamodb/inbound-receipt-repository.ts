import { ConditionFailedError } from '../../domain/errors';
import type { InboundReceipt, InboundRegistration, LatestInbound, PendingInbound, RegisterInboundOptions } from '../../domain/inbound-receipt';
import type { InboundTurn } from '../../domain/inbound-turn';
import type { DebounceBuffer, PendingReply } from '../../domain/legacy-debounce';
import type { OutboundRef } from '../../domain/message';
import { AGENT_ROUTED_STATES } from '../../domain/session';
import { epochSeconds, isoMicros, latestOf, nextMicrosecond, toEpochMicros } from '../../domain/timestamps';
import type { Clock } from '../../ports/clock';
import type { CompletedInbound, InboundReceiptRepository, InboundRef } from '../../ports/repositories';
import type { DynamoKit, TransactAction, UpdateRequest } from './dynamo-kit';
import {
  debounceBufferFromItem,
  debounceBufferToItem,
  InboundAttribute as A,
  latestInboundFromItem,
  pendingReplyFromItem,
  pendingReplyToItem,
  receiptFromItem,
  receiptToItem,
} from './codecs/inbound-codec';
import { MessageAttribute } from './codecs/message-codec';
import { ActivePointerAttribute } from './codecs/session-codec';
import { activePointerKey, debounceBufferKey, ENTITY_TYPE, EntityType, inboundReceiptKey, inboundReceiptPrefix, latestInboundKey, messageKey, pendingReplyKey } from './keys';
import { conditionally, IF_ABSENT, ITEM_EXISTS, KEY_NAMES, retryTransactionConflicts } from './repository-support';

/** Meta retries a webhook for up to 7 days, so a receipt must outlive that. */
export const RECEIPT_RETENTION_SECONDS = 7 * 24 * 60 * 60;

/** Attempts of the read-then-conditional-remove on the pending list before giving up. */
const PENDING_REMOVAL_ATTEMPTS = 8;

/**
 * Messages settled per transaction: DynamoDB allows 100 actions; each message takes up to two (its
 * receipt and its history entry) and the pending list one.
 */
const SETTLED_PER_TRANSACTION = 49;

/**
 * Inbound receipts and the per-customer LATEST_INBOUND marker: durable deduplication, the ordered
 * pending list, latest-message-wins checks, durable completion and the outbox reference; plus the
 * legacy BUFFER / PENDING_REPLY items of the former debounce design.
 */
/**
 * Holds only when the customer has no active session, or the ACTIVE pointer records a state in which
 * the agent answers. A pointer without a recorded state fails it too: then the caller reads the
 * session itself.
 */
function agentMayAnswer(phone: string): TransactAction {
  const states = Object.fromEntries(AGENT_ROUTED_STATES.map((state, index) => [`:agentState${index}`, state]));
  return {
    conditionCheck: {
      key: activePointerKey(phone),
      condition: `attribute_not_exists(#pk) OR #pointerState IN (${Object.keys(states).join(', ')})`,
      names: { '#pk': KEY_NAMES['#pk'], '#pointerState': ActivePointerAttribute.sessionState },
      values: states,
    },
  };
}

export class DynamoInboundReceiptRepository implements InboundReceiptRepository {
  constructor(
    private readonly kit: DynamoKit,
    private readonly clock: Clock,
  ) {}

  private now(): string {
    return isoMicros(this.clock.now());
  }

  async registerInbound(turn: InboundTurn, options: RegisterInboundOptions = {}): Promise<InboundRegistration> {
    const now = this.clock.now();
    const routeToAgent = options.routeToAgentUnlessHumanOwned === true;
    const registeredAt = isoMicros(now);
    const receipt: InboundReceipt = {
      turn,
      registeredAt,
      expiresAtEpochSeconds: epochSeconds(now) + RECEIPT_RETENTION_SECONDS,
      ...(routeToAgent ? { agentRoutedAt: registeredAt } : {}),
    };
    try {
      // Retrying a conflict is safe: a second attempt either registers or finds the duplicate.
      await retryTransactionConflicts(() =>
        this.kit.transact([
          { put: { item: receiptToItem(receipt), ...IF_ABSENT } },
          {
            update: {
              key: latestInboundKey(turn.phoneNumber),
              update: 'SET #type = :type, #phone = :phone, #latest = :id, #pending = list_append(if_not_exists(#pending, :empty), :ids), #updated = :now REMOVE #invalidated',
              names: {
                '#type': ENTITY_TYPE,
                '#phone': A.phoneNumber,
                '#latest': A.latestMessageId,
                '#pending': A.pendingMessageIds,
                '#updated': A.updatedAt,
                '#invalidated': A.invalidatedAt,
              },
              values: { ':type': EntityType.latestInbound, ':phone': turn.phoneNumber, ':id': turn.messageId, ':ids': [turn.messageId], ':empty': [], ':now': receipt.registeredAt },
            },
          },
          ...(routeToAgent ? [agentMayAnswer(turn.phoneNumber)] : []),
        ]),
      );
      return { isDuplicate: false, alreadyDispatched: false, alreadyCompleted: false, agentRouted: routeToAgent };
    } catch (error) {
      if (!(error instanceof ConditionFailedError)) throw error;
      if (error.failedAt(0)) {
        const existing = await this.getReceipt(turn);
        return {
          isDuplicate: true,
          alreadyDispatched: existing?.dispatchedAt !== undefined,
          alreadyCompleted: existing?.completedAt !== undefined,
          agentRouted: existing?.agentRoutedAt !== undefined,
        };
      }
      if (routeToAgent && error.failedAt(2)) return this.registerInbound(turn);
      throw error;
    }
  }

  async getReceipt(ref: InboundRef): Promise<InboundReceipt | undefined> {
    const item = await this.kit.get({ key: inboundReceiptKey(ref.phoneNumber, ref.messageId), consistentRead: true });
    return item && receiptFromItem(item);
  }

  markAgentRouted(ref: InboundRef): Promise<boolean> {
    return this.markReceipt(ref, A.agentRoutedAt, [A.syncClaimedAt, A.humanRoutedAt, A.completedAt]);
  }

  async markHumanRouted(ref: InboundRef): Promise<boolean> {
    if (!(await this.markReceipt(ref, A.humanRoutedAt, [A.agentRoutedAt, A.syncClaimedAt, A.completedAt]))) return false;
    await this.removeFromPending(ref.phoneNumber, [ref]);
    return true;
  }

  async markDispatched(ref: InboundRef): Promise<void> {
    await this.kit.update({
      key: inboundReceiptKey(ref.phoneNumber, ref.messageId),
      update: 'SET #marker = if_not_exists(#marker, :now)',
      condition: ITEM_EXISTS,
      names: { '#pk': KEY_NAMES['#pk'], '#marker': A.dispatchedAt },
      values: { ':now': this.now() },
    });
  }

  tryClaimSync(ref: InboundRef): Promise<boolean> {
    return this.markReceipt(ref, A.syncClaimedAt, [A.syncClaimedAt, A.agentRoutedAt, A.humanRoutedAt, A.completedAt]);
  }

  async releaseSyncClaim(ref: InboundRef): Promise<void> {
    // A receipt that is gone has no claim left to release.
    await conditionally(() =>
      this.kit.update({
        key: inboundReceiptKey(ref.phoneNumber, ref.messageId),
        update: 'REMOVE #claim',
        condition: ITEM_EXISTS,
        names: { '#pk': KEY_NAMES['#pk'], '#claim': A.syncClaimedAt },
      }),
    );
  }

  /**
   * Sets `marker` (keeping the first instant) on an existing receipt that carries none of the
   * `exclusive` markers. Setting a marker that is already set succeeds (idempotent) unless the
   * marker is itself listed as exclusive.
   */
  private markReceipt(ref: InboundRef, marker: string, exclusive: readonly string[]): Promise<boolean> {
    const names: Record<string, string> = { '#pk': KEY_NAMES['#pk'], '#marker': marker };
    exclusive.forEach((name, index) => (names[`#x${index}`] = name));
    return conditionally(() =>
      this.kit.update({
        key: inboundReceiptKey(ref.phoneNumber, ref.messageId),
        update: 'SET #marker = if_not_exists(#marker, :now)',
        condition: [ITEM_EXISTS, ...exclusive.map((_, index) => `attribute_not_exists(#x${index})`)].join(' AND '),
        names,
        values: { ':now': this.now() },
      }),
    );
  }

  async getLatest(phone: string): Promise<LatestInbound | undefined> {
    const item = await this.kit.get({ key: latestInboundKey(phone), consistentRead: true });
    return item && latestInboundFromItem(item);
  }

  async isLatest(phone: string, messageId: string): Promise<boolean> {
    return (await this.getLatest(phone))?.latestMessageId === messageId;
  }

  async isInvalidated(phone: string): Promise<boolean> {
    return (await this.getLatest(phone))?.invalidatedAt !== undefined;
  }

  async pendingInbounds(phone: string, knownLatest?: LatestInbound): Promise<PendingInbound[]> {
    const latest = knownLatest ?? (await this.getLatest(phone));
    const ids = [...new Set(latest?.pendingMessageIds ?? [])];
    if (ids.length === 0) return [];
    const items = await this.kit.batchGet(ids.map((id) => inboundReceiptKey(phone, id)), { consistentRead: true });
    const receipts = new Map(items.map(receiptFromItem).map((receipt) => [receipt.turn.messageId, receipt]));
    const pending: PendingInbound[] = [];
    let previous = latest?.historyWatermark;
    for (const id of ids) {
      const receipt = receipts.get(id);
      if (!receipt || !isDrainable(receipt)) continue;
      if (receipt.historyTimestamp !== undefined) {
        // Parked, then redriven: the message is in the history already and keeps its place there.
        const kept = isoMicros(receipt.historyTimestamp);
        previous = previous === undefined ? kept : latestOf(previous, kept);
        pending.push({ ...receipt.turn, historyTimestamp: kept });
        continue;
      }
      let historyTimestamp = isoMicros(receipt.turn.providerTimestamp);
      if (previous !== undefined && toEpochMicros(historyTimestamp) <= toEpochMicros(previous)) historyTimestamp = nextMicrosecond(previous);
      previous = historyTimestamp;
      pending.push({ ...receipt.turn, historyTimestamp });
    }
    return pending;
  }

  async advanceHistoryWatermark(phone: string, timestamp: string): Promise<void> {
    // isoMicros strings have one fixed width, so string order is time order.
    await conditionally(() =>
      this.kit.update({
        key: latestInboundKey(phone),
        update: 'SET #watermark = :watermark',
        condition: `${ITEM_EXISTS} AND (attribute_not_exists(#watermark) OR #watermark < :watermark)`,
        names: { '#pk': KEY_NAMES['#pk'], '#watermark': A.historyWatermark },
        values: { ':watermark': isoMicros(timestamp) },
      }),
    );
  }

  async invalidatePending(phone: string): Promise<void> {
    await this.kit.update({
      key: latestInboundKey(phone),
      update: 'SET #type = :type, #phone = :phone, #invalidated = :now, #pending = :empty, #updated = :now',
      names: { '#type': ENTITY_TYPE, '#phone': A.phoneNumber, '#invalidated': A.invalidatedAt, '#pending': A.pendingMessageIds, '#updated': A.updatedAt },
      values: { ':type': EntityType.latestInbound, ':phone': phone, ':now': this.now(), ':empty': [] },
    });
  }

  tryCommit(phone: string, messageId: string): Promise<boolean> {
    return conditionally(() =>
      this.kit.update({
        key: latestInboundKey(phone),
        update: 'SET #committed = :id, #committedAt = :now',
        condition: '#latest = :id AND attribute_not_exists(#invalidated)',
        names: { '#committed': A.committedMessageId, '#committedAt': A.committedAt, '#latest': A.latestMessageId, '#invalidated': A.invalidatedAt },
        values: { ':id': messageId, ':now': this.now() },
      }),
    );
  }

  async isCompleted(ref: InboundRef): Promise<boolean> {
    return (await this.getReceipt(ref))?.completedAt !== undefined;
  }

  markCompleted(...turns: CompletedInbound[]): Promise<void> {
    const now = this.now();
    // A receipt already gone (TTL) has nothing left to mark.
    return this.settle(turns, (turn): ReceiptUpdate[] => [
      {
        key: inboundReceiptKey(turn.phoneNumber, turn.messageId),
        update: 'SET #completed = if_not_exists(#completed, :now)',
        condition: ITEM_EXISTS,
        names: { '#pk': KEY_NAMES['#pk'], '#completed': A.completedAt },
        values: { ':now': now },
      },
    ]);
  }

  markDeadLettered(...turns: CompletedInbound[]): Promise<void> {
    const now = this.now();
    // Parked messages keep their place in the history, so the watermark moves past them as well.
    // Their history entries are hidden from the agent in the same transaction: a message must never
    // be hidden while still pending (a later turn would complete it unseen), nor parked but shown.
    return this.settle(turns, (turn): ReceiptUpdate[] => [
      {
        key: inboundReceiptKey(turn.phoneNumber, turn.messageId),
        update: turn.historyTimestamp ? 'SET #dead = :now, #history = :history' : 'SET #dead = :now',
        condition: `${ITEM_EXISTS} AND attribute_not_exists(#completed)`,
        names: { '#pk': KEY_NAMES['#pk'], '#dead': A.deadLetteredAt, '#completed': A.completedAt, ...(turn.historyTimestamp ? { '#history': A.historyTimestamp } : {}) },
        values: { ':now': now, ...(turn.historyTimestamp ? { ':history': isoMicros(turn.historyTimestamp) } : {}) },
      },
      // A message parked before its turn appended it has no entry yet: this condition then fails
      // and the update is left out.
      ...(turn.historyTimestamp
        ? [
            {
              key: messageKey(turn.phoneNumber, turn.historyTimestamp, turn.messageId),
              update: 'SET #quarantined = :now',
              condition: ITEM_EXISTS,
              names: { '#pk': KEY_NAMES['#pk'], '#quarantined': MessageAttribute.quarantinedAt },
              values: { ':now': now },
            },
          ]
        : []),
    ]);
  }

  /**
   * Marks the receipts (and what goes with them) and takes them off the pending list in ONE
   * transaction per chunk. Separate writes could be cut between them, leaving a settled message on
   * the list: no later turn would ever remove it (only unsettled receipts are drained), and the
   * history watermark would stay behind it.
   */
  private async settle(turns: readonly CompletedInbound[], mark: (turn: CompletedInbound) => ReceiptUpdate[]): Promise<void> {
    if (turns.length === 0) return;
    if (new Set(turns.map((turn) => turn.phoneNumber)).size > 1) throw new RangeError('Receipts are settled one customer at a time');
    for (let start = 0; start < turns.length; start += SETTLED_PER_TRANSACTION) {
      await this.settleTogether(turns.slice(start, start + SETTLED_PER_TRANSACTION), mark);
    }
  }

  private async settleTogether(turns: readonly CompletedInbound[], mark: (turn: CompletedInbound) => ReceiptUpdate[]): Promise<void> {
    const phone = turns[0].phoneNumber;
    let updates = turns.flatMap(mark);
    for (let attempt = 1; attempt <= PENDING_REMOVAL_ATTEMPTS + updates.length; attempt++) {
      const latest = await this.getLatest(phone);
      const removal = latest && pendingRemoval(phone, latest, turns, this.now());
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
    throw new ConditionFailedError(`The pending list of ${phone} kept changing; completion not recorded on it`);
  }

  async restoreDeadLettered(ref: InboundRef): Promise<InboundReceipt | undefined> {
    const restored = await conditionally(() =>
      this.kit.transact([
        {
          update: {
            key: inboundReceiptKey(ref.phoneNumber, ref.messageId),
            update: 'REMOVE #dead',
            condition: 'attribute_exists(#dead) AND attribute_not_exists(#completed)',
            names: { '#dead': A.deadLetteredAt, '#completed': A.completedAt },
          },
        },
        {
          update: {
            key: latestInboundKey(ref.phoneNumber),
            update: 'SET #pending = list_append(if_not_exists(#pending, :empty), :ids), #updated = :now',
            names: { '#pending': A.pendingMessageIds, '#updated': A.updatedAt },
            values: { ':ids': [ref.messageId], ':empty': [], ':now': this.now() },
          },
        },
      ]),
    );
    return restored ? this.getReceipt(ref) : undefined;
  }

  async listDeadLettered(phone: string): Promise<InboundReceipt[]> {
    const parked: InboundReceipt[] = [];
    let cursor: string | undefined;
    do {
      const prefix = inboundReceiptPrefix(phone);
      const page = await this.kit.queryPage({
        keyCondition: '#pk = :pk AND begins_with(#sk, :prefix)',
        filter: 'attribute_exists(#dead)',
        names: { ...KEY_NAMES, '#dead': A.deadLetteredAt },
        values: { ':pk': prefix.partition, ':prefix': prefix.sortKeyPrefix },
        consistentRead: true,
        cursor,
      });
      parked.push(...page.items.map(receiptFromItem));
      cursor = page.cursor;
    } while (cursor !== undefined);
    return parked.sort((a, b) => toEpochMicros(a.registeredAt) - toEpochMicros(b.registeredAt));
  }

  /** Removes the messages from the pending list, re-reading it when it changed meanwhile. */
  private async removeFromPending(phone: string, turns: readonly CompletedInbound[]): Promise<void> {
    for (let attempt = 1; attempt <= PENDING_REMOVAL_ATTEMPTS; attempt++) {
      const latest = await this.getLatest(phone);
      const removal = latest && pendingRemoval(phone, latest, turns, this.now());
      if (!removal || (await conditionally(() => this.kit.update(removal)))) return;
    }
    throw new ConditionFailedError(`The pending list of ${phone} kept changing; completion not recorded on it`);
  }

  clearOutbox(ref: OutboundRef): Promise<boolean> {
    return conditionally(() =>
      this.kit.update({
        key: latestInboundKey(ref.phoneNumber),
        update: 'REMOVE #outbox, #replyTo',
        condition: '#outbox = :sk',
        names: { '#outbox': A.outboxMessageSk, '#replyTo': A.outboxReplyTo },
        values: { ':sk': ref.sortKey },
      }),
    );
  }

  // ---- Legacy debounce buffer and pending reply ----

  async getBuffer(phone: string): Promise<DebounceBuffer | undefined> {
    const item = await this.kit.get({ key: debounceBufferKey(phone), consistentRead: true });
    return item && debounceBufferFromItem(item);
  }

  async putBuffer(buffer: DebounceBuffer): Promise<void> {
    await this.kit.put({ item: debounceBufferToItem(buffer) });
  }

  async deleteBuffer(phone: string): Promise<void> {
    await this.kit.delete({ key: debounceBufferKey(phone) });
  }

  async deleteBufferIfFirstMessageAt(phone: string, firstMessageAt: string): Promise<boolean> {
    // Older rows stored the instant in other ISO spellings: compare normalised, delete on the raw value.
    const item = await this.kit.get({ key: debounceBufferKey(phone), consistentRead: true });
    if (!item || isoMicros(String(item[A.firstMessageAt])) !== isoMicros(firstMessageAt)) return false;
    return conditionally(() =>
      this.kit.delete({
        key: debounceBufferKey(phone),
        condition: '#first = :first',
        names: { '#first': A.firstMessageAt },
        values: { ':first': item[A.firstMessageAt] },
      }),
    );
  }

  async getPendingOutbound(phone: string): Promise<PendingReply | undefined> {
    const item = await this.kit.get({ key: pendingReplyKey(phone), consistentRead: true });
    return item && pendingReplyFromItem(item);
  }

  async putPendingOutbound(reply: PendingReply): Promise<void> {
    await this.kit.put({ item: pendingReplyToItem(reply) });
  }

  async deletePendingOutbound(phone: string): Promise<void> {
    await this.kit.delete({ key: pendingReplyKey(phone) });
  }
}

/** The orchestrator may drain it: routed to the agent (or dispatched by an older deployment) and not consumed elsewhere. */
function isDrainable(receipt: InboundReceipt): boolean {
  const routedToAgent = receipt.agentRoutedAt !== undefined || receipt.dispatchedAt !== undefined;
  return routedToAgent && receipt.humanRoutedAt === undefined && receipt.syncClaimedAt === undefined && receipt.completedAt === undefined && receipt.deadLetteredAt === undefined;
}

type ReceiptUpdate = Omit<UpdateRequest, 'returnValues'>;

/**
 * The update that removes the messages from the pending list as `latest` shows it, and moves the
 * history watermark past them; `undefined` when there is nothing to change. An index is only valid
 * while the list is unchanged there, so the update is conditioned on each removed position still
 * holding its id (and on the watermark it advances).
 */
function pendingRemoval(phone: string, latest: LatestInbound, turns: readonly CompletedInbound[], now: string): ReceiptUpdate | undefined {
  const ids = new Set(turns.map((turn) => turn.messageId));
  const completedTimestamps = turns.flatMap((turn) => (turn.historyTimestamp ? [isoMicros(turn.historyTimestamp)] : []));
  const positions = latest.pendingMessageIds.flatMap((id, index) => (ids.has(id) ? [index] : []));
  const watermark = [latest.historyWatermark, ...completedTimestamps]
    .filter((value): value is string => value !== undefined)
    .reduce<string | undefined>((max, value) => (max === undefined || toEpochMicros(value) > toEpochMicros(max) ? value : max), undefined);
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
    key: latestInboundKey(phone),
    update: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
    condition: conditions.join(' AND '),
    names,
    values,
  };
}
