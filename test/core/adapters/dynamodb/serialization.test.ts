import {
  auditEventFromItem,
  auditEventToItem,
  consentFromItem,
  consentStateFromItem,
  consentStateToItem,
  consentToItem,
  currentResourceToItem,
  operationalConfigFromItem,
  operationalConfigToItem,
  resourceFromItem,
  resourceVersionToItem,
} from '../../../../lambda/core/adapters/dynamodb/codecs/admin-codec';
import { crmSyncFromItem, crmSyncToItem } from '../../../../lambda/core/adapters/dynamodb/codecs/crm-sync-codec';
import { demandFromItem, demandToItem } from '../../../../lambda/core/adapters/dynamodb/codecs/demand-codec';
import {
  legacyBufferFromItem,
  legacyBufferToItem,
  latestInboundFromItem,
  legacyPendingReplyFromItem,
  legacyPendingReplyToItem,
  receiptFromItem,
  receiptToItem,
} from '../../../../lambda/core/adapters/dynamodb/codecs/inbound-codec';
import { messageFromItem, messageToItem } from '../../../../lambda/core/adapters/dynamodb/codecs/message-codec';
import { loginGrantFromItem, loginGrantToItem, operatorSessionFromItem, operatorSessionToItem } from '../../../../lambda/core/adapters/dynamodb/codecs/operator-auth-codec';
import { activePointerFromItem, activePointerToItem, sessionFromItem, sessionToItem } from '../../../../lambda/core/adapters/dynamodb/codecs/session-codec';
import { DynamoKit, type Item } from '../../../../lambda/core/adapters/dynamodb/dynamo-kit';
import { EntityType, latestInboundKey, sessionKey } from '../../../../lambda/core/adapters/dynamodb/keys';
import { DynamoInboundReceiptRepository } from '../../../../lambda/core/adapters/dynamodb/inbound-receipt-repository';
import { DynamoSessionRepository } from '../../../../lambda/core/adapters/dynamodb/session-repository';
import { MalformedItemError } from '../../../../lambda/core/adapters/dynamodb/dynamo-errors';
import { createTestTable, type TestTable } from '../../../support/dynamo-table';
import { inboundTurn, newSession } from '../../../support/domain-records';
import { newCustomer } from '../../../support/ids';
import { ManualClock } from '../../../support/manual-clock';

const legacy = { unknownAttributes: { legacy_flag: 'kept', legacy_nested: { a: [1, 'two'] } } };

