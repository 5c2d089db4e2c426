import type { FakeMessageTemplate } from '../../local/fake-whatsapp/fake-graph-api';

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
