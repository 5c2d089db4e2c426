import { createHash, randomUUID } from 'node:crypto';
import { consentFromItem } from '../../lambda/core/adapters/dynamodb/codecs/admin-codec';
import type { DynamoKit } from '../../lambda/core/adapters/dynamodb/dynamo-kit';
import type { DynamoRepositories } from '../../lambda/core/adapters/dynamodb/dynamo-repositories';
import * as keys from '../../lambda/core/adapters/dynamodb/keys';
import type { ConsentRecord } from '../../lambda/core/domain/admin';
import { customerPseudonym } from '../../lambda/core/domain/privacy';
import { inboundTurn, newSession } from './domain-records';
import { newMessageId } from './ids';

export interface SeededCustomer {
  readonly customerId: string;
  readonly sessionIds: readonly string[];
  readonly messageIds: readonly string[];
  readonly demandIds: readonly string[];
  readonly demandKeys: readonly keys.TableKey[];
  readonly grantHashes: readonly string[];
  /** Texts the customer wrote: must not survive an erasure anywhere. */
  readonly texts: readonly string[];
}

type Repositories = Pick<DynamoRepositories, 'sessions' | 'messages' | 'receipts' | 'demands' | 'consents' | 'operatorAuth' | 'budgets' | 'kit'>;

/**
 * A customer with a rich history, written through the real repositories: three sessions (two
 * closed, one active) with CRM rows, messages in each (agent replies on the LLM index), receipts
 * and the latest marker, demands, consent events in both layouts, a legacy debounce buffer, and —
 * as the customer is also an operator — a login grant and an operator session; and a day of budget counts.
 */
export async function seedRichHistory(repos: Repositories, customerId: string): Promise<SeededCustomer> {
  const texts: string[] = [];
  const sessionIds: string[] = [];
  const messageIds: string[] = [];
  const states = ['CLOSED', 'CLOSED', 'QUALIFYING'] as const;
  for (const [index, state] of states.entries()) {
    const day = `2026-03-0${index + 1}`;
    const session = newSession(customerId, {
      state,
      createdAt: `${day}T10:00:00.000000Z`,
      updatedAt: `${day}T10:05:00.000000Z`,
      segment: 'oncology',
      intent: 'buy_exam',
      cadastralData: { name: `Cliente ${customerId.slice(-4)}`, dealValue: 1200 },
      ...(state === 'CLOSED' ? { closedAt: `${day}T10:05:00.000000Z` } : {}),
    });
    await repos.sessions.put(session);
    sessionIds.push(session.sessionId);
    const text = `secret-${customerId}-${index} quero o exame BRCA`;
    texts.push(text);
    const inboundId = newMessageId();
    messageIds.push(inboundId);
    await repos.messages.append({ customerId, sessionId: session.sessionId, messageId: inboundId, direction: 'inbound', role: 'user', text, timestamp: `${day}T10:01:00.000000Z` });
    await repos.messages.append({
      customerId,
      sessionId: session.sessionId,
      messageId: randomUUID(),
      direction: 'outbound',
      role: 'assistant',
      text: `resposta para ${customerId}`,
      timestamp: `${day}T10:02:00.000000Z`,
      deliveryStatus: 'sent',
      llm: { model: 'scripted', inputTokens: 10, outputTokens: 5, latencyMs: 3 },
    });
  }
  for (let index = 0; index < 3; index++) {
    const turn = inboundTurn(customerId, { text: `recibo-${customerId}-${index}` });
    texts.push(turn.text!);
    await repos.receipts.registerInbound(turn);
  }
  const demandIds: string[] = [];
  const demandKeys: keys.TableKey[] = [];
  for (let index = 0; index < 2; index++) {
    const demandId = randomUUID();
    const recordedAt = `2026-03-0${index + 1}T10:03:00.000000Z`;
    await repos.demands.record({
      demandId,
      sourceMessageId: messageIds[index]!,
      customerId,
      sessionId: sessionIds[index],
      requestedService: 'teste de paternidade',
      originalMessage: texts[index]!,
      recordedAt,
    });
    demandIds.push(demandId);
    demandKeys.push(keys.demandKey(recordedAt, demandId), keys.demandSourceKey(messageIds[index]!));
  }
  await repos.consents.record({ consentId: randomUUID(), customerId, recordedAt: '2026-03-01T10:00:00.000000Z', purpose: 'data_processing', granted: true, source: 'whatsapp' });
  await repos.consents.record({ consentId: randomUUID(), customerId, recordedAt: '2026-03-02T10:00:00.000000Z', purpose: 'whatsapp_messages', granted: false, source: 'whatsapp' });
  await writeSeedLayoutConsent(repos.kit, customerId, '2025-12-01T10:00:00.000000Z');
  await repos.kit.put({
    item: { ...keys.legacyBufferKey(customerId), [keys.ENTITY_TYPE]: keys.EntityType.legacyDebounceBuffer, message_ids: ['old'], texts: [`buffer-${customerId}`] },
  });
  texts.push(`buffer-${customerId}`);
  const grantHashes = [sha256(`grant-${customerId}`), sha256(`session-${customerId}`)];
  await repos.operatorAuth.putLoginGrant(grantHashes[0]!, customerId);
  await repos.operatorAuth.putSession({ tokenHash: grantHashes[1]!, operatorPhone: customerId, csrfToken: 'csrf' });
  await repos.budgets.admitTurn(customerId, 'wamid.budget', new Date('2026-03-10T11:59:00.000Z'), { turnsPerMinute: 8, turnsPerHour: 60, agentTokensPerDay: 250_000 });
  return { customerId, sessionIds, messageIds, demandIds, demandKeys, grantHashes, texts };
}