/** One fully populated instance of every entity, already in normalised form, with its codec. */
const entities: [string, unknown, (entity: never) => Item, (item: Item) => unknown][] = [
  [
    'session',
    {
      ...newSession('5511', { state: 'HUMAN_ACTIVE', segment: 'PESQUISA', intent: 'servico', assignedTo: 'operator-a', cadastralData: { name: 'Ana', age: 41 } }),
      humanSendLock: { lockId: 'l-1', acquiredAt: '2026-03-10T12:00:00.000000Z', expiresAt: '2026-03-10T12:00:30.000000Z' },
      handoffRequestedAt: '2026-03-10T11:00:00.000000Z',
      handoffRenotifiedAt: '2026-03-10T11:30:00.000000Z',
      handoffRenotifyCount: 2,
      handoffCustomerRenotifiedAt: '2026-03-10T11:31:00.000000Z',
      closedAt: undefined,
      ...legacy,
    },
    sessionToItem,
    sessionFromItem,
  ],
  [
    'message',
    {
      customerId: '5511',
      sessionId: 's-1',
      messageId: 'out-1',
      direction: 'outbound',
      role: 'assistant',
      text: 'Olá!',
      timestamp: '2026-03-10T12:00:00.000001Z',
      deliveryStatus: 'sent',
      providerMessageId: 'wamid.sent',
      sentAt: '2026-03-10T12:00:01.000000Z',
      replyToMessageId: 'wamid.in',
      llm: { model: 'm', inputTokens: 1, outputTokens: 2, latencyMs: 3 },
      ...legacy,
    },
    messageToItem,
    messageFromItem,
  ],
  [
    'out-of-portfolio demand',
    { demandId: 'd-1', sourceMessageId: 'wamid.1', customerId: '5511', sessionId: 's-1', requestedService: 'x', originalMessage: 'y', estimatedSegment: 'z', businessPhoneNumberId: 'w', recordedAt: '2026-03-10T12:00:00.000000Z', ...legacy },
    demandToItem,
    demandFromItem,
  ],
  [
    'inbound receipt',
    {
      turn: { ...inboundTurn('5511'), providerTimestamp: '2026-03-10T11:59:00.000000Z', receivedAt: '2026-03-10T11:59:01.000000Z', displayPhoneNumber: '+55 11 4000' },
      registeredAt: '2026-03-10T12:00:00.000000Z',
      expiresAtEpochSeconds: 1_773_748_800,
      agentRoutedAt: '2026-03-10T12:00:00.100000Z',
      dispatchedAt: '2026-03-10T12:00:00.200000Z',
      completedAt: '2026-03-10T12:00:05.000000Z',
      ...legacy,
    },
    receiptToItem,
    receiptFromItem,
  ],
  [
    'legacy buffer',
    { customerId: '5511', messageIds: ['a', 'b'], texts: ['1', '2'], firstMessageAt: '2026-03-10T12:00:00.000000Z', lastMessageAt: '2026-03-10T12:00:09.000000Z', businessPhoneNumberId: 'w', ...legacy },
    legacyBufferToItem,
    legacyBufferFromItem,
  ],
  [
    'legacy pending reply',
    { customerId: '5511', text: 't', sessionId: 's-1', state: 'QUALIFYING', firstMessageId: 'a', firstMessageAt: '2026-03-10T12:00:00.000000Z', createdAt: '2026-03-10T12:00:01.000000Z', ...legacy },
    legacyPendingReplyToItem,
    legacyPendingReplyFromItem,
  ],
  [
    'CRM projection',
    {
      sessionId: 's-1',
      customerId: '5511',
      status: 'SYNCED',
      desired: { contact: { customerId: '5511' }, deal: { stage: 'qualifying' } },
      revision: 'r2',
      syncedRevision: 'r2',
      contactId: 'c',
      dealId: 'd',
      contactCreationStartedAt: '2026-03-10T12:00:00.000000Z',
      dealCreationStartedAt: '2026-03-10T12:00:01.000000Z',
      attempts: 1,
      nextAttemptAt: '2026-03-10T12:05:00.000000Z',
      lastError: 'timeout',
      etag: 'e',
      updatedAt: '2026-03-10T12:00:02.000000Z',
      ...legacy,
    },
    crmSyncToItem,
    crmSyncFromItem,
  ],
  [
    'admin resource (current)',
    { resourceType: 'prompt', resourceId: 'p', version: 3, content: 'c', description: 'd', active: false, author: 'a', createdAt: '2026-03-10T12:00:00.000000Z', rolledBackFrom: 1, ...legacy },
    currentResourceToItem,
    (item: Item) => resourceFromItem(item, EntityType.adminResource),
  ],
  [
    'admin resource version',
    { resourceType: 'prompt', resourceId: 'p', version: 2, content: 'c', active: true, author: 'a', createdAt: '2026-03-10T12:00:00.000000Z', ...legacy },
    resourceVersionToItem,
    (item: Item) => resourceFromItem(item, EntityType.adminResourceVersion),
  ],
  [
    'operational config',
    { key: 'k', value: { nested: [1, { deep: true }] }, author: 'a', updatedAt: '2026-03-10T12:00:00.000000Z', version: 4, ...legacy },
    operationalConfigToItem,
    operationalConfigFromItem,
  ],
  [
    'admin audit event',
    { eventId: 'e', occurredAt: '2026-03-10T12:00:00.000000Z', author: 'a', action: 'x', resourceType: 'prompt', resourceId: 'p', details: { from: 1, to: 2 }, ...legacy },
    auditEventToItem,
    auditEventFromItem,
  ],
  [
    'consent record',
    { consentId: 'c', customerId: '5511', recordedAt: '2026-03-10T12:00:00.000000Z', purpose: 'marketing', granted: false, source: 'whatsapp', sessionId: 's', termsVersion: 'v2', evidenceMessageId: 'wamid.1', ...legacy },
    consentToItem,
    consentFromItem,
  ],
  [
    'current consent',
    { consentId: 'c', customerId: '5511', recordedAt: '2026-03-10T12:00:00.000000Z', purpose: 'whatsapp_messages', granted: false, source: 'whatsapp_keyword', evidenceMessageId: 'wamid.1', ...legacy },
    consentStateToItem,
    consentStateFromItem,
  ],
  ['login grant', { tokenHash: 'a'.repeat(64), operatorPhone: '5511', createdAt: '2026-03-10T12:00:00.000000Z', expiresAt: '2026-03-10T12:10:00.000000Z', ...legacy }, loginGrantToItem, loginGrantFromItem],
  [
    'operator session',
    { tokenHash: 'b'.repeat(64), operatorPhone: '5511', csrfToken: 'csrf', createdAt: '2026-03-10T12:00:00.000000Z', expiresAt: '2026-03-11T03:00:00.000000Z', ...legacy },
    operatorSessionToItem,
    operatorSessionFromItem,
  ],
];

