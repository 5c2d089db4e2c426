import { ConditionFailedError, type HumanInboxSession, type MessageRepository, type Page, type PageRequest, type ReceiptRecording, type UsageReadBound } from '../../ports/repositories';
import { AgentUsageTally, type DailyAgentUsage, type UtcDay } from '../../domain/agent-usage';
import type { DeliveryReceipt } from '../../domain/delivery-receipt';
import type { InboundReaction } from '../../domain/inbound-turn';
import type { Message, OutboundRef } from '../../domain/message';
import { previewOf, searchableNamesOf } from '../../domain/inbox-summary';
import { customerDisplayName } from '../../domain/operator';
import { isExpired } from '../../domain/privacy';
import { isoMicros, type IsoTimestamp } from '../../domain/timestamps';
import type { Clock } from '../../ports/clock';
import type { SentTextMessage } from '../../ports/whatsapp-sender';
import { llmUsageOfItem, MessageAttribute as M, messageFromItem, messageToItem, metaPricingOfItem } from './codecs/message-codec';
import { SessionAttribute } from './codecs/session-codec';
import type { DynamoKit, Item, TransactAction, UpdateRequest } from './dynamo-kit';
import {
  activePointerKey,
  allWriteShards,
  ENTITY_TYPE,
  EntityType,
  feeDayPartition,
  GSI1,
  GSI1PK,
  llmDayPartition,
  messageHistoryPrefix,
  messageKey,
  messageKeyFromRef,
  operatorNotePrefix,
  PK,
  shardedLlmDayPartition,
  SK,
  sessionKey,
  TTL,
  type TableKey,
} from './keys';
import { KeyLayout } from '../../../../lib/contract/key-layout';
import { EVALUATION_CUSTOMER_PREFIX } from '../../../../lib/contract/table';
import type { MetaRateTable } from '../../../../lib/contract/meta-message-rates';
import { KeyLayoutPolicy } from './key-layout';
import { DynamoInboxVersion } from './inbox-version';
import { deliveryUpdate, quarantineUpdate, receiptUpdate } from './message-updates';
import { conditionally, IF_ABSENT, ITEM_EXISTS, KEY_NAMES, queryPrefixPage, toPage } from './repository-support';
import { InvalidKeySegmentError } from './dynamo-errors';

/**
 * How far back a reaction or an edit looks for the message it names: WhatsApp lets a customer edit
 * for 15 minutes, and people react to what they just read; older ones are not found.
 */
const RECENT_MESSAGES_SEARCHED = 200;

/** At most this many items are read per page while collecting one session's history out of the customer's partition. */
const SESSION_HISTORY_PAGE = 100;

/**
 * Conversation history under the customer's partition (`MSG#{timestamp}#{id}` sorts
 * chronologically), the outbox delivery status of replies, and the day-bucketed index of
 * agent-written messages.
 */
export class DynamoMessageRepository implements MessageRepository {
  private readonly keyLayout: KeyLayoutPolicy;

  constructor(
    private readonly kit: DynamoKit,
    private readonly clock: Clock,
    keyLayout?: KeyLayoutPolicy,
  ) {
    this.keyLayout = keyLayout ?? new KeyLayoutPolicy(KeyLayout.SEED, kit, clock);
  }

  private toItem(message: Message) {
    return messageToItem(message, this.keyLayout.writesShards);
  }

  /** The exclusive put of `message` in a transaction of several entities (a retry finds its own write). */
  putAction(message: Message): TransactAction {
    return { put: { item: this.toItem(message), ...IF_ABSENT } };
  }

  async append(message: Message): Promise<boolean> {
    if (message.direction !== 'inbound') {
      await this.kit.put({ item: this.toItem(message) });
      return true;
    }
    return conditionally(() => this.kit.put({ item: this.toItem(message), ...IF_ABSENT }));
  }

  async isRecent(customerId: string, messageId: string): Promise<boolean> {
    return (await this.recentMessageKey(customerId, messageId)) !== undefined;
  }

