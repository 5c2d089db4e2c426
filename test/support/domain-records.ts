import { randomUUID } from 'node:crypto';
import { InboundAttribute } from '../../lambda/core/adapters/dynamodb/codecs/inbound-codec';
import type { DynamoKit } from '../../lambda/core/adapters/dynamodb/dynamo-kit';
import { latestInboundKey } from '../../lambda/core/adapters/dynamodb/keys';
import { DynamoTurnLedger } from '../../lambda/core/adapters/dynamodb/turn-ledger';
import { systemClock } from '../../lambda/core/adapters/system/system-clock';
import type { PendingInbound } from '../../lambda/core/domain/inbound-receipt';
import type { InboundTurn } from '../../lambda/core/domain/inbound-turn';
import type { Session } from '../../lambda/core/domain/session';

/** A customer id unique to the calling test, so tests sharing a table never see each other's rows. */
export function newPhone(): string {
  return `55${String(Math.floor(Math.random() * 1e11)).padStart(11, '0')}`;
}

export function newMessageId(): string {
  return `wamid.${randomUUID().replace(/-/g, '')}`;
}

export function inboundTurn(customerId: string, overrides: Partial<InboundTurn> = {}): InboundTurn {
  return {
    customerId,
    customerIdKind: 'phone',
    messageId: newMessageId(),
    providerTimestamp: '2026-03-10T11:59:00.000Z',
    receivedAt: '2026-03-10T11:59:01.000Z',
    messageType: 'text',
    text: 'Olá, quero saber sobre o exame',
    businessPhoneNumberId: '109876543210',
    ...overrides,
  };
}

export function newSession(customerId: string, overrides: Partial<Session> = {}): Session {
  return {
    sessionId: randomUUID(),
    customerId,
    customerIdKind: 'phone',
    businessPhoneNumberId: '109876543210',
    state: 'QUALIFYING',
    currentAgent: 'qualification',
    qualificationData: { sampleType: 'synthetic sample' },
    cadastralData: {},
    handoffRenotifyCount: 0,
    createdAt: '2026-03-10T12:00:00.000000Z',
    updatedAt: '2026-03-10T12:00:05.000000Z',
    ...overrides,
  };
}

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
