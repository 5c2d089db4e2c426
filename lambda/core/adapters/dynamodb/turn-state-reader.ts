import type { LatestInbound } from '../../domain/inbound-receipt';
import { MESSAGING_CONSENT_PURPOSE, messagingWithdrawn } from '../../domain/privacy';
import type { PendingWork, SendGuard, TurnStart, TurnStateReader } from '../../ports/repositories';
import type { DynamoKit, Item } from './dynamo-kit';
import { consentStateFromItem } from './codecs/admin-codec';
import { latestInboundFromItem } from './codecs/inbound-codec';
import { messageFromItem } from './codecs/message-codec';
import { activePointerFromItem, sessionFromItem } from './codecs/session-codec';
import { pendingFromReceipts, pendingReceiptKeys } from './inbound-receipt-repository';
import { activePointerKey, consentStateKey, latestInboundKey, messageKeyFromRef, PK, SK, sessionKey, type TableKey } from './keys';

/**
 * A turn's reads, each group one consistent BatchGetItem: the items live in a few partitions of the
 * customer (inbound, session, the customer's own), and none of a group's keys depends on another's
 * answer.
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

  async readPendingAndSession(latest: LatestInbound, sessionId: string | undefined): Promise<PendingWork> {
    const { customerId, outbox } = latest;
    const session = sessionId === undefined ? undefined : sessionKey(customerId, sessionId);
    const reply = outbox && messageKeyFromRef(outbox.ref);
    const consent = messagingConsentKey(customerId);
    const receipts = pendingReceiptKeys(latest);
    const items = await this.kit.batchGet([...receipts, ...(session ? [session] : []), ...(reply ? [reply] : []), consent], { consistentRead: true });
    const found = (key: TableKey | undefined) => key && items.find(matches(key));
    const sessionItem = found(session);
    const replyItem = found(reply);
    return {
      pending: pendingFromReceipts(latest, items),
      ...(sessionItem ? { session: sessionFromItem(sessionItem) } : {}),
      ...(replyItem ? { outboxReply: messageFromItem(replyItem) } : {}),
      optedOut: optedOut(found(consent)),
    };
  }

  async readMarkerAndSession(customerId: string, sessionId: string): Promise<SendGuard> {
    const consent = messagingConsentKey(customerId);
    const found = await this.read([latestInboundKey(customerId), sessionKey(customerId, sessionId), consent]);
    const marker = found(latestInboundKey(customerId));
    const session = found(sessionKey(customerId, sessionId));
    return {
      ...(marker ? { latest: latestInboundFromItem(marker) } : {}),
      ...(session ? { session: sessionFromItem(session) } : {}),
      optedOut: optedOut(found(consent)),
    };
  }

  private async read(keys: TableKey[]): Promise<(key: TableKey) => Item | undefined> {
    const items = await this.kit.batchGet(keys, { consistentRead: true });
    return (key) => items.find(matches(key));
  }
}

const messagingConsentKey = (customerId: string) => consentStateKey(customerId, MESSAGING_CONSENT_PURPOSE);

const optedOut = (consentState: Item | undefined) => messagingWithdrawn(consentState && consentStateFromItem(consentState));

function matches(key: TableKey): (item: Item) => boolean {
  return (item) => item[PK] === key[PK] && item[SK] === key[SK];
}
