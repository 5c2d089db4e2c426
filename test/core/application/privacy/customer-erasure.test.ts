import { DynamoCustomerDataRepository } from '../../../../lambda/core/adapters/dynamodb/customer-data-repository';
import { DynamoAdminAuditRepository } from '../../../../lambda/core/adapters/dynamodb/admin-audit-repository';
import { DynamoKit, type DynamoCallEvent } from '../../../../lambda/core/adapters/dynamodb/dynamo-kit';
import { createDynamoRepositories, type DynamoRepositories } from '../../../../lambda/core/adapters/dynamodb/dynamo-repositories';
import { OperatorAuditTrail } from '../../../../lambda/core/application/operator/operator-audit';
import { CustomerDataRights, InvalidCustomerIdError } from '../../../../lambda/core/application/privacy/customer-data-rights';
import { CustomerPseudonyms } from '../../../../lambda/core/application/privacy/customer-pseudonyms';
import * as keys from '../../../../lambda/core/adapters/dynamodb/keys';
import { customerPseudonym } from '../../../../lambda/core/domain/privacy';
import { inboundTurn, newSession } from '../../../support/domain-records';
import { newCustomer } from '../../../support/ids';
import { ManualClock, SequentialIds } from '../../../support/manual-clock';
import { createTestTable, type TestTable } from '../../../support/dynamo-table';
import { AWS_SDK_FAILURES, FaultInjector, InvocationCrash } from '../../../support/fault-injection';
import { everythingStoredFor, seedRichHistory } from '../../../support/customer-history';

let table: TestTable;
let repos: DynamoRepositories;
const calls: DynamoCallEvent[] = [];
const clock = new ManualClock('2026-03-10T12:00:00.000Z');

beforeAll(async () => {
  table = await createTestTable('privacy');
  repos = createDynamoRepositories({ tableName: table.name, clock, crmSyncEnabled: true, observer: { onRemoteCall: (event) => calls.push(event) } });
});
afterAll(() => table.drop());

function rightsOn(data = repos.customerData, audit = repos.audit) {
  return new CustomerDataRights({ data, trail: new OperatorAuditTrail(audit, clock, new SequentialIds('audit'), new CustomerPseudonyms(data)), clock });
}

