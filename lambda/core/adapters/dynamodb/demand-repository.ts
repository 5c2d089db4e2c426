import type { OutOfPortfolioDemand } from '../../domain/demand';
import { ConditionFailedError, type DemandRepository, type Page, type PageRequest } from '../../ports/repositories';
import { demandFromItem, demandToItem } from './codecs/demand-codec';
import type { DynamoKit } from './dynamo-kit';
import { referenceItem } from './customer-references';
import { customerDemandReferenceKey, demandKey, demandListPrefix, demandSourceKey, ENTITY_TYPE, EntityType, SK, TTL } from './keys';
import { DEFAULT_RETENTION, expiresAt, isExpired, type RetentionPolicy } from '../../domain/privacy';
import type { Clock } from '../../ports/clock';
import { systemClock } from '../system/system-clock';
import { IF_ABSENT, queryPrefixPage, retryTransactionConflicts, toPage } from './repository-support';

/**
 * Out-of-portfolio demands, listed chronologically. Each is recorded at most once per source
 * message: a marker item keyed by the message id is created in the same transaction, so a retried
 * turn (with a new demand id and time) cannot record the same demand twice. A reference in the
 * customer's partition, written in the same transaction, lets an erasure find the customer's demands
 * without reading everyone's.
 */
export class DynamoDemandRepository implements DemandRepository {
  constructor(
    private readonly kit: DynamoKit,
    private readonly clock: Clock = systemClock,
    private readonly retention: RetentionPolicy = DEFAULT_RETENTION,
  ) {}

  async record(demand: OutOfPortfolioDemand): Promise<boolean> {
    // The demand, its marker and its reference expire together, `demandRetention` after recording.
    const ttl = { [TTL]: expiresAt(demand.recordedAt, this.retention.demandSeconds) };
    const marker = {
      ...ttl,
      ...demandSourceKey(demand.sourceMessageId),
      [ENTITY_TYPE]: EntityType.demandSource,
      source_message_id: demand.sourceMessageId,
      demand_sk: demandKey(demand.recordedAt, demand.demandId)[SK],
    };
    try {
      await retryTransactionConflicts(() =>
        this.kit.transact([
          { put: { item: marker, ...IF_ABSENT } },
          { put: { item: { ...demandToItem(demand), ...ttl }, ...IF_ABSENT } },
          {
            put: {
              item: referenceItem(customerDemandReferenceKey(demand.customerId, demand.demandId), EntityType.demandReference, [
                demandKey(demand.recordedAt, demand.demandId),
                demandSourceKey(demand.sourceMessageId),
              ], ttl[TTL]),
            },
          },
        ]),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionFailedError && error.failedAt(0)) return false;
      throw error;
    }
  }

  async listRecent(page?: PageRequest): Promise<Page<OutOfPortfolioDemand>> {
    const result = await queryPrefixPage(this.kit, demandListPrefix(), page, { newestFirst: true });
    const now = this.clock.now();
    return toPage({ ...result, items: result.items.filter((item) => !isExpired(item[TTL], now)) }, demandFromItem);
  }
}
