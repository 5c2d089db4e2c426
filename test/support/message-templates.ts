import type { FakeMessageTemplate } from '../../local/fake-whatsapp/fake-graph-api';
import type { FilledTemplateParameter } from '../../lambda/core/domain/template-parameters';

/** A business's approved templates, as Meta lists them: what the template tests declare on the fake Graph API. */
export const REENGAGEMENT_TEMPLATE: FakeMessageTemplate = {
  name: 'retomar_conversa',
  language: 'pt_BR',
  status: 'APPROVED',
  category: 'UTILITY',
  components: [
    { type: 'BODY', text: 'Olá {{1}}, ainda podemos ajudar com {{2}}? Responda esta mensagem para continuar.' },
    { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'Continuar' }, { type: 'QUICK_REPLY', text: 'PARAR' }] },
  ],
};

/** A re-engagement template whose one parameter is the customer's name. */
export const QUIET_CUSTOMER_TEMPLATE: FakeMessageTemplate = {
  name: 'ainda_por_aqui',
  language: 'pt_BR',
  status: 'APPROVED',
  category: 'UTILITY',
  components: [{ type: 'BODY', text: 'Olá {{1}}, ainda podemos ajudar? Responda esta mensagem para continuar.' }],
};

export const HANDOFF_NOTICE_TEMPLATE: FakeMessageTemplate = {
  name: 'aviso_atendimento',
  language: 'pt_BR',
  status: 'APPROVED',
  category: 'UTILITY',
  parameter_format: 'NAMED',
  components: [{ type: 'BODY', text: 'Novo atendimento aguardando: {{cliente}}. Abra o console para responder.' }],
};

export const PAUSED_TEMPLATE: FakeMessageTemplate = {
  name: 'promocao_verao',
  language: 'pt_BR',
  status: 'PAUSED',
  category: 'MARKETING',
  components: [{ type: 'BODY', text: 'Promoção de verão!' }],
};

export const BUSINESS_TEMPLATES: readonly FakeMessageTemplate[] = [
  REENGAGEMENT_TEMPLATE,
  { ...REENGAGEMENT_TEMPLATE, language: 'en_US', components: [{ type: 'BODY', text: 'Hi {{1}}, can we still help with {{2}}?' }] },
  HANDOFF_NOTICE_TEMPLATE,
  PAUSED_TEMPLATE,
];

/** A marketing template with an image header, a URL button whose link ends in a value, a copy-code button and a quick reply. */
export const OFFER_TEMPLATE: FakeMessageTemplate = {
  name: 'oferta_cupom',
  language: 'pt_BR',
  status: 'APPROVED',
  category: 'MARKETING',
  components: [
    { type: 'HEADER', format: 'IMAGE', example: { header_handle: ['https://scontent.whatsapp.net/v/oferta-exemplo.jpg'] } },
    { type: 'BODY', text: 'Olá {{1}}, sua oferta chegou!', example: { body_text: [['Ana']] } },
    {
      type: 'BUTTONS',
      buttons: [
        { type: 'URL', text: 'Ver oferta', url: 'https://loja.example/oferta/{{1}}', example: ['https://loja.example/oferta/verao'] },
        { type: 'COPY_CODE', example: 'VERAO25' },
        { type: 'QUICK_REPLY', text: 'Parar' },
      ],
    },
  ],
};

/** A utility template with named parameters: a text header with one, the body with one, and a URL button. */
export const ORDER_TEMPLATE: FakeMessageTemplate = {
  name: 'pedido_enviado',
  language: 'pt_BR',
  status: 'APPROVED',
  category: 'UTILITY',
  parameter_format: 'NAMED',
  components: [
    { type: 'HEADER', format: 'TEXT', text: 'Pedido {{pedido}}', example: { header_text_named_params: [{ param_name: 'pedido', example: '4471' }] } },
    { type: 'BODY', text: '{{cliente}}, seu pedido saiu para entrega.' },
    { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Rastrear', url: 'https://loja.example/rastreio/{{1}}', example: ['https://loja.example/rastreio/BR123'] }] },
  ],
};

/** `count` approved templates without parameters, for paging. */
export function manyTemplates(count: number): FakeMessageTemplate[] {
  return Array.from({ length: count }, (_, index) => ({
    name: `modelo_${String(index).padStart(3, '0')}`,
    language: 'pt_BR',
    status: 'APPROVED',
    category: 'UTILITY',
    components: [{ type: 'BODY', text: `Mensagem ${index}` }],
  }));
}

/** A send's body values as the sender takes them: text parameters, by name when `names` are given. */
export function bodyValues(values: readonly string[], names?: readonly string[]): FilledTemplateParameter[] {
  return values.map((value, index) => ({ component: 'body', kind: 'text', placeholder: names?.[index] ?? String(index + 1), named: names !== undefined, value }));
}
