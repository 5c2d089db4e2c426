import { ConditionFailedError, type InboundReceiptRepository } from '../../ports/repositories';
import {
  placeInHistory,
  RECEIPT_RETENTION_SECONDS,
  type CompletedInbound,
  type InboundReceipt,
  type InboundRef,
  type InboundRegistration,
  type LatestInbound,
  type PendingInbound,
  type RegisterInboundOptions,
} from '../../domain/inbound-receipt';
import { AGENT_ROUTED_STATES } from '../../domain/inbound-routing';
import type { InboundTurn } from '../../domain/inbound-turn';
import type { Message } from '../../domain/message';
import { epochSeconds, isoMicros, toEpochMicros, type IsoTimestamp } from '../../domain/timestamps';
import type { Clock } from '../../ports/clock';
import type { DynamoKit, Item, TransactAction } from './dynamo-kit';
import { InboundAttribute as A, receiptFromItem, receiptToItem } from './codecs/inbound-codec';
import { ActivePointerAttribute } from './codecs/session-codec';
import { activePointerKey, ENTITY_TYPE, EntityType, inboundReceiptKey, inboundReceiptPrefix, latestInboundKey, messageKey, PK, SK, type TableKey } from './keys';
import { PendingList, type ReceiptUpdate } from './pending-list';
import { conditionally, IF_ABSENT, ITEM_ABSENT, ITEM_EXISTS, KEY_NAMES, retryTransactionConflicts } from './repository-support';

/**
 * The routing rule of the inbound protocol (`routesToAgent`) as a transaction condition: holds when
 * the customer has no active session, or the ACTIVE pointer records a state in which the agent
 * answers. A pointer without a recorded state fails it too: then the caller reads the session itself.
 */
function agentMayAnswer(customerId: string): TransactAction {
  const states = Object.fromEntries(AGENT_ROUTED_STATES.map((state, index) => [`:agentState${index}`, state]));
  return {
    conditionCheck: {
      key: activePointerKey(customerId),
      condition: `attribute_not_exists(#pk) OR #pointerState IN (${Object.keys(states).join(', ')})`,
      names: { '#pk': KEY_NAMES['#pk'], '#pointerState': ActivePointerAttribute.sessionState },
      values: states,
    },
  };
}

/**
 * The latest-message guard on the marker, in a turn's result transaction: holds while `messageId` is
 * the latest and no invalidation is set. With a reply, it also makes the marker's outbox name that
 * reply, and only while no other one is there: at most one reply in flight per customer, so a
 * pending one must be settled (sent or superseded, then cleared) before another is persisted.
 */
export function latestGuardAction(customerId: string, messageId: string, reply?: Message): TransactAction {
  const condition = '#latest = :expectedLatest AND attribute_not_exists(#invalidated)';
  const names = { '#latest': A.latestMessageId, '#invalidated': A.invalidatedAt };
  if (reply === undefined) return { conditionCheck: { key: latestInboundKey(customerId), condition, names, values: { ':expectedLatest': messageId } } };
  return {
    update: {
      key: latestInboundKey(customerId),
      update: 'SET #outbox = :outbox, #replyTo = :replyTo',
      condition: `${condition} AND attribute_not_exists(#outbox)`,
      names: { ...names, '#outbox': A.outboxMessageSk, '#replyTo': A.outboxReplyTo },
      values: { ':expectedLatest': messageId, ':outbox': messageKey(reply.customerId, reply.timestamp, reply.messageId)[SK], ':replyTo': reply.replyToMessageId },
    },
  };
}

/**
 * Holds while the customer wrote nothing after `since` and nothing of theirs waits for an answer:
 * the marker is updated by every registration, and lists the messages no turn has settled yet. A
 * customer who never wrote has no marker.
 */
export function quietSinceCheck(customerId: string, since: IsoTimestamp): TransactAction {
  return {
    conditionCheck: {
      key: latestInboundKey(customerId),
      condition: `${ITEM_ABSENT} OR (#updated <= :since AND (attribute_not_exists(#pending) OR size(#pending) = :none) AND attribute_not_exists(#outbox))`,
      names: { '#pk': KEY_NAMES['#pk'], '#updated': A.updatedAt, '#pending': A.pendingMessageIds, '#outbox': A.outboxMessageSk },
      values: { ':since': isoMicros(since), ':none': 0 },
    },
  };
}

