import { replyPayloads } from '../../../../lambda/core/adapters/whatsapp/outbound-messages';
import { checkInteractive } from '../../../../local/fake-whatsapp/fake-interactive';
import type { OutboundTextMessage } from '../../../../lambda/core/ports/whatsapp-sender';

const to = { businessPhoneNumberId: '100000000000002', customerId: '5511999990000', customerIdKind: 'phone', callbackData: 'cb' } as const;

it('a reply with a link button is one cta_url message in Meta\'s documented shape, header and footer included', () => {
  const message: OutboundTextMessage = { ...to, text: 'Seu pedido saiu.', interactive: { kind: 'cta_url', displayText: 'Acompanhar', url: 'https://example.com/p/1', header: 'Pedido 1', footer: 'Loja' } };

  const payloads = replyPayloads(message, undefined);

  expect(payloads).toEqual([
    {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: to.customerId,
      type: 'interactive',
      interactive: { type: 'cta_url', header: { type: 'text', text: 'Pedido 1' }, body: { text: 'Seu pedido saiu.' }, footer: { text: 'Loja' }, action: { name: 'cta_url', parameters: { display_text: 'Acompanhar', url: 'https://example.com/p/1' } } },
      biz_opaque_callback_data: 'cb',
    },
  ]);
  expect(checkInteractive((payloads[0] as { interactive: unknown }).interactive)).not.toHaveProperty('problem');
});

it('a list keeps its sections and row descriptions; a plain reply is split into text messages as before', () => {
  const list: OutboundTextMessage = { ...to, text: 'Exames:', interactive: { kind: 'list', button: 'Ver', sections: [{ title: 'Sangue', rows: [{ id: 'h', title: 'Hemograma', description: 'Em jejum' }] }] } };
  expect(replyPayloads(list, undefined)).toMatchObject([{ type: 'interactive', interactive: { type: 'list', action: { button: 'Ver', sections: [{ title: 'Sangue', rows: [{ id: 'h', title: 'Hemograma', description: 'Em jejum' }] }] } } }]);

  expect(replyPayloads({ ...to, text: 'x'.repeat(5000) }, undefined)).toMatchObject([{ type: 'text' }, { type: 'text' }]);
});
