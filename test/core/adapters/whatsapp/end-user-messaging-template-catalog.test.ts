import { createDynamoRepositories, type DynamoRepositories } from '../../../../lambda/core/adapters/dynamodb/dynamo-repositories';
import { AwsApiError, type AwsRequest, type SignedAwsPost } from '../../../../lambda/core/adapters/aws/signed-aws-post';
import { EndUserMessagingTemplateCatalog } from '../../../../lambda/core/adapters/whatsapp/end-user-messaging-template-catalog';
import { GraphApiTemplateCatalog } from '../../../../lambda/core/adapters/whatsapp/graph-api-template-catalog';
import { StaticCredentialsProvider } from '../../../../lambda/core/adapters/secrets/static-credentials-provider';
import { MessageTemplates } from '../../../../lambda/core/application/message-templates';
import { TemplateCatalogError } from '../../../../lambda/core/ports/template-catalog';
import { FakeEndUserMessaging, LOCAL_LINKED_BUSINESS_ACCOUNT_ID } from '../../../../local/fake-whatsapp/fake-end-user-messaging';
import { FakeGraphApi } from '../../../../local/fake-whatsapp/fake-graph-api';
import { createTestTable, type TestTable } from '../../../support/dynamo-table';
import { ManualClock } from '../../../support/manual-clock';
import { BUSINESS_TEMPLATES, manyTemplates, REENGAGEMENT_TEMPLATE } from '../../../support/message-templates';

const WABA = 'waba-0aae9cf04cf24c66960f291c793359b4';
const encoder = new TextEncoder();
const answer = (body: unknown) => ({ status: 200, headers: new Headers(), payload: encoder.encode(JSON.stringify(body)), attempts: 1 });

/** The service's answers, as its API reference documents them, recorded with the requests that asked for them. */
function documentedService(pages: readonly { templates: unknown[]; nextToken?: string }[], definitions: Record<string, unknown>) {
  const requests: { path: string; request: AwsRequest }[] = [];
  const call: SignedAwsPost = async (path, request) => {
    requests.push({ path, request });
    if (path === '/v1/whatsapp/template/list') return answer(pages[request.query?.nextToken === undefined ? 0 : Number(request.query.nextToken)]);
    return answer({ template: JSON.stringify(definitions[request.query!.metaTemplateId]) });
  };
  return { call, requests };
}

describe('the End User Messaging template catalog', () => {
  it('pages ListWhatsAppMessageTemplates by nextToken and reads each definition with GetWhatsAppMessageTemplate', async () => {
    const definition = { name: 'retomar_conversa', language: 'pt_BR', status: 'APPROVED', category: 'UTILITY', id: '1001', components: [{ type: 'BODY', text: 'Olá {{1}}' }] };
    const service = documentedService(
      [
        { templates: [{ templateName: 'retomar_conversa', metaTemplateId: '1001', templateStatus: 'APPROVED', templateQualityScore: 'GREEN', templateLanguage: 'pt_BR', templateCategory: 'UTILITY' }], nextToken: '1' },
        { templates: [{ templateName: 'aviso', metaTemplateId: '1002', templateStatus: 'PAUSED', templateLanguage: 'en_US', templateCategory: 'UTILITY' }] },
      ],
      { '1001': definition, '1002': { components: [{ type: 'BODY', text: 'Hi' }] } },
    );

    const listed = await new EndUserMessagingTemplateCatalog({ businessAccountId: WABA, call: service.call }).listTemplates();

    expect(listed).toEqual([
      definition,
      // The summary names what the definition leaves out; its status is the list's.
      { name: 'aviso', language: 'en_US', status: 'PAUSED', category: 'UTILITY', id: '1002', components: [{ type: 'BODY', text: 'Hi' }] },
    ]);
    expect(service.requests.map(({ path, request }) => [request.method, path, request.query])).toEqual([
      ['GET', '/v1/whatsapp/template/list', { id: WABA, maxResults: '100' }],
      ['GET', '/v1/whatsapp/template/list', { id: WABA, maxResults: '100', nextToken: '1' }],
      ['GET', '/v1/whatsapp/template', { id: WABA, metaTemplateId: '1001' }],
      ['GET', '/v1/whatsapp/template', { id: WABA, metaTemplateId: '1002' }],
    ]);
  });

  it('refuses an account listing more than 500 templates before reading any definition', async () => {
    const summaries = (page: number) => Array.from({ length: 100 }, (_, index) => ({ templateName: `t_${page}_${index}`, metaTemplateId: `${page}${index}`, templateLanguage: 'pt_BR' }));
    const service = documentedService(Array.from({ length: 7 }, (_, page) => ({ templates: summaries(page), nextToken: String(page + 1) })), {});

    await expect(new EndUserMessagingTemplateCatalog({ businessAccountId: WABA, call: service.call }).listTemplates()).rejects.toThrow(/more than 500 templates/);
    expect(service.requests.every(({ path }) => path === '/v1/whatsapp/template/list')).toBe(true);
  });

  it("reports the service's refusals with their retryability, and takes only the linked account's waba-… id", async () => {
    const refusing = (error: Error): SignedAwsPost => async () => Promise.reject(error);
    const catalog = (error: Error) => new EndUserMessagingTemplateCatalog({ businessAccountId: WABA, call: refusing(error) });

    await expect(catalog(new AwsApiError('AccessDeniedException', 'not authorized', 403)).listTemplates()).rejects.toMatchObject({ name: 'TemplateCatalogError', retryable: false, message: expect.stringMatching(/AccessDeniedException \(HTTP 403\)/) });
    await expect(catalog(new AwsApiError('ThrottledRequestException', 'slow down', 429)).listTemplates()).rejects.toMatchObject({ retryable: true });
    await expect(catalog(new TypeError('fetch failed')).listTemplates()).rejects.toMatchObject({ retryable: true, message: 'End User Messaging did not answer ListWhatsAppMessageTemplates' });
    expect(() => new EndUserMessagingTemplateCatalog({ businessAccountId: '102290129340398' })).toThrow(/waba-/);
  });
});

