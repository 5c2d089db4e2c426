// Templates with every parameter kind, end to end on both channels: an operator sends a template
// with an image header, a body value, a URL button's suffix and a coupon code through the operator
// API, the sender builds Meta's components and the fake Meta accepts them as Meta would; a value
// missing is refused by the API, naming it, before anything is sent; and when the stored template
// is stale (Meta's definition gained a button after the sync), Meta's refusal (132000) is the
// backstop and nothing is recorded.
import { WHATSAPP_CHANNEL_KINDS } from '../../lib/contract';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import type { tableRepositories } from '../support/dynamo-table';
import { newOperatorPhone } from '../support/ids';
import { BUSINESS_TEMPLATES, OFFER_TEMPLATE, ORDER_TEMPLATE } from '../support/message-templates';
import { type ConsoleClient, handedOffCustomer, startStaffedPipeline } from '../support/operator-console-client';

const offer = {
  name: OFFER_TEMPLATE.name,
  language: OFFER_TEMPLATE.language,
  values: ['Ana'],
  header: 'https://loja.example/banner.jpg',
  buttons: [
    { index: 0, value: 'verao' },
    { index: 1, value: 'VERAO25' },
  ],
};

describe.each([WHATSAPP_CHANNEL_KINDS.cloudApi, WHATSAPP_CHANNEL_KINDS.endUserMessaging])('on %s', (channel) => {
  let pipeline: LocalPipeline;
  let repositories: ReturnType<typeof tableRepositories>;
  let admin: ConsoleClient;
  let operator: ConsoleClient;

  beforeAll(async () => {
    ({ pipeline, repositories, admin, operator } = await startStaffedPipeline(newOperatorPhone(), newOperatorPhone(), { channel }));
  });
  beforeEach(async () => {
    pipeline.fakeWhatsApp.setTemplates([...BUSINESS_TEMPLATES, OFFER_TEMPLATE, ORDER_TEMPLATE]);
    expect((await admin.call('POST', '/api/admin/templates/sync')).status).toBe(200);
  });
  afterAll(async () => {
    await pipeline.stop();
  });

  const sentTo = (customer: string) => pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === customer);

  async function claimedCustomer(): Promise<string> {
    const customer = await handedOffCustomer(pipeline);
    expect((await operator.call('POST', `/api/conversations/${customer}/claim`)).status).toBe(200);
    return customer;
  }

  it('lists what each template asks for: the header image, the URL button’s ending, the coupon code', async () => {
    const listed = await operator.call('GET', '/api/templates?limit=100');
    const stored = listed.body.items.find((template: { name: string }) => template.name === OFFER_TEMPLATE.name);
    expect(stored).toMatchObject({
      headerFormat: 'IMAGE',
      headerParameter: { kind: 'image', example: 'https://scontent.whatsapp.net/v/oferta-exemplo.jpg' },
      parameters: ['1'],
      buttonParameters: [
        { index: 0, kind: 'text', text: 'Ver oferta', url: 'https://loja.example/oferta/{{1}}', example: 'https://loja.example/oferta/verao' },
        { index: 1, kind: 'coupon_code', text: 'Copy offer code', example: 'VERAO25' },
      ],
      sendableByPipeline: false,
    });
    // The notice template takes the customer's name only: the pipeline can send it by itself.
    expect(listed.body.items.find((template: { name: string }) => template.name === 'aviso_atendimento')).toMatchObject({ sendableByPipeline: true, buttonParameters: [] });
  });

  it('sends a template with a header image, a URL suffix and a coupon code, accepted as Meta accepts it', async () => {
    const customer = await claimedCustomer();

    const sent = await operator.call('POST', `/api/conversations/${customer}/templates`, offer);

    expect(sent.status).toBe(201);
    expect(sent.body.message).toMatchObject({ text: 'Olá Ana, sua oferta chegou!', template: { name: OFFER_TEMPLATE.name, language: 'pt_BR' }, deliveryStatus: 'sent' });
    expect(sentTo(customer).at(-1)).toMatchObject({
      text: 'Olá Ana, sua oferta chegou!',
      template: {
        header: { type: 'image', link: 'https://loja.example/banner.jpg' },
        buttons: [
          { index: 0, subType: 'url', type: 'text', value: 'verao' },
          { index: 1, subType: 'copy_code', type: 'coupon_code', value: 'VERAO25' },
        ],
      },
    });
  });

  it('fills a named text header and body by name', async () => {
    const customer = await claimedCustomer();
    const order = { name: ORDER_TEMPLATE.name, language: 'pt_BR', values: ['Ana'], header: '4471', buttons: [{ index: 0, value: 'BR123' }] };

    expect((await operator.call('POST', `/api/conversations/${customer}/templates`, order)).status).toBe(201);
    expect(sentTo(customer).at(-1)?.template).toMatchObject({ header: { type: 'text', name: 'pedido', text: '4471' }, parameters: [{ type: 'text', name: 'cliente', text: 'Ana' }] });
  });

  it('refuses a send missing a parameter, naming it, before anything is sent or written', async () => {
    const customer = await claimedCustomer();
    const before = { sent: sentTo(customer).length, history: (await repositories.messages.history(customer)).items.length };

    const withoutHeader = await operator.call('POST', `/api/conversations/${customer}/templates`, { ...offer, header: undefined });
    expect(withoutHeader).toMatchObject({ status: 400, body: { error: 'invalid', message: 'oferta_cupom (pt_BR): the header image is missing' } });
    const withoutSuffix = await operator.call('POST', `/api/conversations/${customer}/templates`, { ...offer, buttons: [{ index: 1, value: 'VERAO25' }] });
    expect(withoutSuffix.body.message).toBe('oferta_cupom (pt_BR): the link ending of the button “Ver oferta” (index 0) is missing');
    const badButtons = await operator.call('POST', `/api/conversations/${customer}/templates`, { ...offer, buttons: [{ index: 'zero', value: 1 }] });
    expect(badButtons).toMatchObject({ status: 400, body: { error: 'bad_field' } });

    expect(sentTo(customer).length).toBe(before.sent);
    expect((await repositories.messages.history(customer)).items.length).toBe(before.history);
  });

  it('is refused by Meta (132000) when the stored template is stale, and records nothing', async () => {
    const customer = await claimedCustomer();
    const before = (await repositories.messages.history(customer)).items.length;
    const [header, body, buttons] = OFFER_TEMPLATE.components;
    // Meta's definition gained a second URL button after the last sync.
    const edited = [header, body, { ...buttons, buttons: [...buttons.buttons!, { type: 'URL', text: 'Rastrear', url: 'https://loja.example/r/{{1}}' }] }];
    pipeline.fakeWhatsApp.setTemplates([{ ...OFFER_TEMPLATE, components: edited }]);

    const refused = await operator.call('POST', `/api/conversations/${customer}/templates`, offer);

    expect(refused).toMatchObject({ status: 502, body: { error: 'send_failed', message: expect.stringContaining('code 132000') } });
    expect((await repositories.messages.history(customer)).items.length).toBe(before);
  });

  it('refuses, at configuration, a handoff notice template the pipeline could not fill by itself', async () => {
    const refused = await admin.call('PUT', '/api/admin/config/handoff_notice_template', { value: { name: OFFER_TEMPLATE.name, language: 'pt_BR' }, expectedVersion: 0 });

    expect(refused).toMatchObject({ status: 400, body: { error: 'invalid', message: expect.stringContaining('takes values the pipeline cannot fill by itself') } });
    expect((await admin.call('GET', '/api/admin/config/handoff_notice_template')).body.config).toMatchObject({ value: null, version: 0 });
  });
});