  async appendInboundIfSessionState(message: Message, session: HumanInboxSession, profileName?: string): Promise<boolean> {
    const { sessionId: expectedSessionId, state: expectedState } = session;
    // A new profile name is found by the inbox's search too.
    const searchable = profileName === undefined ? undefined : searchableNamesOf({ profileName }, customerDisplayName(session));
    const profile =
      profileName === undefined
        ? undefined
        : { set: ', #profile = :profile, #searchable = :searchable', names: { '#profile': SessionAttribute.profileName, '#searchable': SessionAttribute.searchableNames }, values: { ':profile': profileName, ':searchable': searchable } };
    try {
      await this.kit.transact([
        { put: { item: this.toItem(message), ...IF_ABSENT } },
        // The inbox row's summary rides on the state check: in a transaction an update costs what a check does.
        {
          update: {
            key: sessionKey(message.customerId, expectedSessionId),
            update: `SET #preview = :preview, #lastAt = :lastAt${profile?.set ?? ''}`,
            condition: '#state = :state',
            names: { '#state': SessionAttribute.state, '#preview': SessionAttribute.lastCustomerPreview, '#lastAt': SessionAttribute.lastCustomerMessageAt, ...profile?.names },
            values: { ':state': expectedState, ':preview': previewOf(message.text), ':lastAt': isoMicros(message.timestamp), ...profile?.values },
          },
        },
        {
          conditionCheck: {
            key: activePointerKey(message.customerId),
            condition: '#sessionId = :sessionId',
            names: { '#sessionId': SessionAttribute.sessionId },
            values: { ':sessionId': expectedSessionId },
          },
        },
      ]);
      // The row people's lists show changed.
      await new DynamoInboxVersion(this.kit, this.clock).raise();
      return true;
    } catch (error) {
      if (!(error instanceof ConditionFailedError)) throw error;
      // The message is already in the history: an earlier attempt appended it.
      return error.failedAt(0);
    }
  }

  async history(customerId: string, page?: PageRequest): Promise<Page<Message>> {
    const result = await queryPrefixPage(this.kit, messageHistoryPrefix(customerId), page, { newestFirst: true, consistentRead: true });
    return toPage({ ...result, items: this.unexpired(result.items) }, messageFromItem);
  }

  /**
   * One session's messages live in the customer's partition next to other sessions' messages, so
   * this Queries that partition newest first with a filter on the session id, page after page,
   * until it has `limit` messages or the partition ends. Superseded and permanently failed replies,
   * replies Meta reported failed, parked messages and failure notices are left out: they are not part of the conversation the
   * agent should see. A page asks for the
   * messages still missing and a quarter more, for what the filter drops — every item a page reads
   * is paid for (and unmarshalled) whether the filter keeps it or not.
   */
  async historyForSession(customerId: string, sessionId: string, limit: number): Promise<Message[]> {
    if (limit <= 0) return [];
    const prefix = messageHistoryPrefix(customerId);
    const collected: Message[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.kit.queryPage({
        keyCondition: '#pk = :pk AND begins_with(#sk, :prefix)',
        filter:
          '#session = :session AND attribute_not_exists(#quarantined) AND attribute_not_exists(#notice) AND (attribute_not_exists(#status) OR NOT (#status IN (:superseded, :failed))) AND (attribute_not_exists(#receipt) OR #receipt <> :receiptFailed)',
        names: { ...KEY_NAMES, '#session': M.sessionId, '#status': M.deliveryStatus, '#quarantined': M.quarantinedAt, '#notice': M.failureNoticeFor, '#receipt': M.receiptStatus },
        values: { ':pk': prefix.partition, ':prefix': prefix.sortKeyPrefix, ':session': sessionId, ':superseded': 'superseded', ':failed': 'failed_permanent', ':receiptFailed': 'failed' },
        newestFirst: true,
        consistentRead: true,
        limit: Math.min(SESSION_HISTORY_PAGE, Math.ceil((limit - collected.length) * 1.25)),
        cursor,
      });
      collected.push(...this.unexpired(page.items).map(messageFromItem));
      cursor = page.cursor;
    } while (collected.length < limit && cursor !== undefined);
    return collected.slice(0, limit).reverse();
  }

