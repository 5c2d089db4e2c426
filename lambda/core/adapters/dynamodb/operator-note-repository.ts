import type { OperatorNote } from '../../domain/operator-note';
import { isExpired } from '../../domain/privacy';
import type { Clock } from '../../ports/clock';
import type { OperatorNoteRepository, Page, PageRequest } from '../../ports/repositories';
import { operatorNoteFromItem, operatorNoteToItem } from './codecs/operator-note-codec';
import type { DynamoKit } from './dynamo-kit';
import { operatorNotePrefix, TTL } from './keys';
import { IF_ABSENT, queryPrefixPage, toPage } from './repository-support';

/**
 * Operators' notes under the customer's partition (`NOTE#{createdAt}#{id}`, chronological), beside
 * the history the agent reads and never in it. A closed conversation's notes get its TTL with its
 * messages (`DynamoMessageRepository.expireSession`).
 */
export class DynamoOperatorNoteRepository implements OperatorNoteRepository {
  constructor(
    private readonly kit: DynamoKit,
    private readonly clock: Clock,
  ) {}

  async add(note: OperatorNote): Promise<void> {
    await this.kit.put({ item: operatorNoteToItem(note), ...IF_ABSENT });
  }

  async list(customerId: string, page?: PageRequest): Promise<Page<OperatorNote>> {
    const result = await queryPrefixPage(this.kit, operatorNotePrefix(customerId), page, { newestFirst: true, consistentRead: true });
    const now = this.clock.now();
    return toPage({ ...result, items: result.items.filter((item) => !isExpired(item[TTL], now)) }, operatorNoteFromItem);
  }
}
