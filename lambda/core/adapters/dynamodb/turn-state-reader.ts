import type { LatestInbound, PendingInbound } from '../../domain/inbound-receipt';
import type { Session } from '../../domain/session';
import type { TurnStart, TurnStateReader } from '../../ports/repositories';
import type { DynamoKit, Item } from './dynamo-kit';
import { latestInboundFromItem } from './codecs/inbound-codec';
import { activePointerFromItem, sessionFromItem } from './codecs/session-codec';
import { pendingFromReceipts, pendingReceiptKeys } from './inbound-receipt-repository';
import { activePointerKey, latestInboundKey, PK, SK, sessionKey, type TableKey } from './keys';

/**
 * A turn's reads, each group one consistent BatchGetItem: the items live in two partitions of the
 * customer (inbound and session), and none of a group's keys depends on another's answer.
 */
export class DynamoTurnStateReader implements TurnStateReader {
  constructor(private readonly kit: DynamoKit) {}

  async readStart(customerId: string): Promise<TurnStart> {
    const found = await this.read([latestInboundKey(customerId), activePointerKey(customerId)]);
    const marker = found(latestInboundKey(customerId));
    const pointerItem = found(activePointerKey(customerId));
    const pointer = pointerItem && activePointerFromItem(pointerItem);
    return {
      ...(marker ? { latest: latestInboundFromItem(marker) } : {}),
      ...(pointer ? { activeSessionId: pointer.sessionId, ...(pointer.sessionState ? { activeSessionState: pointer.sessionState } : {}) } : {}),
    };
  }

  async readPendingAndSession(latest: LatestInbound, sessionId: string | undefined): Promise<{ pending: PendingInbound[]; session?: Session }> {
    const session = sessionId === undefined ? undefined : sessionKey(latest.customerId, sessionId);
    const receipts = pendingReceiptKeys(latest);
    const items = await this.kit.batchGet([...receipts, ...(session ? [session] : [])], { consistentRead: true });
    const sessionItem = session && items.find(matches(session));
    return { pending: pendingFromReceipts(latest, items), ...(sessionItem ? { session: sessionFromItem(sessionItem) } : {}) };
  }

  async readMarkerAndSession(customerId: string, sessionId: string): Promise<{ latest?: LatestInbound; session?: Session }> {
    const found = await this.read([latestInboundKey(customerId), sessionKey(customerId, sessionId)]);
    const marker = found(latestInboundKey(customerId));
    const session = found(sessionKey(customerId, sessionId));
    return { ...(marker ? { latest: latestInboundFromItem(marker) } : {}), ...(session ? { session: sessionFromItem(session) } : {}) };
  }

  private async read(keys: TableKey[]): Promise<(key: TableKey) => Item | undefined> {
    const items = await this.kit.batchGet(keys, { consistentRead: true });
    return (key) => items.find(matches(key));
  }
}

function matches(key: TableKey): (item: Item) => boolean {
  return (item) => item[PK] === key[PK] && item[SK] === key[SK];
}