  /**
   * Each day's partitions of GSI1's `LLM#{day}` index (the seed partition and/or every write shard)
   * and of its `FEE#{day}` index (every shard) are read in parallel with the kit's `queryEach`,
   * unmerged: one Query per partition per page, only `llm`, `meta_pricing` and the customer
   * projected, messages past their retention left out as the history leaves them out.
   */
  async agentUsageByDay(days: readonly UtcDay[], bound: UsageReadBound, rates?: MetaRateTable): Promise<DailyAgentUsage[]> {
    const partitionsOfDays: string[][] = [];
    // One after another: the first may look up the migration marker, the others find it cached.
    for (const day of days) {
      const midnight = `${day}T00:00:00Z`;
      partitionsOfDays.push(await this.keyLayout.partitionsToRead(llmDayPartition(midnight), (shard) => shardedLlmDayPartition(midnight, shard)));
    }
    const now = this.clock.now().getTime() / 1000;
    const pricingNames = { '#pricing': M.metaPricing, '#customer': M.customerId };
    const dayRequest = (partition: string, projection: Record<string, string>) => ({
      indexName: GSI1,
      keyCondition: '#gsi1pk = :partition',
      // A scenario's replies are the evaluation line's (and one a run did not finish left is no conversation).
      filter: '#type = :type AND (attribute_not_exists(#ttl) OR #ttl > :now) AND NOT begins_with(#customer, :evaluation)',
      projection: Object.keys(projection).join(', '),
      names: { '#gsi1pk': GSI1PK, '#type': ENTITY_TYPE, '#ttl': TTL, ...projection },
      values: { ':partition': partition, ':type': EntityType.message, ':now': now, ':evaluation': EVALUATION_CUSTOMER_PREFIX },
      limit: bound.pageSize,
    });
    return Promise.all(
      days.map(async (day, index) => {
        const tally = new AgentUsageTally(rates);
        const addPricing = (item: Item) => {
          const priced = metaPricingOfItem(item);
          if (priced) tally.addMetaPricing(priced.pricing, priced.customerId);
        };
        const pages = { maxPages: bound.pagesPerPartition };
        const reads = await Promise.all([
          this.kit.queryEach(
            partitionsOfDays[index].map((partition) => dayRequest(partition, { '#llm': M.llm, ...pricingNames })),
            { ...pages, onItems: (items) => items.forEach((item) => (tally.addReply(llmUsageOfItem(item)), addPricing(item))) },
          ),
          this.kit.queryEach(
            allWriteShards().map((shard) => dayRequest(feeDayPartition(`${day}T00:00:00Z`, shard), pricingNames)),
            { ...pages, onItems: (items) => items.forEach(addPricing) },
          ),
        ]);
        if (reads.some((read) => !read.complete)) tally.markIncomplete();
        return { day, ...tally.usage() };
      }),
    );
  }

  /** Messages of a conversation past its retention are gone, even while DynamoDB's TTL has not deleted them yet. */
  private unexpired(items: readonly Item[]): Item[] {
    const now = this.clock.now();
    return items.filter((item) => !isExpired(item[TTL], now));
  }

  refFor(message: Pick<Message, 'customerId' | 'timestamp' | 'messageId'>): OutboundRef {
    return { customerId: message.customerId, sortKey: messageKey(message.customerId, message.timestamp, message.messageId)[SK] };
  }

  async getOutbound(ref: OutboundRef): Promise<Message | undefined> {
    const item = await this.kit.get({ key: messageKeyFromRef(ref), consistentRead: true });
    return item && messageFromItem(item);
  }

  markOutboundSent(ref: OutboundRef, sent: SentTextMessage, sentAt: string): Promise<boolean> {
    return conditionally(() => this.kit.update(deliveryUpdate(ref, { status: 'sent', ...sent, sentAt })));
  }

  async recordReceipt(ref: OutboundRef, receipt: DeliveryReceipt): Promise<ReceiptRecording> {
    let update: Omit<UpdateRequest, 'returnValues'>;
    try {
      update = receiptUpdate(ref, receipt);
    } catch (error) {
      // Callback data in the pipeline's form that names no message: someone else's, no request made.
      if (error instanceof InvalidKeySegmentError) return { outcome: 'notOurs', pricingRecorded: false };
      throw error;
    }
    let before: Item | undefined;
    // The old values come with the write's answer at no extra capacity: they tell a settled unknown
    // outcome, and whether the message was priced already (a pricing it had comes back as it was).
    const recorded = await conditionally(async () => (before = await this.kit.update({ ...update, returnValues: 'UPDATED_OLD' })));
    if (!recorded) return { outcome: 'unchanged', pricingRecorded: false };
    return { outcome: before?.[M.deliveryStatus] === 'sent' ? 'recorded' : 'settled', pricingRecorded: receipt.pricing !== undefined && before?.[M.metaPricing] === undefined };
  }

  markUnsent(ref: OutboundRef, at: IsoTimestamp): Promise<boolean> {
    return conditionally(() =>
      this.kit.update({
        key: messageKeyFromRef(ref),
        update: 'SET #unsent = :at',
        condition: '#status = :pending',
        names: { '#unsent': M.unsentAt, '#status': M.deliveryStatus },
        values: { ':at': isoMicros(at), ':pending': 'pending_send' },
      }),
    );
  }

  recordReaction(customerId: string, reaction: InboundReaction, at: IsoTimestamp): Promise<boolean> {
    return this.updateRecent(customerId, reaction.targetMessageId, {
      update: reaction.emoji === undefined ? 'SET #reactionAt = :at REMOVE #emoji' : 'SET #reactionAt = :at, #emoji = :emoji',
      condition: `${ITEM_EXISTS} AND (attribute_not_exists(#reactionAt) OR #reactionAt < :at)`,
      names: { '#pk': PK, '#reactionAt': M.reactionAt, '#emoji': M.reactionEmoji },
      values: { ':at': isoMicros(at), ...(reaction.emoji === undefined ? {} : { ':emoji': reaction.emoji }) },
    });
  }