describe('the template sync through End User Messaging', () => {
  let meta: FakeGraphApi;
  let service: FakeEndUserMessaging;
  let table: TestTable;
  let repositories: DynamoRepositories;
  const clock = new ManualClock('2026-03-10T12:00:00.000Z');

  beforeAll(async () => {
    meta = await FakeGraphApi.start();
    service = await FakeEndUserMessaging.start({ meta, phoneNumbers: new Map() });
    table = await createTestTable('eum-templates');
    repositories = createDynamoRepositories({ tableName: table.name, clock });
  });
  afterAll(async () => {
    await service.close();
    await meta.close();
    await table.drop();
  });

  const credentials = async () => ({ accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local-secret' });
  const endUserMessagingSync = (businessAccountId = LOCAL_LINKED_BUSINESS_ACCOUNT_ID) =>
    new MessageTemplates({ templates: repositories.templates, catalog: new EndUserMessagingTemplateCatalog({ businessAccountId, aws: { endpoint: service.endpoint, region: 'us-east-1', credentials } }), clock });

  it('stores every page of the linked account as the Graph API sync stores them', async () => {
    meta.setTemplates([...BUSINESS_TEMPLATES, ...manyTemplates(230)]);

    expect(await endUserMessagingSync().sync()).toEqual({ stored: 234, removed: 0, unreadable: 0 });
    const throughEndUserMessaging = (await repositories.templates.list({ limit: 300 })).items;

    for (const template of throughEndUserMessaging) await repositories.templates.remove(template);
    const graphApi = new GraphApiTemplateCatalog({ baseUrl: meta.baseUrl, credentials: new StaticCredentialsProvider({ appSecret: 'a', verifyToken: 'v', accessToken: meta.accessToken }), businessAccountId: meta.wabaId });
    await new MessageTemplates({ templates: repositories.templates, catalog: graphApi, clock }).sync();
    expect((await repositories.templates.list({ limit: 300 })).items).toEqual(throughEndUserMessaging);
    expect(await repositories.templates.get({ name: REENGAGEMENT_TEMPLATE.name, language: REENGAGEMENT_TEMPLATE.language })).toMatchObject({ status: 'APPROVED', bodyParameters: ['1', '2'] });
  });

  it('changes nothing when the account is not linked', async () => {
    const before = (await repositories.templates.list({ limit: 300 })).items.length;
    await expect(endUserMessagingSync('waba-ffffffffffffffffffffffffffffffff').sync()).rejects.toBeInstanceOf(TemplateCatalogError);
    expect((await repositories.templates.list({ limit: 300 })).items).toHaveLength(before);
  });
});
