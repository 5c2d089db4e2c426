import { FakeGraphApi } from '../../local/fake-whatsapp/fake-graph-api';
import { BUSINESS_TEMPLATES, manyTemplates, OFFER_TEMPLATE, ORDER_TEMPLATE } from '../support/message-templates';

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

describe('every component checked against the template’s definition', () => {
  beforeEach(() => api.setTemplates([OFFER_TEMPLATE, ORDER_TEMPLATE]));

  const imageHeader = { type: 'header', parameters: [{ type: 'image', image: { link: 'https://loja.example/banner.jpg' } }] };
  const body = { type: 'body', parameters: [text('Ana')] };
  const urlButton = { type: 'button', sub_type: 'url', index: '0', parameters: [text('verao')] };
  const copyCode = { type: 'button', sub_type: 'copy_code', index: '1', parameters: [{ type: 'coupon_code', coupon_code: 'VERAO25' }] };
  const offer = (components: unknown[]) =>
    send({ messaging_product: 'whatsapp', to: customer, type: 'template', template: { name: 'oferta_cupom', language: { code: 'pt_BR' }, components } });

  it('accepts a header image (by link or uploaded id), the body, a URL suffix and a coupon code, and records each', async () => {
    expect((await offer([imageHeader, body, urlButton, copyCode])).status).toBe(200);
    expect((await offer([{ type: 'header', parameters: [{ type: 'image', image: { id: '1234567890' } }] }, body, urlButton, copyCode])).status).toBe(200);

    expect(api.sent()[0]).toMatchObject({
      text: 'Olá Ana, sua oferta chegou!',
      template: {
        header: { type: 'image', link: 'https://loja.example/banner.jpg' },
        parameters: [text('Ana')],
        buttons: [{ index: 0, subType: 'url', type: 'text', value: 'verao' }, { index: 1, subType: 'copy_code', type: 'coupon_code', value: 'VERAO25' }],
      },
    });
    expect(api.sent()[1].template?.header).toEqual({ type: 'image', id: '1234567890' });
  });

  it.each([
    ['the header missing', [body, urlButton, copyCode], 132000, 'header: number of localizable_params (0) does not match the expected number of params (1)'],
    ['the image header sent as text', [{ type: 'header', parameters: [text('x')] }, body, urlButton, copyCode], 132012, 'header: Format mismatch, expected IMAGE, received TEXT'],
    ['the image header sent as a video', [{ type: 'header', parameters: [{ type: 'video', video: { link: 'https://loja.example/v.mp4' } }] }, body, urlButton, copyCode], 132012, 'header: Format mismatch, expected IMAGE, received VIDEO'],
    ['the URL button missing', [imageHeader, body, copyCode], 132000, 'buttons: button at index 0: number of localizable_params (0) does not match the expected number of params (1)'],
    ['the copy-code button sent as a URL', [imageHeader, body, urlButton, { ...urlButton, index: '1' }], 132012, 'buttons: button at index 1 is COPY_CODE, received sub_type url with a text parameter'],
    ['a value for the quick reply', [imageHeader, body, urlButton, copyCode, { ...urlButton, index: '2' }], 132000, 'buttons: button at index 2: number of localizable_params (1) does not match the expected number of params (0)'],
  ])('refuses %s with Meta’s code, and records nothing', async (_, components, code, details) => {
    const response = await offer(components);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: number; error_data: { details: string } } }).error).toMatchObject({ code, error_data: { details } });
    expect(api.sent()).toEqual([]);
  });

  it('checks a text header’s named parameter as it checks the body’s', async () => {
    const order = (header: unknown) =>
      send({
        messaging_product: 'whatsapp',
        to: customer,
        type: 'template',
        template: {
          name: 'pedido_enviado',
          language: { code: 'pt_BR' },
          components: [{ type: 'header', parameters: [header] }, { type: 'body', parameters: [{ type: 'text', parameter_name: 'cliente', text: 'Ana' }] }, { ...urlButton, parameters: [text('BR123')] }],
        },
      });
    expect((await order({ type: 'text', parameter_name: 'pedido', text: '4471' })).status).toBe(200);
    expect(await errorCode(await order(text('4471')))).toBe(132012);
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
