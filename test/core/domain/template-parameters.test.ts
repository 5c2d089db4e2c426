// What a send of a template must give, read from the synced template's components: the header's
// text or media, the body's texts, a URL button's suffix, a copy-code button's code — each refused
// before anything is sent, naming the parameter, when missing or not what WhatsApp takes.
import { fillTemplateParameters, templateParametersOf, type TemplateValues } from '../../../lambda/core/domain/template-parameters';
import { templateFromMeta, type WhatsAppTemplate } from '../../../lambda/core/domain/whatsapp-template';
import { OFFER_TEMPLATE, ORDER_TEMPLATE, REENGAGEMENT_TEMPLATE } from '../../support/message-templates';

const at = '2026-03-10T12:00:00.000000Z';
const offer = templateFromMeta(OFFER_TEMPLATE, at)!;
const order = templateFromMeta(ORDER_TEMPLATE, at)!;
const complete: TemplateValues = { body: ['Ana'], header: 'https://loja.example/banner.jpg', buttons: [{ index: 0, value: 'verao' }, { index: 1, value: 'VERAO25' }] };

function problemOf(template: WhatsAppTemplate, values: TemplateValues): string | undefined {
  const filled = fillTemplateParameters(template, values);
  return 'problem' in filled ? filled.problem : undefined;
}

describe('a template’s components, as the sync stores them', () => {
  test('keep the header’s format and example, and each button’s link, example and label', () => {
    expect(offer.header).toEqual({ format: 'IMAGE', example: 'https://scontent.whatsapp.net/v/oferta-exemplo.jpg' });
    expect(offer.buttons).toEqual([
      { type: 'URL', text: 'Ver oferta', url: 'https://loja.example/oferta/{{1}}', example: 'https://loja.example/oferta/verao' },
      { type: 'COPY_CODE', text: 'Copy offer code', example: 'VERAO25' },
      { type: 'QUICK_REPLY', text: 'Parar' },
    ]);
    expect(order.header).toEqual({ format: 'TEXT', text: 'Pedido {{pedido}}', example: '4471' });
  });

  test('list every parameter a send fills: header, body, then the buttons that take one', () => {
    expect(templateParametersOf(offer)).toEqual([
      { component: 'header', kind: 'image', named: false, example: 'https://scontent.whatsapp.net/v/oferta-exemplo.jpg' },
      { component: 'body', kind: 'text', placeholder: '1', named: false },
      { component: 'button', kind: 'text', named: false, button: { index: 0, text: 'Ver oferta' }, example: 'https://loja.example/oferta/verao' },
      { component: 'button', kind: 'coupon_code', named: false, button: { index: 1, text: 'Copy offer code' }, example: 'VERAO25' },
    ]);
    expect(templateParametersOf(order).map(({ component, placeholder, named }) => ({ component, placeholder, named }))).toEqual([
      { component: 'header', placeholder: 'pedido', named: true },
      { component: 'body', placeholder: 'cliente', named: true },
      { component: 'button', placeholder: undefined, named: false },
    ]);
    expect(templateParametersOf(templateFromMeta(REENGAGEMENT_TEMPLATE, at)!).every((parameter) => parameter.component === 'body')).toBe(true);
  });
});

describe('the values of a send', () => {
  test('fill every parameter when each one is given, a media by link or by uploaded id', () => {
    const filled = fillTemplateParameters(offer, complete);
    expect('filled' in filled && filled.filled.map((parameter) => parameter.value)).toEqual(['https://loja.example/banner.jpg', 'Ana', 'verao', 'VERAO25']);
    expect(problemOf(offer, { ...complete, header: '1234567890' })).toBeUndefined();
  });

  test.each([
    ['the header image', { ...complete, header: undefined }, 'the header image is missing'],
    ['a header link that is not https', { ...complete, header: 'http://loja.example/banner.jpg' }, 'the header image must be an https:// link or an uploaded media id'],
    ['the URL button’s ending', { ...complete, buttons: [{ index: 1, value: 'VERAO25' }] }, 'the link ending of the button “Ver oferta” (index 0) is missing'],
    ['a URL ending with a space', { ...complete, buttons: [{ index: 0, value: 'ver ao' }, { index: 1, value: 'VERAO25' }] }, 'the link ending of the button “Ver oferta” (index 0) must have no spaces and keep the link within 2000 characters'],
    ['the coupon code', { ...complete, buttons: [{ index: 0, value: 'verao' }] }, 'the code of the copy-code button (index 1) is missing'],
    ['a coupon code over 15 characters', { ...complete, buttons: [{ index: 0, value: 'verao' }, { index: 1, value: 'C'.repeat(16) }] }, 'the code of the copy-code button (index 1) must be 1 to 15 characters without spaces'],
    ['a value for the quick reply', { ...complete, buttons: [...complete.buttons!, { index: 2, value: 'x' }] }, 'button 2 takes no value'],
    ['a body value short', { ...complete, body: [] }, 'the body takes 1 value(s); got 0'],
  ])('are refused without %s, naming it', (_, values, expected) => {
    expect(problemOf(offer, values)).toBe(`oferta_cupom (pt_BR): ${expected}`);
  });

  test('a text header’s value fits Meta’s 60 characters with the header’s own text, on one line', () => {
    const values = { body: ['Ana'], buttons: [{ index: 0, value: 'BR123' }] };
    expect(problemOf(order, { ...values, header: '4'.repeat(53) })).toBeUndefined();
    expect(problemOf(order, { ...values, header: '4'.repeat(54) })).toContain('the header value {{pedido}} must be 1 to 53 characters');
    expect(problemOf(order, { ...values, header: '44\n71' })).toContain('the header value {{pedido}}');
    expect(problemOf(order, values)).toContain('the header value {{pedido}} is missing');
    expect(problemOf(templateFromMeta(REENGAGEMENT_TEMPLATE, at)!, { body: ['Ana', 'o exame'], header: 'x' })).toContain('has no header value to fill');
  });
});
