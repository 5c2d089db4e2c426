import { MAX_TURN_TEXT_LENGTH, parseWebhookPayload, WebhookPayloadError } from '../../../../lambda/core/adapters/whatsapp/webhook-payload';
import { metaFixture } from '../../../support/fixtures';

const receivedAt = new Date('2026-11-30T12:00:00.000Z');

describe('parseWebhookPayload', () => {
  test('a text message becomes one turn with normalised fields', () => {
    const parsed = parseWebhookPayload(metaFixture('text-message'), receivedAt);
    expect(parsed.turns).toEqual([
      {
        customerId: '16505551234',
        customerIdKind: 'phone',
        messageId: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
        providerTimestamp: '2025-06-08T20:59:43.000Z',
        receivedAt: '2026-11-30T12:00:00.000Z',
        messageType: 'text',
        text: 'Does it come in another color?',
        businessPhoneNumberId: '106540352242922',
        displayPhoneNumber: '15550783881',
        profileName: 'Sheena Nelson',
      },
    ]);
    expect(parsed.statuses).toEqual([]);
  });

  test("the sender's profile name comes from value.contacts; a contact of the wrong shape is left out, never a refusal", () => {
    const body = (contacts: unknown) =>
      JSON.stringify({
        object: 'whatsapp_business_account',
        entry: [
          {
            changes: [
              {
                field: 'messages',
                value: {
                  metadata: { phone_number_id: '106540352242922' },
                  contacts,
                  messages: [{ from: '5511999990000', id: 'wamid.A', timestamp: '1749416383', type: 'text', text: { body: 'oi' } }],
                },
              },
            ],
          },
        ],
      });
    const nameOf = (contacts: unknown) => parseWebhookPayload(body(contacts), receivedAt).turns[0].profileName;
    expect(nameOf([{ wa_id: '5511999990000', profile: { name: '  Maria \n Souza ' } }])).toBe('Maria Souza');
    expect(nameOf([{ wa_id: '5511999990000', profile: { name: 'x'.repeat(500) } }])).toBe('x'.repeat(80));
    expect(nameOf([{ wa_id: '5500000000000', profile: { name: 'Someone else' } }])).toBeUndefined();
    expect(nameOf('not a list')).toBeUndefined();
    expect(nameOf([null, { wa_id: '5511999990000' }, { wa_id: '5511999990000', profile: { name: 42 } }])).toBeUndefined();
    expect(nameOf([{ wa_id: '5511999990000', profile: { name: '\uD800' } }])).toBeUndefined();
  });

  test('media, location, interactive, button, reaction and unsupported messages get placeholders', () => {
    const parsed = parseWebhookPayload(metaFixture('media-and-interactive'), receivedAt);
    expect(parsed.turns.map((turn) => [turn.messageType, turn.text])).toEqual([
      ['image', '[image] My sample tube'],
      ['audio', '[audio]'],
      ['document', '[document] exam-request.pdf'],
      ['location', '[location] Main office 1 Hacker Way, Menlo Park, CA 94025 (37.483307, -122.148981)'],
      ['interactive', 'Yes, book it'],
      ['interactive', 'DNA paternity'],
      ['button', 'Stop promotions'],
      ['reaction', '[reaction] 👍'],
      ['sticker', '[sticker]'],
      ['unsupported', '[unsupported]'],
    ]);
    expect(new Set(parsed.turns.map((turn) => turn.customerId))).toEqual(new Set(['16505551111']));
  });

  test('statuses are reported apart and never become turns', () => {
    const parsed = parseWebhookPayload(metaFixture('statuses-only'), receivedAt);
    expect(parsed.turns).toEqual([]);
    expect(parsed.statuses).toEqual([
      { providerMessageId: 'wamid.OUTBOUND001', status: 'delivered', timestamp: '2025-06-08T21:01:40.000Z', errorCode: undefined, callbackData: undefined, recipientIds: ['16505551234'], pricing: { billable: false, category: 'service', pricingModel: 'PMP' } },
      { providerMessageId: 'wamid.OUTBOUND002', status: 'failed', timestamp: '2025-06-08T21:01:41.000Z', errorCode: 131047, callbackData: undefined, recipientIds: ['16505551234'] },
    ]);
  });

  test('every message of every change of every entry is kept, in payload order', () => {
    const parsed = parseWebhookPayload(metaFixture('multi-entry-batch'), receivedAt);
    expect(parsed.turns.map((turn) => [turn.customerId, turn.messageId, turn.businessPhoneNumberId])).toEqual([
      ['5511988887777', 'wamid.BATCH-A1', '106540352242922'],
      ['5511977776666', 'wamid.BATCH-B1', '106540352242922'],
      ['5511988887777', 'wamid.BATCH-A2', '106540352242922'],
      ['5521966665555', 'wamid.BATCH-C1', '207651463353033'],
    ]);
    expect(parsed.statuses).toHaveLength(1);
  });

  test('a business-scoped user id stands in for the missing phone', () => {
    const [turn] = parseWebhookPayload(metaFixture('business-scoped-user'), receivedAt).turns;
    expect(turn.customerId).toBe('US.13491208655302741918');
    expect(turn.customerIdKind).toBe('user_id');
  });

  test('other webhook fields and system messages are ignored, not rejected', () => {
    const body = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '1',
          changes: [
            { field: 'account_update', value: { event: 'VERIFIED_ACCOUNT' } },
            {
              field: 'messages',
              value: {
                metadata: { phone_number_id: '1' },
                messages: [{ from: '1', id: 'wamid.SYS', timestamp: '1', type: 'system', system: { body: 'changed number' } }],
              },
            },
          ],
        },
      ],
    });
    expect(parseWebhookPayload(body, receivedAt)).toEqual({ turns: [], statuses: [], ignored: 2, unreadable: 0 });
  });

  test('a field that is not a string is another field, ignored, whatever it holds', () => {
    const change = (field: unknown) => ({ field, value: { metadata: { phone_number_id: '1' }, messages: [{ from: '1', id: 'wamid.X', timestamp: '1', type: 'text', text: { body: 'oi' } }] } });
    const body = JSON.stringify({ object: 'whatsapp_business_account', entry: [{ id: '1', changes: [change({ toString: [] }), change(['messages']), change(7)] }] });
    expect(parseWebhookPayload(body, receivedAt)).toEqual({ turns: [], statuses: [], ignored: 3, unreadable: 0 });
  });

  test('template status changes are read, dated by the entry; an unknown event or a malformed one is ignored', () => {
    const change = (value: object) => ({ field: 'message_template_status_update', value });
    const body = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '102290129340398',
          time: 1_773_144_000,
          changes: [
            change({ event: 'PAUSED', message_template_id: 1, message_template_name: 'retomar_conversa', message_template_language: 'pt_BR', reason: 'LOW_QUALITY' }),
            change({ event: 'FLAGGED', message_template_id: 1, message_template_name: 'retomar_conversa', message_template_language: 'en_US', reason: 'NONE' }),
            change({ event: 'SOMETHING_NEW', message_template_name: 'retomar_conversa', message_template_language: 'pt_BR' }),
            change({ event: 'APPROVED', message_template_name: 'Nome Inválido', message_template_language: 'pt_BR' }),
          ],
        },
      ],
    });
    expect(parseWebhookPayload(body, receivedAt)).toEqual({
      turns: [],
      statuses: [],
      templateStatusUpdates: [
        { name: 'retomar_conversa', language: 'pt_BR', status: 'PAUSED', reason: 'LOW_QUALITY', at: '2026-03-10T12:00:00.000Z' },
        { name: 'retomar_conversa', language: 'en_US', status: 'APPROVED', reason: undefined, at: '2026-03-10T12:00:00.000Z' },
      ],
      ignored: 2,
      unreadable: 0,
    });
  });

  test('an over-long text is cut to WhatsApp’s own limit', () => {
    const payload = JSON.parse(metaFixture('text-message'));
    payload.entry[0].changes[0].value.messages[0].text.body = 'x'.repeat(MAX_TURN_TEXT_LENGTH + 10);
    const [turn] = parseWebhookPayload(JSON.stringify(payload), receivedAt).turns;
    expect(turn.text).toHaveLength(MAX_TURN_TEXT_LENGTH);
    // The cut never splits an emoji: 4,095 letters and one stay 4,095 letters, well-formed.
    payload.entry[0].changes[0].value.messages[0].text.body = `${'x'.repeat(MAX_TURN_TEXT_LENGTH - 1)}😀`;
    const [cut] = parseWebhookPayload(JSON.stringify(payload), receivedAt).turns;
    expect(cut.text).toBe('x'.repeat(MAX_TURN_TEXT_LENGTH - 1));
  });

  test('a status names its recipient by phone and by business-scoped user id, as Meta sends them', () => {
    const status = (fields: object) => JSON.stringify({ object: 'whatsapp_business_account', entry: [{ changes: [{ field: 'messages', value: { statuses: [{ id: 'wamid.S', status: 'read', timestamp: '1', ...fields }] } }] }] });
    expect(parseWebhookPayload(status({ recipient_id: '5511988887777', recipient_user_id: 'BR.1a2b' }), receivedAt).statuses[0].recipientIds).toEqual(['5511988887777', 'BR.1a2b']);
    expect(parseWebhookPayload(status({ recipient_user_id: 'BR.1a2b' }), receivedAt).statuses[0].recipientIds).toEqual(['BR.1a2b']);
    expect(parseWebhookPayload(status({}), receivedAt).statuses[0].recipientIds).toEqual([]);
  });

  test("a status's pricing is read as Meta sends it; one of another shape leaves the status without it", () => {
    const status = (fields: object) => JSON.stringify({ object: 'whatsapp_business_account', entry: [{ changes: [{ field: 'messages', value: { statuses: [{ id: 'wamid.S', status: 'delivered', timestamp: '1', recipient_id: '5511988887777', ...fields }] } }] }] });
    const pricing = { billable: true, pricing_model: 'PMP', category: 'utility', type: 'regular' };
    expect(parseWebhookPayload(status({ pricing }), receivedAt).statuses[0].pricing).toEqual({ billable: true, pricingModel: 'PMP', category: 'utility', type: 'regular' });
    expect(parseWebhookPayload(status({ pricing: { billable: false, category: 'service' } }), receivedAt).statuses[0].pricing).toEqual({ billable: false, category: 'service' });
    for (const odd of [{ ...pricing, billable: 'true' }, { ...pricing, category: 'Utility; DROP' }, { billable: true }, 'utility', null]) {
      const parsed = parseWebhookPayload(status({ pricing: odd }), receivedAt);
      expect(parsed.unreadable).toBe(0);
      expect(parsed.statuses[0]).toMatchObject({ status: 'delivered', recipientIds: ['5511988887777'] });
      expect(parsed.statuses[0].pricing).toBeUndefined();
    }
  });

  const notANotification: Array<[string, string]> = [
    ['not JSON', '{"object": "whatsapp_business_account",'],
    ['a JSON array', '[]'],
    ['another object kind', JSON.stringify({ object: 'page', entry: [] })],
    ['entry not an array', JSON.stringify({ object: 'whatsapp_business_account', entry: {} })],
  ];
  test.each(notANotification)('refuses %s with a WebhookPayloadError: it is not a notification at all', (_name, body) => {
    expect(() => parseWebhookPayload(body, receivedAt)).toThrow(WebhookPayloadError);
  });

  const notify = (value: object) => JSON.stringify({ object: 'whatsapp_business_account', entry: [{ changes: [{ field: 'messages', value }] }] });
  const unreadable: Array<[string, string]> = [
    ['a message without id', notify({ metadata: { phone_number_id: '1' }, messages: [{ from: '1', timestamp: '1', type: 'text', text: { body: 'x' } }] })],
    ['a message without sender', notify({ metadata: { phone_number_id: '1' }, messages: [{ id: 'w', timestamp: '1', type: 'text', text: { body: 'x' } }] })],
    ['a message without metadata', notify({ messages: [{ from: '1', id: 'w', timestamp: '1', type: 'text', text: { body: 'x' } }] })],
    ['a message that is not an object', notify({ metadata: { phone_number_id: '1' }, messages: ['hello'] })],
    ['messages that are not a list', notify({ metadata: { phone_number_id: '1' }, messages: { id: 'w' } })],
    ['a status without id', notify({ statuses: [{ status: 'read', timestamp: '1' }] })],
    ['a status whose id is not a WhatsApp message id', notify({ statuses: [{ id: 'x'.repeat(600), status: 'read', timestamp: '1' }] })],
    ['a change that is not an object', JSON.stringify({ object: 'whatsapp_business_account', entry: [{ changes: [42] }] })],
    ['changes that are not a list', JSON.stringify({ object: 'whatsapp_business_account', entry: [{ changes: 'x' }] })],
  ];
  test.each(unreadable)('counts %s as unreadable, and reads the rest', (_name, body) => {
    const withGoodMessage = JSON.parse(body) as { entry: object[] };
    withGoodMessage.entry.push(...(JSON.parse(metaFixture('text-message')) as { entry: object[] }).entry);
    const parsed = parseWebhookPayload(JSON.stringify(withGoodMessage), receivedAt);
    expect(parsed.unreadable).toBe(1);
    expect(parsed.turns.map((turn) => turn.text)).toEqual(['Does it come in another color?']);
  });

  const unsupported: Array<[string, object]> = [
    ['a text message without body', { type: 'text' }],
    ['a text body that is not a string', { type: 'text', text: { body: 7 } }],
    ['Meta’s "Unsupported webhook payload" (a type without its object)', { type: 'interactive', errors: [{ code: 131000, title: 'Something went wrong', error_data: { details: 'Unsupported webhook payload' } }] }],
    ['text that is not well-formed Unicode', { type: 'text', text: { body: 'oi \ud83d' } }],
  ];
  test.each(unsupported)('a message naming its customer whose content cannot be read (%s) is an unsupported turn, so the customer is told', (_name, content) => {
    const body = notify({ metadata: { phone_number_id: '106540352242922' }, messages: [{ from: '5511988887777', id: 'wamid.U', timestamp: '1749416383', ...content }] });
    const parsed = parseWebhookPayload(body, receivedAt);
    expect(parsed).toMatchObject({ unreadable: 0, turns: [{ customerId: '5511988887777', messageId: 'wamid.U', unsupported: true, businessPhoneNumberId: '106540352242922' }] });
  });

  describe('coexistence (a number shared with the WhatsApp Business app)', () => {
    test("an smb_message_echoes change is the business's own message to the customer, never a turn", () => {
      const parsed = parseWebhookPayload(metaFixture('smb-message-echoes'), receivedAt);
      expect(parsed.turns).toEqual([]);
      expect(parsed.echoes).toEqual([
        {
          customerId: '16505551234',
          customerIdKind: 'phone',
          messageId: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBI3NjNEMkJCQkE5QkQ0QzE0QjkA',
          providerTimestamp: '2025-06-08T21:00:00.000Z',
          receivedAt: '2026-11-30T12:00:00.000Z',
          businessPhoneNumberId: '106540352242922',
          messageType: 'text',
          text: 'Hi, this is Ana from the shop: yes, it comes in blue.',
        },
      ]);
      expect(parsed).toMatchObject({ ignored: 0, unreadable: 0 });
    });

    test('an echo naming no customer is unreadable and the rest is read; one whose content cannot be read keeps its type', () => {
      const echo = (fields: object) => ({ from: '15550783881', id: `wamid.${Math.random()}`, timestamp: '1749416400', ...fields });
      const body = JSON.stringify({
        object: 'whatsapp_business_account',
        entry: [
          {
            changes: [
              {
                field: 'smb_message_echoes',
                value: {
                  metadata: { phone_number_id: '106540352242922' },
                  message_echoes: [echo({ type: 'text', text: { body: 'no customer' } }), echo({ to: '5511999990000', type: 'image', image: {} })],
                },
              },
            ],
          },
        ],
      });
      const parsed = parseWebhookPayload(body, receivedAt);
      expect(parsed.unreadable).toBe(1);
      expect(parsed.echoes?.map((read) => [read.customerId, read.messageType, read.text])).toEqual([['5511999990000', 'image', '[image]']]);
    });

    test('standby messages are read like customer messages but kept apart from the turns; a handover is counted', () => {
      const parsed = parseWebhookPayload(metaFixture('standby'), receivedAt);
      expect(parsed.turns).toEqual([]);
      expect(parsed.standby).toEqual([expect.objectContaining({ customerId: '16505551234', text: 'Thanks! And in red?', profileName: 'Sheena Nelson' })]);
      expect(parsed).toMatchObject({ handovers: 1, ignored: 0, unreadable: 0 });
    });
  });
});