/** Marks a receipt completed (keeping the first instant). A receipt already gone (TTL) has nothing left to mark. */
export function completedUpdate(turn: CompletedInbound, now: IsoTimestamp): ReceiptUpdate {
  return {
    key: inboundReceiptKey(turn.customerId, turn.messageId),
    update: 'SET #completed = if_not_exists(#completed, :now)',
    condition: ITEM_EXISTS,
    names: { '#pk': KEY_NAMES['#pk'], '#completed': A.completedAt },
    values: { ':now': now },
  };
}

/** Marks an uncompleted receipt parked, keeping its place in the history (its history timestamp). */
export function deadLetteredUpdate(turn: CompletedInbound, now: IsoTimestamp): ReceiptUpdate {
  return {
    key: inboundReceiptKey(turn.customerId, turn.messageId),
    update: turn.historyTimestamp ? 'SET #dead = :now, #history = :history' : 'SET #dead = :now',
    condition: `${ITEM_EXISTS} AND attribute_not_exists(#completed)`,
    names: { '#pk': KEY_NAMES['#pk'], '#dead': A.deadLetteredAt, '#completed': A.completedAt, ...(turn.historyTimestamp ? { '#history': A.historyTimestamp } : {}) },
    values: { ':now': now, ...(turn.historyTimestamp ? { ':history': isoMicros(turn.historyTimestamp) } : {}) },
  };
}

/**
 * Claims the failure notice of a parked set on its newest message's receipt: only while it is
 * parked, and once — a redriven set that is parked again keeps its claim.
 */
export function failureNoticeClaim(newest: CompletedInbound, noticeId: string): ReceiptUpdate {
  return {
    key: inboundReceiptKey(newest.customerId, newest.messageId),
    update: 'SET #notice = :notice',
    condition: 'attribute_exists(#dead) AND attribute_not_exists(#notice)',
    names: { '#dead': A.deadLetteredAt, '#notice': A.failureNoticeId },
    values: { ':notice': noticeId },
  };
}

/** The keys of the receipts `latest` lists as pending, each once. */
export function pendingReceiptKeys(latest: LatestInbound): TableKey[] {
  return [...new Set(latest.pendingMessageIds)].map((id) => inboundReceiptKey(latest.customerId, id));
}

/** The drainable messages among the receipt items read, in list order and placed in the history. */
export function pendingFromReceipts(latest: LatestInbound, items: readonly Item[]): PendingInbound[] {
  const prefix = inboundReceiptPrefix(latest.customerId);
  const isReceipt = (item: Item) => item[PK] === prefix.partition && String(item[SK]).startsWith(prefix.sortKeyPrefix);
  const receipts = new Map(items.filter(isReceipt).map(receiptFromItem).map((receipt) => [receipt.turn.messageId, receipt]));
  return placeInHistory(
    [...new Set(latest.pendingMessageIds)].flatMap((id) => receipts.get(id) ?? []),
    latest.historyWatermark,
  );
}

/**
 * Inbound receipts and the per-customer LATEST_INBOUND marker: durable deduplication and the
 * ordered pending list. The turn ledger completes and parks receipts, and sets the outbox
 * reference, with the updates this module builds (`completedUpdate`, `deadLetteredUpdate`,
 * `latestGuardAction`).
 */
export class DynamoInboundReceiptRepository implements InboundReceiptRepository {
  private readonly pendingList: PendingList;

