import { createDynamoRepositories, type DynamoRepositories } from '../../../lambda/core/adapters/dynamodb/dynamo-repositories';
import { StaticCredentialsProvider } from '../../../lambda/core/adapters/secrets/static-credentials-provider';
import { GraphApiTemplateCatalog } from '../../../lambda/core/adapters/whatsapp/graph-api-template-catalog';
import { MessageTemplates } from '../../../lambda/core/application/message-templates';
import { TemplateCatalogError } from '../../../lambda/core/ports/template-catalog';
import { FakeGraphApi } from '../../../local/fake-whatsapp/fake-graph-api';
import { createTestTable, type TestTable } from '../../support/dynamo-table';
import { ManualClock } from '../../support/manual-clock';
import { BUSINESS_TEMPLATES, manyTemplates, REENGAGEMENT_TEMPLATE } from '../../support/message-templates';

let api: FakeGraphApi;
let table: TestTable;
let repositories: DynamoRepositories;
const clock = new ManualClock('2026-03-10T12:00:00.000Z');

beforeAll(async () => {
  api = await FakeGraphApi.start();
  table = await createTestTable('templates');
  repositories = createDynamoRepositories({ tableName: table.name, clock });
});
afterEach(async () => {
  api.reset();
  for (const template of (await repositories.templates.list({ limit: 100 })).items) await repositories.templates.remove(template);
});
afterAll(async () => {
  await api.close();
  await table.drop();
});

function templates(businessAccountId = api.wabaId): MessageTemplates {
  const catalog = new GraphApiTemplateCatalog({ baseUrl: api.baseUrl, credentials: new StaticCredentialsProvider({ appSecret: 'a', verifyToken: 'v', accessToken: api.accessToken }), businessAccountId });
  return new MessageTemplates({ templates: repositories.templates, catalog, clock });
}

describe('the template sync', () => {
  it('reads every page of the account and stores each translation with its body, parameters and buttons', async () => {
    api.setTemplates([...BUSINESS_TEMPLATES, ...manyTemplates(230)]);

    expect(await templates().sync()).toEqual({ stored: 234, removed: 0, unreadable: 0 });

    const stored = await repositories.templates.get({ name: 'retomar_conversa', language: 'pt_BR' });
    expect(stored).toEqual({
      name: 'retomar_conversa',
      language: 'pt_BR',
      category: 'UTILITY',
      status: 'APPROVED',
      metaTemplateId: expect.any(String),
      body: REENGAGEMENT_TEMPLATE.components[0].text,
      parameterFormat: 'positional',
      bodyParameters: ['1', '2'],
      buttons: [{ type: 'QUICK_REPLY', text: 'Continuar' }, { type: 'QUICK_REPLY', text: 'PARAR' }],
      updatedAt: '2026-03-10T12:00:00.000000Z',
    });
    expect(await repositories.templates.get({ name: 'aviso_atendimento', language: 'pt_BR' })).toMatchObject({ parameterFormat: 'named', bodyParameters: ['cliente'] });
    expect(await repositories.templates.get({ name: 'modelo_229', language: 'pt_BR' })).toBeDefined();
  });

  it('removes what Meta no longer lists, and counts what it cannot read', async () => {
    api.setTemplates(BUSINESS_TEMPLATES);
    await templates().sync();
    api.setTemplates([REENGAGEMENT_TEMPLATE, { ...REENGAGEMENT_TEMPLATE, name: 'Nome Inválido' }]);

    expect(await templates().sync()).toEqual({ stored: 1, removed: 3, unreadable: 1 });
    expect((await repositories.templates.list()).items.map((template) => template.name)).toEqual(['retomar_conversa']);
  });

  it('changes nothing when the account cannot be read', async () => {
    api.setTemplates(BUSINESS_TEMPLATES);
    await templates().sync();

    const failure = await templates('999').sync().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TemplateCatalogError);
    expect((await repositories.templates.list()).items).toHaveLength(4);
  });
});

describe("Meta's status notifications", () => {
  it('update the stored template, never over a newer change, and ignore a template not stored', async () => {
    api.setTemplates(BUSINESS_TEMPLATES);
    await templates().sync();
    const ref = { name: 'retomar_conversa', language: 'pt_BR' };

    expect(await templates().applyStatusUpdate({ ...ref, status: 'PAUSED', reason: 'LOW_QUALITY', at: '2026-03-10T13:00:00.000000Z' })).toBe(true);
    expect(await templates().applyStatusUpdate({ ...ref, status: 'APPROVED', at: '2026-03-10T12:30:00.000000Z' })).toBe(false);
    expect(await repositories.templates.get(ref)).toMatchObject({ status: 'PAUSED', statusReason: 'LOW_QUALITY', updatedAt: '2026-03-10T13:00:00.000000Z' });

    expect(await templates().applyStatusUpdate({ name: 'nunca_sincronizado', language: 'pt_BR', status: 'APPROVED', at: '2026-03-10T13:00:00.000000Z' })).toBe(false);
  });
});
