import { CRM_PROBLEM_STATUSES, type CrmSyncRow, CrmSyncStatus, desiredProjection, projectionRevision } from '../../domain/crm-sync';
import { ConditionFailedError, CrmSyncConcurrentUpdateError } from '../../domain/errors';
import type { Session } from '../../domain/session';
import { isoMicros } from '../../domain/timestamps';
import type { Clock, IdGenerator } from '../../ports/clock';
import type { CrmProblemSummary, CrmSyncIntent, CrmSyncRepository, Page, PageRequest } from '../../ports/repositories';
import { CrmSyncAttribute, crmSyncFromItem, crmSyncToItem } from './codecs/crm-sync-codec';
import type { DynamoKit, TransactAction } from './dynamo-kit';
import { crmSyncDueUntil, crmSyncKey, crmSyncStatusPartition, ENTITY_TYPE, EntityType, GSI1, GSI1PK, GSI1SK } from './keys';
import { IF_ABSENT, pageLimit, toPage } from './repository-support';

/** Compare-and-set attempts on the projection before giving up. */
export const CRM_SYNC_MAX_ATTEMPTS = 8;
const PROBLEM_COUNT_PAGE = 500;

/**
 * The write that installs a prepared projection row, conditioned on the etag it was prepared from
 * (or on the row not existing): a transaction carrying it fails if anyone changed the row since.
 */
export function crmIntentAction(intent: CrmSyncIntent): TransactAction {
  return intent.previousEtag === undefined
    ? { put: { item: crmSyncToItem(intent.row), ...IF_ABSENT } }
    : { put: { item: crmSyncToItem(intent.row), condition: '#etag = :etag', names: { '#etag': CrmSyncAttribute.etag }, values: { ':etag': intent.previousEtag } } };
}

/**
 * The commercial projection of each session (contact + deal), published to the CRM by a worker.
 * Rows are indexed by status on GSI1 (`CRM_SYNC#{status}`, `{next_attempt_at}#{session_id}`).
 */
export class DynamoCrmSyncRepository implements CrmSyncRepository {
  constructor(
    private readonly kit: DynamoKit,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  async get(sessionId: string): Promise<CrmSyncRow | undefined> {
    const item = await this.kit.get({ key: crmSyncKey(sessionId), consistentRead: true });
    return item && crmSyncFromItem(item);
  }

  async prepare(session: Session): Promise<CrmSyncIntent | undefined> {
    const existing = await this.get(session.sessionId);
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
        await this.kit.put({ item: crmSyncToItem(next), condition: '#etag = :etag', names: { '#etag': CrmSyncAttribute.etag }, values: { ':etag': current.etag } });
        return next;
      } catch (error) {
        if (!(error instanceof ConditionFailedError)) throw error;
      }
    }
    throw new CrmSyncConcurrentUpdateError(sessionId);
  }

  async listStatus(status: CrmSyncStatus, page?: PageRequest): Promise<Page<CrmSyncRow>> {
    return toPage(await this.queryStatus(status, pageLimit(page), page?.cursor), crmSyncFromItem);
  }

  async listDue(now: string, page?: PageRequest): Promise<Page<CrmSyncRow>> {
    const items = await this.kit.queryPage({
      indexName: GSI1,
      keyCondition: '#gsi1pk = :status AND #gsi1sk <= :due',
      filter: '#type = :type',
      names: { '#gsi1pk': GSI1PK, '#gsi1sk': GSI1SK, '#type': ENTITY_TYPE },
      values: { ':status': crmSyncStatusPartition(CrmSyncStatus.PENDING), ':due': crmSyncDueUntil(now), ':type': EntityType.crmSync },
      limit: pageLimit(page),
      cursor: page?.cursor,
    });
    return toPage(items, crmSyncFromItem);
  }

  async problems(): Promise<CrmProblemSummary[]> {
    return Promise.all(
      CRM_PROBLEM_STATUSES.map(async (status) => {
        let count = 0;
        let oldest: CrmSyncRow | undefined;
        let cursor: string | undefined;
        do {
          const page = await this.queryStatus(status, PROBLEM_COUNT_PAGE, cursor);
          if (!oldest && page.items.length > 0) oldest = crmSyncFromItem(page.items[0]);
          count += page.items.length;
          cursor = page.cursor;
        } while (cursor !== undefined);
        return oldest ? { status, count, oldest } : { status, count };
      }),
    );
  }

  private queryStatus(status: CrmSyncStatus, limit: number, cursor: string | undefined) {
    return this.kit.queryPage({
      indexName: GSI1,
      keyCondition: '#gsi1pk = :status',
      filter: '#type = :type',
      names: { '#gsi1pk': GSI1PK, '#type': ENTITY_TYPE },
      values: { ':status': crmSyncStatusPartition(status), ':type': EntityType.crmSync },
      limit,
      cursor,
    });
  }
}
