import { FakeGraphApi } from '../../local/fake-whatsapp/fake-graph-api';
import { BUSINESS_TEMPLATES, manyTemplates } from '../support/message-templates';

const TOKEN = 'fake-token';
let api: FakeGraphApi;

beforeAll(async () => {
  api = await FakeGraphApi.start({ accessToken: TOKEN });
});
beforeEach(() => api.setTemplates(BUSINESS_TEMPLATES));
afterEach(() => api.reset());
afterAll(() => api.close());

const customer = '5511987654321';

function send(body: unknown): Promise<Response> {
  return fetch(`${api.baseUrl}/106540352242922/messages`, {
    method: 'POST',
    headers: { 'authorization': `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

function templateSend(name: string, language: string, parameters: unknown[]): Promise<Response> {
  return send({
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to: customer,
    type: 'template',
    template: { name, language: { code: language }, components: parameters.length === 0 ? undefined : [{ type: 'body', parameters }] },
  });
}

async function errorCode(response: Response): Promise<number> {
  expect(response.status).toBe(400);
  return ((await response.json()) as { error: { code: number } }).error.code;
}

const text = (value: string) => ({ type: 'text', text: value });

describe('template sends, checked the way Meta checks them', () => {
  it('accepts an approved template with its values and records the body as delivered', async () => {
    const response = await templateSend('retomar_conversa', 'pt_BR', [text('Ana'), text('o exame')]);

    expect(response.status).toBe(200);
    expect(api.sent()).toEqual([
      expect.objectContaining({
        recipient: customer,
        text: 'Olá Ana, ainda podemos ajudar com o exame? Responda esta mensagem para continuar.',
        template: { name: 'retomar_conversa', language: 'pt_BR', parameters: [text('Ana'), text('o exame')] },
      }),
    ]);
  });

  it('fills named parameters by name', async () => {
    const response = await templateSend('aviso_atendimento', 'pt_BR', [{ type: 'text', parameter_name: 'cliente', text: 'Ana' }]);
    expect(response.status).toBe(200);
    expect(api.sent()[0].text).toBe('Novo atendimento aguardando: Ana. Abra o console para responder.');
  });

  it('refuses what Meta refuses, with its codes, and records nothing', async () => {
    expect(await errorCode(await templateSend('nao_existe', 'pt_BR', []))).toBe(132001);
    expect(await errorCode(await templateSend('retomar_conversa', 'es', [text('Ana'), text('x')]))).toBe(132001);
    expect(await errorCode(await templateSend('retomar_conversa', 'pt_BR', [text('Ana')]))).toBe(132000);
    expect(await errorCode(await templateSend('aviso_atendimento', 'pt_BR', [text('Ana')]))).toBe(132012);
    expect(await errorCode(await templateSend('retomar_conversa', 'pt_BR', [text('Ana\nSilva'), text('x')]))).toBe(132018);
    expect(await errorCode(await templateSend('promocao_verao', 'pt_BR', []))).toBe(132015);
    expect(api.sent()).toEqual([]);
  });

  it('refuses free text once the customer service window is closed (131047), but not a template', async () => {
    api.closeServiceWindow(customer);
    const freeText = await send({ messaging_product: 'whatsapp', to: customer, type: 'text', text: { body: 'Oi' } });
    expect(await errorCode(freeText)).toBe(131047);
    expect((await templateSend('retomar_conversa', 'pt_BR', [text('Ana'), text('x')])).status).toBe(200);

    api.openServiceWindow(customer);
    expect((await send({ messaging_product: 'whatsapp', to: customer, type: 'text', text: { body: 'Oi' } })).status).toBe(200);
  });
});

describe('GET /{wabaId}/message_templates', () => {
  const list = (url: string, token = TOKEN) => fetch(url, { headers: { authorization: `Bearer ${token}` } });

  it('pages like Meta: limit, paging.cursors.after and paging.next until the last page', async () => {
    api.setTemplates(manyTemplates(7));
    const names: string[] = [];
    let url: string | undefined = `${api.baseUrl}/${api.wabaId}/message_templates?limit=3`;
    let pages = 0;
    while (url !== undefined) {
      const response = await list(url);
      expect(response.status).toBe(200);
      const page = (await response.json()) as { data: Array<{ name: string; id: string }>; paging: { cursors: { after: string }; next?: string } };
      names.push(...page.data.map((template) => template.name));
      expect(page.paging.cursors.after).toEqual(expect.any(String));
      url = page.paging.next;
      pages++;
    }
    expect(pages).toBe(3);
    expect(names).toEqual(manyTemplates(7).map((template) => template.name));
  });

  it('needs the token, and the business account it serves', async () => {
    expect((await list(`${api.baseUrl}/${api.wabaId}/message_templates`, 'wrong')).status).toBe(401);
    expect((await list(`${api.baseUrl}/999/message_templates`)).status).toBe(400);
  });
});