  constructor(
    private readonly kit: DynamoKit,
    private readonly clock: Clock,
  ) {
    this.pendingList = new PendingList(kit, clock);
  }

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
              key: latestInboundKey(turn.customerId),
              update: 'SET #type = :type, #phone = :phone, #latest = :id, #pending = list_append(if_not_exists(#pending, :empty), :ids), #updated = :now REMOVE #invalidated',
              names: {
                '#type': ENTITY_TYPE,
                '#phone': A.phoneNumber,
                '#latest': A.latestMessageId,
                '#pending': A.pendingMessageIds,
                '#updated': A.updatedAt,
                '#invalidated': A.invalidatedAt,
              },
              values: { ':type': EntityType.latestInbound, ':phone': turn.customerId, ':id': turn.messageId, ':ids': [turn.messageId], ':empty': [], ':now': receipt.registeredAt },
            },
          },
          ...(routeToAgent ? [agentMayAnswer(turn.customerId)] : []),
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
    const item = await this.kit.get({ key: inboundReceiptKey(ref.customerId, ref.messageId), consistentRead: true });
    return item && receiptFromItem(item);
  }

  markAgentRouted(ref: InboundRef): Promise<boolean> {
    return this.markReceipt(ref, A.agentRoutedAt, [A.syncClaimedAt, A.humanRoutedAt, A.completedAt]);
  }

  async markHumanRouted(ref: InboundRef): Promise<boolean> {
    if (!(await this.markReceipt(ref, A.humanRoutedAt, [A.agentRoutedAt, A.syncClaimedAt, A.completedAt]))) return false;
    await this.pendingList.remove(ref.customerId, [ref]);
    return true;
  }

  reviseWaitingText(ref: InboundRef, text: string): Promise<boolean> {
    return this.updateWaiting(ref, 'SET #text = :text', { ':text': text });
  }

  async withdrawWaiting(ref: InboundRef): Promise<boolean> {
    if (!(await this.updateWaiting(ref, 'SET #text = :text REMOVE #media', { ':text': '' }, { '#media': 'media' }))) return false;
    await this.pendingList.remove(ref.customerId, [ref], { handLatestBack: true });
    return true;
  }

  /** Updates the text (and what else `update` names) of a receipt the agent has yet to answer. */
  private updateWaiting(ref: InboundRef, update: string, values: Record<string, unknown>, names: Record<string, string> = {}): Promise<boolean> {
    return conditionally(() =>
      this.kit.update({
        key: inboundReceiptKey(ref.customerId, ref.messageId),
        update,
        condition: `${ITEM_EXISTS} AND attribute_not_exists(#completed) AND attribute_not_exists(#human) AND attribute_not_exists(#parked)`,
        names: { '#pk': KEY_NAMES['#pk'], '#text': 'text', '#completed': A.completedAt, '#human': A.humanRoutedAt, '#parked': A.deadLetteredAt, ...names },
        values,
      }),
    );
  }

  async markDispatched(ref: InboundRef): Promise<void> {
    await this.kit.update({
      key: inboundReceiptKey(ref.customerId, ref.messageId),
      update: 'SET #marker = if_not_exists(#marker, :now)',
      condition: ITEM_EXISTS,
      names: { '#pk': KEY_NAMES['#pk'], '#marker': A.dispatchedAt },
      values: { ':now': this.now() },
    });
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
        key: inboundReceiptKey(ref.customerId, ref.messageId),
        update: 'SET #marker = if_not_exists(#marker, :now)',
        condition: [ITEM_EXISTS, ...exclusive.map((_, index) => `attribute_not_exists(#x${index})`)].join(' AND '),
        names,
        values: { ':now': this.now() },
      }),
    );
  }

  getLatest(customerId: string): Promise<LatestInbound | undefined> {
    return this.pendingList.latest(customerId);
  }

  async restoreDeadLettered(ref: InboundRef): Promise<InboundReceipt | undefined> {
    const restored = await conditionally(() =>
      this.kit.transact([
        {
          update: {
            key: inboundReceiptKey(ref.customerId, ref.messageId),
            update: 'REMOVE #dead',
            condition: 'attribute_exists(#dead) AND attribute_not_exists(#completed)',
            names: { '#dead': A.deadLetteredAt, '#completed': A.completedAt },
          },
        },
        {
          update: {
            key: latestInboundKey(ref.customerId),
            update: 'SET #pending = list_append(if_not_exists(#pending, :empty), :ids), #updated = :now',
            names: { '#pending': A.pendingMessageIds, '#updated': A.updatedAt },
            values: { ':ids': [ref.messageId], ':empty': [], ':now': this.now() },
          },
        },
      ]),
    );
    return restored ? this.getReceipt(ref) : undefined;
  }

  async listDeadLettered(customerId: string): Promise<InboundReceipt[]> {
    const parked: InboundReceipt[] = [];
    let cursor: string | undefined;
    do {
      const prefix = inboundReceiptPrefix(customerId);
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

  async advanceHistoryWatermark(customerId: string, timestamp: string): Promise<void> {
    // isoMicros strings have one fixed width, so string order is time order.
    await conditionally(() =>
      this.kit.update({
        key: latestInboundKey(customerId),
        update: 'SET #watermark = :watermark',
        condition: `${ITEM_EXISTS} AND (attribute_not_exists(#watermark) OR #watermark < :watermark)`,
        names: { '#pk': KEY_NAMES['#pk'], '#watermark': A.historyWatermark },
        values: { ':watermark': isoMicros(timestamp) },
      }),
    );
  }
}
