// Quick replies over real HTTP: an admin writes and removes them, every operator lists them;
// refused edits write nothing.
import type { FunctionUrlServer } from '../../../local/runtime/function-url-server';
import { QUICK_REPLIES_CONFIG_KEY } from '../../../lambda/core/domain/quick-reply';
import { createTestTable, tableRepositories, type TestTable } from '../../support/dynamo-table';
import { newOperatorPhone } from '../../support/ids';
import type { ConsoleClient } from '../../support/operator-console-client';
import { operatorSettings, signedInConsole, startOperatorInstance } from '../../support/operator-instances';

let table: TestTable;
let repositories: ReturnType<typeof tableRepositories>;
let instance: FunctionUrlServer;
let admin: ConsoleClient;
let operator: ConsoleClient;
const adminPhone = newOperatorPhone();
const operatorPhone = newOperatorPhone();

beforeAll(async () => {
  table = await createTestTable('quick-replies');
  repositories = tableRepositories(table.name);
  await repositories.config.set({ key: 'operators', value: { [operatorPhone]: { role: 'operator', name: 'Bia' } }, author: adminPhone });
  instance = await startOperatorInstance(operatorSettings(table.name, [adminPhone]));
  [admin, operator] = await Promise.all([signedInConsole(instance, repositories, adminPhone), signedInConsole(instance, repositories, operatorPhone)]);
});
afterAll(async () => {
  await instance.close();
  await table.drop();
});

const stored = async () => (await repositories.config.get(QUICK_REPLIES_CONFIG_KEY))?.version ?? 0;

it('lets an admin create, replace and remove quick replies that every operator lists in id order', async () => {
  const saved = await admin.call('PUT', '/api/admin/quick-replies/saudacao', { title: 'Saudação', text: '  Olá {name}, sou da equipe.  ' });
  expect(saved.status).toBe(200);
  expect(saved.body.quickReply).toMatchObject({ id: 'saudacao', title: 'Saudação', text: 'Olá {name}, sou da equipe.', updatedBy: adminPhone, updatedAt: expect.any(String) });
  expect((await admin.call('PUT', '/api/admin/quick-replies/horario', { title: 'Horário', text: 'Atendemos das 8h às 18h.' })).status).toBe(200);
  expect((await admin.call('PUT', '/api/admin/quick-replies/saudacao', { title: 'Saudação', text: 'Oi {name}!' })).status).toBe(200);

  const listed = await operator.call('GET', '/api/quick-replies');
  expect(listed.status).toBe(200);
  expect(listed.body.items.map((reply: { id: string; text: string }) => [reply.id, reply.text])).toEqual([
    ['horario', 'Atendemos das 8h às 18h.'],
    ['saudacao', 'Oi {name}!'],
  ]);

  expect((await admin.call('DELETE', '/api/admin/quick-replies/horario')).body).toEqual({ removed: true });
  expect((await operator.call('GET', '/api/quick-replies')).body.items.map((reply: { id: string }) => reply.id)).toEqual(['saudacao']);
  expect((await admin.call('DELETE', '/api/admin/quick-replies/horario')).status).toBe(404);
  const actions = (await repositories.audit.listRecent({ limit: 50 })).items.map((event) => event.action);
  expect(actions.filter((action) => action.startsWith('quick_reply.'))).toHaveLength(4);
});

it('refuses an operator’s edits with 403 and bad ids, blank or oversized texts with 400, writing nothing', async () => {
  const before = await stored();
  expect((await operator.call('PUT', '/api/admin/quick-replies/minha', { title: 'Minha', text: 'Texto' })).status).toBe(403);
  expect((await operator.call('DELETE', '/api/admin/quick-replies/saudacao')).status).toBe(403);
  for (const [id, body] of [
    ['Maiuscula', { title: 'T', text: 'x' }],
    ['-traco', { title: 'T', text: 'x' }],
    ['ok', { title: '  ', text: 'x' }],
    ['ok', { title: 'T', text: '   ' }],
    ['ok', { title: 'T', text: 'x'.repeat(1025) }],
    ['ok', { title: 'T'.repeat(61), text: 'x' }],
    ['ok', { title: 'T' }],
    ['ok', { title: 'T', text: 'x', extra: 1 }],
  ] as const) {
    const refused = await admin.call('PUT', `/api/admin/quick-replies/${id}`, body);
    expect(refused.status).toBe(400);
  }
  expect((await admin.call('PUT', '/api/admin/quick-replies/a%23b', { title: 'T', text: 'x' })).status).toBe(400);
  expect((await admin.call('PUT', '/api/admin/config/quick_replies', { value: {}, expectedVersion: before })).status).toBe(400);
  expect(await stored()).toBe(before);
});

it('an id that names something every object has (constructor, toString) is an ordinary new quick reply, not a 500', async () => {
  for (const id of ['constructor', 'tostring', 'valueof', 'hasownproperty']) {
    const saved = await admin.call('PUT', `/api/admin/quick-replies/${id}`, { title: id, text: `Texto de ${id}` });
    expect([id, saved.status, saved.body.quickReply?.id]).toEqual([id, 200, id]);
  }
  expect((await operator.call('GET', '/api/quick-replies')).body.items.map((reply: { id: string }) => reply.id)).toEqual(expect.arrayContaining(['constructor', 'tostring']));
  expect((await admin.call('DELETE', '/api/admin/quick-replies/constructor')).body).toEqual({ removed: true });
  expect((await admin.call('DELETE', '/api/admin/quick-replies/constructor')).status).toBe(404);
});
