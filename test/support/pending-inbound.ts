import { InboundAttribute } from '../../lambda/core/adapters/dynamodb/codecs/inbound-codec';
import type { DynamoKit } from '../../lambda/core/adapters/dynamodb/dynamo-kit';
import { latestInboundKey } from '../../lambda/core/adapters/dynamodb/keys';
import { DynamoTurnLedger } from '../../lambda/core/adapters/dynamodb/turn-ledger';
import { systemClock } from '../../lambda/core/adapters/system/system-clock';
import type { PendingInbound } from '../../lambda/core/domain/inbound-receipt';

/**
 * The invalidation barrier as the seed system wrote it on the latest-inbound marker (this runtime
 * only honours it): the pending list dropped, lifted by the next registered message.
 */
export async function invalidateAsSeedDid(kit: DynamoKit, customerId: string, at: string): Promise<void> {
  await kit.update({
    key: latestInboundKey(customerId),
    update: 'SET #invalidated = :at, #pending = :empty',
    names: { '#invalidated': InboundAttribute.invalidatedAt, '#pending': InboundAttribute.pendingMessageIds },
    values: { ':at': at, ':empty': [] },
  });
}

/** What the customer's next turn would drain, read as a turn reads it (marker first, then the receipts). */
export async function drainablePending(kit: DynamoKit, customerId: string): Promise<PendingInbound[]> {
  const ledger = new DynamoTurnLedger(kit, systemClock);
  const { latest } = await ledger.readMarker(customerId);
  return latest ? (await ledger.readPending(latest, undefined)).pending : [];
}