describe('erasing one customer', () => {
  test('a rich history is gone from every key the data model defines; another customer is untouched', async () => {
    const erased = await seedRichHistory(repos, newCustomer());
    const kept = await seedRichHistory(repos, newCustomer());
    const before = await everythingStoredFor(repos.kit, erased);
    const keptBefore = await everythingStoredFor(repos.kit, kept);
    // The seed really is rich: every kind of item is there to be erased.
    const kinds = new Set(before.map((item) => item.entity_type));
    for (const kind of ['session', 'active_pointer', 'message', 'inbound_receipt', 'latest_inbound', 'debounce_buffer', 'crm_sync', 'oop_demand', 'oop_demand_source', 'consent', 'operator_login_grant', 'operator_session', 'customer_budget']) {
      expect(kinds).toContain(kind);
    }

    calls.length = 0;
    const report = await rightsOn().erase(erased.customerId, 'admin-phone');
    const requests = calls.map((call) => call.operation);

    expect(await everythingStoredFor(repos.kit, erased)).toEqual([]);
    expect(await everythingStoredFor(repos.kit, kept)).toEqual(keptBefore);
    expect(report.passes).toBe(2);
    expect(report.deleted.message).toBe(6);
    expect(report.deleted.session).toBe(3);
    // The audit names the customer by pseudonym only.
    const salt = await repos.customerData.pseudonymSalt();
    expect(report.customerPseudonym).toBe(customerPseudonym(salt, erased.customerId));
    const audit = (await repos.audit.listRecent({ limit: 5 })).items.find((event) => event.resourceId === report.customerPseudonym);
    expect(audit).toMatchObject({ action: 'customer.erase', resourceType: 'customer', author: 'admin-phone' });
    expect(JSON.stringify(audit)).not.toContain(erased.customerId);
    // Figures for the report: DynamoDB requests of one erasure of this history.
    process.stdout.write(`erasure of a rich history: ${requests.length} DynamoDB requests ${JSON.stringify(countBy(requests))}\n`);
    // One delete per item, never a batch (see the next test), and one raise of the inbox's version:
    // the erased conversations leave every open inbox.
    expect(countBy(requests)).toMatchObject({ update: 1 });
    expect(Object.keys(countBy(requests)).sort()).toEqual(['delete', 'get', 'put', 'queryPage', 'update']);
  });

  test('every item goes one DeleteItem each, never in a batch: whoever erases can write nothing, sign-ins included', async () => {
    const seeded = await seedRichHistory(repos, newCustomer());
    const batched: Record<string, unknown>[] = [];
    const deleted: Record<string, unknown>[] = [];
    class RecordingKit extends DynamoKit {
      override batchWrite(requests: Parameters<DynamoKit['batchWrite']>[0]) {
        batched.push(...requests.map((request) => ('delete' in request ? request.delete : request.put)));
        return super.batchWrite(requests);
      }
      override delete(request: Parameters<DynamoKit['delete']>[0]) {
        deleted.push(request.key);
        return super.delete(request);
      }
    }
    await rightsOn(new DynamoCustomerDataRepository(new RecordingKit({ tableName: table.name }), clock)).erase(seeded.customerId, 'admin-phone');
    expect(await everythingStoredFor(repos.kit, seeded)).toEqual([]);
    expect(batched).toEqual([]);
    expect(deleted.length).toBeGreaterThan(10);
    expect(deleted.filter((key) => key.PK === 'OPERATOR#AUTH')).toHaveLength(2);
  });

  test('the CRM row of a session that retention removed is found by its reference, erased and exported', async () => {
    const seeded = await seedRichHistory(repos, newCustomer());
    const [expiredSessionId] = seeded.sessionIds;
    await repos.kit.delete({ key: keys.sessionKey(seeded.customerId, expiredSessionId!) });
    expect(await repos.kit.get({ key: keys.crmSyncKey(expiredSessionId!) })).toBeDefined();

    const exported = await rightsOn().export(seeded.customerId, 'admin-phone');
    expect(exported.records.crm_sync?.map((row) => row.session_id)).toContain(expiredSessionId);
    await rightsOn().erase(seeded.customerId, 'admin-phone');
    expect(await repos.kit.get({ key: keys.crmSyncKey(expiredSessionId!), consistentRead: true })).toBeUndefined();
    expect(await everythingStoredFor(repos.kit, seeded)).toEqual([]);
  });

  test('running it again changes nothing and still succeeds', async () => {
    const seeded = await seedRichHistory(repos, newCustomer());
    await rightsOn().erase(seeded.customerId, 'admin-phone');
    const again = await rightsOn().erase(seeded.customerId, 'admin-phone');
    expect(again).toMatchObject({ deleted: {}, passes: 1 });
  });

  test('a customer id that is no key segment is refused before anything is read or written', async () => {
    calls.length = 0;
    for (const bad of ['', 'a#b', 'x'.repeat(129), 'tab\there']) {
      await expect(rightsOn().erase(bad, 'admin-phone')).rejects.toBeInstanceOf(InvalidCustomerIdError);
      await expect(rightsOn().export(bad, 'admin-phone')).rejects.toBeInstanceOf(InvalidCustomerIdError);
    }
    expect(calls).toEqual([]);
  });

  test('a message registered while the erasure runs is erased whole, never left half', async () => {
    const seeded = await seedRichHistory(repos, newCustomer());
    const injector = new FaultInjector();
    const kit = injector.remote('dynamodb', new DynamoKit({ tableName: table.name }), AWS_SDK_FAILURES);
    const data = injector.port('customerData', new DynamoCustomerDataRepository(kit, clock));
    // Right after the first deletes, the customer writes again.
    injector.hook({
      boundary: 'customerData.remove › dynamodb.delete',
      phase: 'after',
      action: async () => {
        await repos.receipts.registerInbound(inboundTurn(seeded.customerId, { text: 'mid-erasure' }));
      },
    });
    const report = await rightsOn(data, new DynamoAdminAuditRepository(kit)).erase(seeded.customerId, 'admin-phone');
    expect(report.passes).toBe(3);
    expect(await everythingStoredFor(repos.kit, { ...seeded, texts: [...seeded.texts, 'mid-erasure'] })).toEqual([]);
  });
});

describe('an erasure that crashed at any step', () => {
  test('completes when run again: every boundary (the first, a middle and the last of the item deletes), crashing before and after the call', async () => {
    const boundaries = await crossingsOfACleanErasure();
    expect(boundaries.length).toBeGreaterThan(5);
    for (const { boundary, occurrence } of boundaries) {
      for (const phase of ['before', 'after'] as const) {
        const seeded = await seedRichHistory(repos, newCustomer());
        const injector = new FaultInjector({ plans: [{ boundary, occurrence, phase, kind: 'crash' }] });
        const kit = injector.remote('dynamodb', new DynamoKit({ tableName: table.name }), AWS_SDK_FAILURES);
        const crashed = await injector.runInvocation('erase', () =>
          rightsOn(injector.port('customerData', new DynamoCustomerDataRepository(kit, clock)), injector.port('audit', new DynamoAdminAuditRepository(kit))).erase(seeded.customerId, 'admin-phone'),
        );
        expect({ boundary, occurrence, phase, crashed: crashed.crashed }).toEqual({ boundary, occurrence, phase, crashed: true });
        expect(crashed.error).toBeInstanceOf(InvocationCrash);

        await rightsOn().erase(seeded.customerId, 'admin-phone');
        expect(await everythingStoredFor(repos.kit, seeded)).toEqual([]);
      }
    }
  });
});