  recordEdit(customerId: string, messageId: string, text: string, at: IsoTimestamp): Promise<boolean> {
    return this.updateRecent(customerId, messageId, {
      update: 'SET #text = :text, #editedAt = :at',
      // Edits arrive in order of Meta's timestamps; an older one redelivered never undoes a newer
      // one, and none brings back the words of a message the customer deleted.
      condition: `${ITEM_EXISTS} AND #direction = :inbound AND (attribute_not_exists(#editedAt) OR #editedAt < :at) AND attribute_not_exists(#revokedAt)`,
      names: { '#pk': PK, '#text': 'text', '#editedAt': M.editedAt, '#direction': 'direction', '#revokedAt': M.revokedAt },
      values: { ':text': text, ':at': isoMicros(at), ':inbound': 'inbound' },
    });
  }

  recordRevoke(customerId: string, messageId: string, at: IsoTimestamp): Promise<boolean> {
    return this.updateRecent(customerId, messageId, {
      // The first revoke's instant stays: Meta's redelivery changes nothing.
      update: 'SET #revokedAt = if_not_exists(#revokedAt, :at), #text = :withdrawn REMOVE #media',
      condition: `${ITEM_EXISTS} AND #direction = :inbound`,
      names: { '#pk': PK, '#revokedAt': M.revokedAt, '#text': 'text', '#media': M.media, '#direction': 'direction' },
      values: { ':at': isoMicros(at), ':withdrawn': '', ':inbound': 'inbound' },
    });
  }

  /** Updates the message a wamid names among the customer's latest; `false` when none is found or the condition fails. */
  private async updateRecent(customerId: string, wamid: string, request: Omit<UpdateRequest, 'key' | 'returnValues'>): Promise<boolean> {
    const key = await this.recentMessageKey(customerId, wamid);
    return key !== undefined && conditionally(() => this.kit.update({ key, ...request }));
  }

  /**
   * The key of the message a wamid names among the customer's latest messages: there is no index of
   * wamids (a text-only turn pays for none), so reactions, edits and revokes, which are rare, read back.
   */
  private async recentMessageKey(customerId: string, wamid: string): Promise<TableKey | undefined> {
    const prefix = messageHistoryPrefix(customerId);
    let cursor: string | undefined;
    let searched = 0;
    do {
      const page = await this.kit.queryPage({
        keyCondition: '#pk = :pk AND begins_with(#sk, :prefix)',
        filter: '#messageId = :wamid OR #providerId = :wamid',
        names: { ...KEY_NAMES, '#messageId': 'message_id', '#providerId': M.providerMessageId },
        values: { ':pk': prefix.partition, ':prefix': prefix.sortKeyPrefix, ':wamid': wamid },
        projection: '#pk, #sk',
        newestFirst: true,
        consistentRead: true,
        limit: SESSION_HISTORY_PAGE,
        cursor,
      });
      const [found] = page.items;
      if (found !== undefined) return { [PK]: String(found[PK]), [SK]: String(found[SK]) };
      searched += SESSION_HISTORY_PAGE;
      cursor = page.cursor;
    } while (cursor !== undefined && searched < RECENT_MESSAGES_SEARCHED);
    return undefined;
  }

  setQuarantined(ref: OutboundRef, quarantinedAt: string | null): Promise<boolean> {
    return conditionally(() => this.kit.update(quarantineUpdate(messageKeyFromRef(ref), quarantinedAt)));
  }

  /** Gives every message of the session, and the operators' notes on it, the TTL `ttl` (epoch seconds), e.g. its session's once closed. */
  async expireSession(customerId: string, sessionId: string, ttl: number): Promise<void> {
    for (const prefix of [messageHistoryPrefix(customerId), operatorNotePrefix(customerId)]) await this.expireSessionItems(prefix, sessionId, ttl);
  }

  private async expireSessionItems(prefix: { readonly partition: string; readonly sortKeyPrefix: string }, sessionId: string, ttl: number): Promise<void> {
    let cursor: string | undefined;
    do {
      const page = await this.kit.queryPage({
        keyCondition: '#pk = :pk AND begins_with(#sk, :prefix)',
        filter: '#session = :session',
        names: { ...KEY_NAMES, '#session': M.sessionId },
        values: { ':pk': prefix.partition, ':prefix': prefix.sortKeyPrefix, ':session': sessionId },
        projection: '#pk, #sk',
        consistentRead: true,
        cursor,
      });
      for (const item of page.items) {
        await conditionally(() => this.kit.update({ key: { [PK]: String(item[PK]), [SK]: String(item[SK]) }, update: 'SET #ttl = :ttl', condition: ITEM_EXISTS, names: { '#pk': PK, '#ttl': TTL }, values: { ':ttl': ttl } }));
      }
      cursor = page.cursor;
    } while (cursor !== undefined);
  }
}
