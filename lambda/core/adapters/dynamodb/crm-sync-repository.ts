import { CRM_PROBLEM_STATUSES, type CrmSyncRow, CrmSyncStatus, desiredProjection, projectionRevision } from '../../domain/crm-sync';
import { ConditionFailedError, CrmSyncConcurrentUpdateError, type CrmProblemSummary, type CrmSyncIntent, type CrmSyncRepository, type Page, type PageRequest } from '../../ports/repositories';
import { DEFAULT_RETENTION, expiresAt, isExpired, type RetentionPolicy } from '../../domain/privacy';
import { type Session, SessionState } from '../../domain/session';
import { isoMicros } from '../../domain/timestamps';
import type { Clock, IdGenerator } from '../../ports/clock';
import { CrmSyncAttribute, crmSyncFromItem, crmSyncToItem } from './codecs/crm-sync-codec';
import { referenceItem } from './customer-references';
import type { DynamoKit, Item, QueryPageResult, TransactAction } from './dynamo-kit';
import { KeyLayout } from '../../../../lib/contract/key-layout';
import { KeyLayoutPolicy } from './key-layout';
import { crmSyncDueUntil, crmSyncKey, crmSyncStatusPartition, customerCrmSyncReferenceKey, EntityType, shardedCrmSyncStatusPartition, TTL } from './keys';
import { IF_ABSENT, queryIndexPartitionsPage, toPage } from './repository-support';

/** Compare-and-set attempts on the projection before giving up. */
export const CRM_SYNC_MAX_ATTEMPTS = 8;
const PROBLEM_COUNT_PAGE = 500;

/**
 * The commercial projection of each session (contact + deal), published to the CRM by a worker.
 * Rows are indexed by status on GSI1 (`CRM_SYNC#{status}`, or `CRM_SYNC#{status}#{shard}` once the
 * key layout writes shards; sort key `{next_attempt_at}#{session_id}`).
 *
 * A row's key names the session, not the customer, and the row outlives its session when
 * retention removes the session first: a reference in the customer's partition, written with every
 * intent, lets an erasure or an export find it by key. Once the conversation is closed, row and
 * reference expire with it (the conversation's retention after the close); readers treat an
 * expired row as gone, whatever DynamoDB still holds.
 */
export class DynamoCrmSyncRepository implements CrmSyncRepository {
  private readonly keyLayout: KeyLayoutPolicy;

  constructor(
    private readonly kit: DynamoKit,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    keyLayout?: KeyLayoutPolicy,
    private readonly retention: RetentionPolicy = DEFAULT_RETENTION,
  ) {
    this.keyLayout = keyLayout ?? new KeyLayoutPolicy(KeyLayout.SEED, kit, clock);
  }

  /**
   * The writes that install a prepared projection row — conditioned on the etag it was prepared
   * from (or on the row not existing), so a transaction carrying them fails if anyone changed the
   * row since — and its reference in the customer's partition.
   */
  intentActions(intent: CrmSyncIntent): TransactAction[] {
    const { row, previousEtag } = intent;
    const item = this.itemOf(row);
    const reference = referenceItem(customerCrmSyncReferenceKey(row.customerId, row.sessionId), EntityType.crmSyncReference, [crmSyncKey(row.sessionId)], row.retainUntil);
    return [
      previousEtag === undefined
        ? { put: { item, ...IF_ABSENT } }
        : { put: { item, condition: '#etag = :etag', names: { '#etag': CrmSyncAttribute.etag }, values: { ':etag': previousEtag } } },
      { put: { item: reference } },
    ];
  }

  /** The row, unless it expired with its conversation. */
  async get(sessionId: string): Promise<CrmSyncRow | undefined> {
    const row = await this.stored(sessionId);
    return row && !this.expired(row) ? row : undefined;
  }

  /** The row as stored, expired or not: what a compare-and-set write must start from. */
  private async stored(sessionId: string): Promise<CrmSyncRow | undefined> {
    const item = await this.kit.get({ key: crmSyncKey(sessionId), consistentRead: true });
    return item && crmSyncFromItem(item);
  }