/** The customer's consent events, newest first, as their data export finds them: their partition and the seed's layout. */
export async function consentEventsOf(repos: Pick<DynamoRepositories, 'customerData'>, customerId: string): Promise<ConsentRecord[]> {
  const { anchors } = await repos.customerData.inventory(customerId, { contents: true });
  return anchors
    .filter((record) => record.kind === keys.EntityType.consent)
    .map((record) => consentFromItem({ ...record.attributes }))
    .sort((a, b) => b.recordedAt.localeCompare(a.recordedAt));
}

/** What the admin audit calls the customer: their pseudonym under the deployment's salt. */
export async function auditNameOf(repos: Pick<DynamoRepositories, 'customerData'>, customerId: string): Promise<string> {
  return customerPseudonym(await repos.customerData.pseudonymSalt(), customerId);
}

/** A consent event as the seed system stored it (one time-keyed partition). */
export async function writeSeedLayoutConsent(kit: DynamoKit, customerId: string, recordedAt: string): Promise<string> {
  const consentId = randomUUID();
  await kit.put({
    item: {
      ...keys.legacyConsentKey(recordedAt, customerId, consentId),
      [keys.ENTITY_TYPE]: keys.EntityType.consent,
      consent_id: consentId,
      phone_number: customerId,
      recorded_at: recordedAt,
      purpose: 'data_processing',
      granted: true,
      source: 'seed',
    },
  });
  return consentId;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Every item that any key or index of the data model can hold for the customer (docs/DESIGN.md#data-model). */
export async function everythingStoredFor(kit: DynamoKit, seeded: SeededCustomer): Promise<Record<string, unknown>[]> {
  const { customerId } = seeded;
  const found: Record<string, unknown>[] = [];
  const queryAll = async (request: Parameters<DynamoKit['queryPage']>[0]) => {
    let cursor: string | undefined;
    do {
      const page = await kit.queryPage({ ...request, cursor });
      found.push(...page.items);
      cursor = page.cursor;
    } while (cursor);
  };
  const names = { '#pk': keys.PK };
  for (const partition of [keys.sessionPartition(customerId), keys.inboundPartition(customerId), keys.customerPartition(customerId), keys.budgetPartition(customerId)]) {
    await queryAll({ keyCondition: '#pk = :pk', names, values: { ':pk': partition }, consistentRead: true });
  }
  // Shared partitions and indexes, kept only where they mention the customer.
  const mentions = (item: Record<string, unknown>) => JSON.stringify(item).includes(customerId) || seeded.texts.some((text) => JSON.stringify(item).includes(text));
  const shared: Record<string, unknown>[] = [];
  const collectShared = async (request: Parameters<DynamoKit['queryPage']>[0]) => {
    let cursor: string | undefined;
    do {
      const page = await kit.queryPage({ ...request, cursor });
      shared.push(...page.items.filter(mentions));
      cursor = page.cursor;
    } while (cursor);
  };
  for (const partition of ['DEMAND#OOP', 'ADMIN#CONSENT', 'ADMIN#AUDIT', 'OPERATOR#AUTH']) {
    await collectShared({ keyCondition: '#pk = :pk', names, values: { ':pk': partition }, consistentRead: true });
  }
  for (const sessionId of seeded.sessionIds) await collectShared({ keyCondition: '#pk = :pk', names, values: { ':pk': keys.crmSyncKey(sessionId)[keys.PK] }, consistentRead: true });
  const gsiPartitions = ['STATE#NEW', 'STATE#QUALIFYING', 'STATE#AWAITING_HUMAN', 'STATE#HUMAN_ACTIVE', 'STATE#CLOSED', 'CRM_SYNC#PENDING', 'CRM_SYNC#SYNCED', 'CRM_SYNC#BLOCKED', 'CRM_SYNC#UNCERTAIN', keys.CONSENT_TIMELINE_PARTITION];
  for (const day of ['01', '02', '03']) gsiPartitions.push(keys.llmDayPartition(`2026-03-${day}T12:00:00Z`));
  for (const partition of gsiPartitions) {
    await collectShared({ indexName: keys.GSI1, keyCondition: '#gsi = :pk', names: { '#gsi': keys.GSI1PK }, values: { ':pk': partition } });
  }
  for (const key of [...seeded.demandKeys, ...seeded.grantHashes.flatMap((hash) => [keys.loginGrantKey(hash), keys.operatorSessionKey(hash)]), ...seeded.sessionIds.map(keys.crmSyncKey)]) {
    const item = await kit.get({ key, consistentRead: true });
    if (item) shared.push(item);
  }
  return [...found, ...shared];
}