let table: TestTable;
let kit: DynamoKit;
beforeAll(async () => {
  table = await createTestTable('serialization');
  kit = new DynamoKit({ tableName: table.name });
});
afterAll(() => table.drop());

test.each(entities)('%s round-trips through DynamoDB, unknown attributes included', async (_name, entity, toItem, fromItem) => {
  const item = toItem(entity as never);
  await kit.put({ item });
  const stored = (await kit.get({ key: { PK: item.PK as string, SK: item.SK as string }, consistentRead: true }))!;

  const decoded = fromItem(stored);

  expect(decoded).toEqual(entity);
  expect(stored).toMatchObject({ entity_type: expect.any(String), legacy_flag: 'kept', legacy_nested: { a: [1, 'two'] } });
  expect(toItem(decoded as never)).toEqual(item);
});

test('the ACTIVE pointer and the latest-inbound marker round-trip', async () => {
  await kit.put({ item: activePointerToItem('5511', 's-9', '2026-03-10T12:00:00Z') });
  expect(activePointerFromItem((await kit.get({ key: { PK: 'SESSION#5511', SK: 'ACTIVE' } }))!)).toEqual({ sessionId: 's-9', updatedAt: '2026-03-10T12:00:00.000000Z' });

  const clock = new ManualClock();
  const receipts = new DynamoInboundReceiptRepository(kit, clock);
  const customerId = newCustomer();
  const turn = inboundTurn(customerId);
  await receipts.registerInbound(turn);
  await kit.update({ key: latestInboundKey(customerId), update: 'SET future_marker = :m', values: { ':m': 'kept' } });
  await receipts.registerInbound(inboundTurn(customerId));
  const latest = latestInboundFromItem((await kit.get({ key: latestInboundKey(customerId), consistentRead: true }))!);
  expect(latest).toMatchObject({ customerId, pendingMessageIds: [turn.messageId, expect.any(String)], unknownAttributes: { future_marker: 'kept' } });
});

test('rows written by the original implementation are normalised on read', () => {
  const old = {
    PK: 'SESSION#5511',
    SK: 'SESSION#s-old',
    GSI1PK: 'STATE#QUALIFYING',
    GSI1SK: '2026-09-14T12:00:00+00:00',
    session_id: 's-old',
    phone_number: '5511',
    whatsapp_instance: 'gogenetic',
    state: 'QUALIFYING',
    qualification_data: { tipo_amostra: 'amostra sintética' },
    handoff_renotify_count: '3',
    created_at: '2026-09-14T12:00:00+00:00',
    updated_at: '2026-09-14T09:00:05-03:00',
  };
  const session = sessionFromItem(old);
  expect(session).toMatchObject({ createdAt: '2026-09-14T12:00:00.000000Z', updatedAt: '2026-09-14T12:00:05.000000Z', handoffRenotifyCount: 3, cadastralData: {} });
  expect(session.unknownAttributes).toBeUndefined();
  expect(sessionToItem(session)).toMatchObject({ entity_type: 'session', GSI1SK: '2026-09-14T12:00:00.000000Z', handoff_renotify_count: 3 });
});

test('an item of another entity type or missing a required attribute is rejected, not guessed', () => {
  const message = messageToItem({ customerId: '5511', sessionId: 's', messageId: 'm', direction: 'inbound', role: 'user', text: 't', timestamp: '2026-03-10T12:00:00Z' });
  expect(() => sessionFromItem(message)).toThrow(MalformedItemError);
  const { session_id: _dropped, ...incomplete } = sessionToItem(newSession('5511'));
  expect(() => sessionFromItem(incomplete)).toThrow(/session_id is missing/);
  expect(() => sessionFromItem({ ...sessionToItem(newSession('5511')), state: 'LIMBO' })).toThrow(MalformedItemError);
});

test('GSI1 lists identify items by entity type, not by the presence of GSI1PK', async () => {
  const clock = new ManualClock();
  const sessions = new DynamoSessionRepository(kit, clock);
  const session = newSession(newCustomer(), { state: 'NEW', createdAt: '2031-01-01T00:00:00.000000Z' });
  await sessions.put(session);
  // Another kind of item that happens to sit in the same GSI1 partition.
  await kit.put({ item: { PK: 'OTHER#1', SK: 'X', GSI1PK: 'STATE#NEW', GSI1SK: '2031-01-01T00:00:00.000001Z', entity_type: 'something_else' } });

  const { items } = await sessions.listByState('NEW');

  expect(items.map((item) => item.sessionId)).toEqual([session.sessionId]);
  expect((await kit.get({ key: sessionKey(session.customerId, session.sessionId) }))?.entity_type).toBe(EntityType.session);
});