  async prepare(session: Session): Promise<CrmSyncIntent | undefined> {
    const existing = await this.stored(session.sessionId);
    // A brand-new conversation is not a deal yet: nothing is published until it qualifies.
    if (session.state === 'NEW' && existing?.dealId === undefined) return undefined;
    const desired = desiredProjection(session);
    const revision = projectionRevision(desired);
    if (existing?.revision === revision) return undefined;
    const now = isoMicros(this.clock.now());
    const row: CrmSyncRow = {
      // Ids the CRM assigned, creation markers, the synced revision and unknown attributes survive.
      ...existing,
      sessionId: session.sessionId,
      customerId: session.customerId,
      // An uncertain create must be reconciled before anything is retried.
      status: existing?.status === CrmSyncStatus.UNCERTAIN ? CrmSyncStatus.UNCERTAIN : CrmSyncStatus.PENDING,
      desired,
      revision,
      attempts: 0,
      nextAttemptAt: now,
      lastError: undefined,
      retainUntil: session.state === SessionState.CLOSED && session.closedAt ? expiresAt(session.closedAt, this.retention.conversationSeconds) : undefined,
      etag: this.ids.newId(),
      updatedAt: now,
    };
    return { row, previousEtag: existing?.etag };
  }

  async change(sessionId: string, mutate: (row: CrmSyncRow) => CrmSyncRow | undefined): Promise<CrmSyncRow | undefined> {
    for (let attempt = 1; attempt <= CRM_SYNC_MAX_ATTEMPTS; attempt++) {
      const current = await this.get(sessionId);
      if (!current) return undefined;
      const mutated = mutate(current);
      if (!mutated) return current;
      const next: CrmSyncRow = { ...mutated, sessionId, etag: this.ids.newId(), updatedAt: isoMicros(this.clock.now()) };
      try {
        await this.kit.put({ item: this.itemOf(next), condition: '#etag = :etag', names: { '#etag': CrmSyncAttribute.etag }, values: { ':etag': current.etag } });
        return next;
      } catch (error) {
        if (!(error instanceof ConditionFailedError)) throw error;
      }
    }
    throw new CrmSyncConcurrentUpdateError(sessionId);
  }

  async listStatus(status: CrmSyncStatus, page?: PageRequest): Promise<Page<CrmSyncRow>> {
    return toPage(await this.indexPage(status, page), crmSyncFromItem);
  }

  /** Due rows, earliest first: never one whose conversation's retention ran out. */
  async listDue(now: string, page?: PageRequest): Promise<Page<CrmSyncRow>> {
    return toPage(await this.indexPage(CrmSyncStatus.PENDING, page, crmSyncDueUntil(now)), crmSyncFromItem);
  }

  async problems(): Promise<CrmProblemSummary[]> {
    return Promise.all(
      CRM_PROBLEM_STATUSES.map(async (status) => {
        let count = 0;
        let oldest: CrmSyncRow | undefined;
        let cursor: string | undefined;
        do {
          const page = await this.indexPage(status, { limit: PROBLEM_COUNT_PAGE, cursor });
          if (!oldest && page.items.length > 0) oldest = crmSyncFromItem(page.items[0]);
          count += page.items.length;
          cursor = page.cursor;
        } while (cursor !== undefined);
        return oldest ? { status, count, oldest } : { status, count };
      }),
    );
  }

  /**
   * One page of a status, earliest next attempt first, over the seed partition and/or every write
   * shard of it, without the rows that expired (DynamoDB deletes them up to days late).
   */
  private async indexPage(status: CrmSyncStatus, page: PageRequest | undefined, sortKeyAtMost?: string): Promise<QueryPageResult> {
    const partitions = await this.keyLayout.partitionsToRead(crmSyncStatusPartition(status), (shard) => shardedCrmSyncStatusPartition(status, shard));
    const result = await queryIndexPartitionsPage(this.kit, { partitions, entityType: EntityType.crmSync, sortKeyAtMost }, page);
    const now = this.clock.now();
    return { ...result, items: result.items.filter((item: Item) => !isExpired(item[TTL], now)) };
  }

  private expired(row: CrmSyncRow): boolean {
    return isExpired(row.retainUntil, this.clock.now());
  }

  private itemOf(row: CrmSyncRow) {
    return crmSyncToItem(row, this.keyLayout.writesShards);
  }
}