describe('exporting one customer', () => {
  test('one JSON document holds every item, and survives a JSON round trip', async () => {
    const seeded = await seedRichHistory(repos, newCustomer());
    const other = await seedRichHistory(repos, newCustomer());
    const document = await rightsOn().export(seeded.customerId, 'admin-phone');
    const parsed = JSON.parse(JSON.stringify(document));
    expect(parsed).toEqual(document);
    expect(parsed).toMatchObject({ format: 'customer-export/1', customerId: seeded.customerId, exportedAt: '2026-03-10T12:00:00.000000Z' });
    const count = (kind: string) => (parsed.records[kind] ?? []).length;
    expect([count('session'), count('message'), count('inbound_receipt'), count('crm_sync'), count('oop_demand'), count('consent')]).toEqual([3, 6, 3, 3, 2, 3]);
    expect([count('operator_login_grant'), count('operator_session'), count('latest_inbound'), count('debounce_buffer')]).toEqual([1, 1, 1, 1]);
    for (const text of seeded.texts) expect(JSON.stringify(parsed)).toContain(text);
    expect(JSON.stringify(parsed)).not.toContain(other.customerId);
    // Sign-in links and sessions say when they were made and end, never what signs in.
    for (const kind of ['operator_login_grant', 'operator_session']) expect(Object.keys(parsed.records[kind][0]).sort()).toEqual(['created_at', 'expires_at']);
    for (const secret of [...seeded.grantHashes, 'csrf_token', 'token_hash']) expect(JSON.stringify(parsed)).not.toContain(secret);
    // References are bookkeeping: what they name is exported, not they.
    expect(Object.keys(parsed.records).filter((kind) => kind.endsWith('_reference'))).toEqual([]);
    // Reading is no erasure: everything is still there.
    expect((await everythingStoredFor(repos.kit, seeded)).length).toBeGreaterThan(20);
  });
});

describe('what the customer’s export says of the staff', () => {
  test('operators are named as staff, never by their phone: a note’s author, a reply’s operator, who holds or read the conversation, whom the CRM deal is assigned to; what they wrote stays', async () => {
    const customerId = newCustomer();
    const staffPhone = '5511912345678';
    const at = '2026-03-10T11:00:00.000000Z';
    const session = newSession(customerId, { state: 'HUMAN_ACTIVE', assignedTo: staffPhone, seenBy: { [staffPhone]: at }, createdAt: at, updatedAt: at });
    await repos.sessions.put(session);
    await repos.messages.append({ customerId, sessionId: session.sessionId, messageId: 'op-reply', direction: 'outbound', role: 'operator', text: 'Olá, aqui é a Bia', timestamp: at, deliveryStatus: 'sent', operatorPhone: staffPhone });
    await repos.notes.add({ customerId, noteId: 'n1', sessionId: session.sessionId, authorPhone: staffPhone, authorName: 'Bia', text: 'Prefere ligação à tarde', createdAt: at });

    const { records } = await rightsOn().export(customerId, 'admin-phone');

    expect(JSON.stringify(records)).not.toContain(staffPhone);
    expect(records.operator_note).toEqual([expect.objectContaining({ author_phone: 'staff', author_name: 'Bia', text: 'Prefere ligação à tarde' })]);
    expect(records.message).toEqual([expect.objectContaining({ operator_phone: 'staff', text: 'Olá, aqui é a Bia' })]);
    expect(records.session).toEqual([expect.objectContaining({ assigned_to: 'staff' })]);
    expect(records.session?.[0]).not.toHaveProperty('seen_by');
    expect(records.crm_sync).toEqual([expect.objectContaining({ desired: expect.objectContaining({ deal: expect.objectContaining({ assignedTo: 'staff' }) }) })]);
  });
});

async function crossingsOfACleanErasure(): Promise<{ boundary: string; occurrence: number }[]> {
  const seeded = await seedRichHistory(repos, newCustomer());
  const injector = new FaultInjector();
  const kit = injector.remote('dynamodb', new DynamoKit({ tableName: table.name }), AWS_SDK_FAILURES);
  await injector.runInvocation('erase', () =>
    rightsOn(injector.port('customerData', new DynamoCustomerDataRepository(kit, clock)), injector.port('audit', new DynamoAdminAuditRepository(kit))).erase(seeded.customerId, 'admin-phone'),
  );
  // One DeleteItem per item: the first, the middle and the last of a repeated boundary stand for the rest.
  const counts = new Map<string, number>();
  for (const { boundary } of injector.crossings) counts.set(boundary, (counts.get(boundary) ?? 0) + 1);
  return [...counts].flatMap(([boundary, count]) => [...new Set([1, Math.ceil(count / 2), count])].map((occurrence) => ({ boundary, occurrence })));
}

function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
