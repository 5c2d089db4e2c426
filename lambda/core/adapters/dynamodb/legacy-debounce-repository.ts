import type { LegacyDebounceBuffer, LegacyPendingReply } from '../../domain/legacy-debounce';
import { isoMicros } from '../../domain/timestamps';
import type { LegacyDebounceRepository } from '../../ports/repositories';
import type { DynamoKit } from './dynamo-kit';
import { InboundAttribute as A, legacyBufferFromItem, legacyPendingReplyFromItem } from './codecs/inbound-codec';
import { legacyBufferKey, legacyPendingReplyKey } from './keys';
import { conditionally } from './repository-support';

/** The BUFFER and PENDING_REPLY items an older deployment (the former debounce design) may have left. */
export class DynamoLegacyDebounceRepository implements LegacyDebounceRepository {
  constructor(private readonly kit: DynamoKit) {}

  async getLegacyBuffer(customerId: string): Promise<LegacyDebounceBuffer | undefined> {
    const item = await this.kit.get({ key: legacyBufferKey(customerId), consistentRead: true });
    return item && legacyBufferFromItem(item);
  }

  async deleteLegacyBufferIfFirstMessageAt(customerId: string, firstMessageAt: string): Promise<boolean> {
    // Older rows stored the instant in other ISO spellings: compare normalised, delete on the raw value.
    const item = await this.kit.get({ key: legacyBufferKey(customerId), consistentRead: true });
    if (!item || isoMicros(String(item[A.firstMessageAt])) !== isoMicros(firstMessageAt)) return false;
    return conditionally(() =>
      this.kit.delete({
        key: legacyBufferKey(customerId),
        condition: '#first = :first',
        names: { '#first': A.firstMessageAt },
        values: { ':first': item[A.firstMessageAt] },
      }),
    );
  }

  async getLegacyPendingReply(customerId: string): Promise<LegacyPendingReply | undefined> {
    const item = await this.kit.get({ key: legacyPendingReplyKey(customerId), consistentRead: true });
    return item && legacyPendingReplyFromItem(item);
  }

  async deleteLegacyPendingReply(customerId: string): Promise<void> {
    await this.kit.delete({ key: legacyPendingReplyKey(customerId) });
  }
}
