import { type CrmSyncRow, CrmSyncStatus } from '../../../domain/crm-sync';
import { isoMicros } from '../../../domain/timestamps';
import type { Item } from '../dynamo-kit';
import { crmSyncKey, crmSyncStatusIndexKey, ENTITY_TYPE, EntityType, shardedCrmSyncStatusIndexKey, TTL } from '../keys';
import { ItemReader, optionalIso, withUnknownAttributes } from './item-reader';

export const CrmSyncAttribute = { etag: 'etag' } as const;

const STATUSES = Object.values(CrmSyncStatus);

/** `shardedIndexKey` writes the status index key in the sharded layout (see key-layout.ts). */
export function crmSyncToItem(row: CrmSyncRow, shardedIndexKey = false): Item {
  return withUnknownAttributes(row, {
    ...crmSyncKey(row.sessionId),
    ...(shardedIndexKey ? shardedCrmSyncStatusIndexKey(row.status, row.nextAttemptAt, row.sessionId, row.customerId) : crmSyncStatusIndexKey(row.status, row.nextAttemptAt, row.sessionId)),
    [ENTITY_TYPE]: EntityType.crmSync,
    session_id: row.sessionId,
    phone_number: row.customerId,
    status: row.status,
    desired: row.desired,
    revision: row.revision,
    synced_revision: row.syncedRevision,
    contact_id: row.contactId,
    deal_id: row.dealId,
    contact_creation_started_at: optionalIso(row.contactCreationStartedAt),
    deal_creation_started_at: optionalIso(row.dealCreationStartedAt),
    attempts: row.attempts,
    next_attempt_at: isoMicros(row.nextAttemptAt),
    last_error: row.lastError,
    claimed_until: optionalIso(row.claimedUntil),
    etag: row.etag,
    updated_at: isoMicros(row.updatedAt),
    [TTL]: row.retainUntil,
  });
}

export function crmSyncFromItem(item: Item): CrmSyncRow {
  const read = new ItemReader(item, EntityType.crmSync);
  const desired = read.map('desired');
  return {
    sessionId: read.string('session_id'),
    customerId: read.string('phone_number'),
    status: read.oneOf('status', STATUSES),
    desired: { contact: (desired.contact ?? {}) as Record<string, unknown>, deal: (desired.deal ?? {}) as Record<string, unknown> },
    revision: read.string('revision'),
    syncedRevision: read.optionalString('synced_revision'),
    contactId: read.optionalString('contact_id'),
    dealId: read.optionalString('deal_id'),
    contactCreationStartedAt: read.optionalTimestamp('contact_creation_started_at'),
    dealCreationStartedAt: read.optionalTimestamp('deal_creation_started_at'),
    attempts: read.number('attempts', 0),
    nextAttemptAt: read.timestamp('next_attempt_at'),
    lastError: read.optionalString('last_error'),
    claimedUntil: read.optionalTimestamp('claimed_until'),
    retainUntil: read.optionalNumber(TTL),
    etag: read.string('etag'),
    updatedAt: read.timestamp('updated_at'),
    ...read.unknownAttributes(),
  };
}
