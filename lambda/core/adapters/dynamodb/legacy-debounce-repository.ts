import { isoMicros } from '../../domain/timestamps';
import type { LegacyDebounceRepository, LegacyItems } from '../../ports/repositories';
import type { DynamoKit } from './dynamo-kit';
import { InboundAttribute as A, legacyBufferFromItem, legacyPendingReplyFromItem } from './codecs/inbound-codec';
import { legacyBufferKey, legacyPendingReplyKey, SK } from './keys';
import { conditionally } from './repository-support';

/** The BUFFER and PENDING_REPLY items an older deployment (the former debounce design) may have left. */
export class DynamoLegacyDebounceRepository implements LegacyDebounceRepository {
  constructor(private readonly kit: DynamoKit) {}

  async getLegacyItems(customerId: string): Promise<LegacyItems> {
    // One partition, two known keys: one request.
    const keys = { buffer: legacyBufferKey(customerId), pendingReply: legacyPendingReplyKey(customerId) };
    const items = await this.kit.batchGet([keys.buffer, keys.pendingReply], { consistentRead: true });
    const buffer = items.find((item) => item[SK] === keys.buffer[SK]);
    const pendingReply = items.find((item) => item[SK] === keys.pendingReply[SK]);
    return { ...(buffer ? { buffer: legacyBufferFromItem(buffer) } : {}), ...(pendingReply ? { pendingReply: legacyPendingReplyFromItem(pendingReply) } : {}) };
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

  async deleteLegacyPendingReply(customerId: string): Promise<void> {
    await this.kit.delete({ key: legacyPendingReplyKey(customerId) });
  }
}
