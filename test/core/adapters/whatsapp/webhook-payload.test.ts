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
      { providerMessageId: 'wamid.OUTBOUND001', status: 'delivered', timestamp: '2025-06-08T21:01:40.000Z', errorCode: undefined },
      { providerMessageId: 'wamid.OUTBOUND002', status: 'failed', timestamp: '2025-06-08T21:01:41.000Z', errorCode: 131047 },
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
    expect(parseWebhookPayload(body, receivedAt)).toEqual({ turns: [], statuses: [], ignored: 2 });
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
    });
  });

  test('an over-long text is cut to WhatsApp’s own limit', () => {
    const payload = JSON.parse(metaFixture('text-message'));
    payload.entry[0].changes[0].value.messages[0].text.body = 'x'.repeat(MAX_TURN_TEXT_LENGTH + 10);
    const [turn] = parseWebhookPayload(JSON.stringify(payload), receivedAt).turns;
    expect(turn.text).toHaveLength(MAX_TURN_TEXT_LENGTH);
  });

  const malformed: Array<[string, string]> = [
    ['not JSON', '{"object": "whatsapp_business_account",'],
    ['a JSON array', '[]'],
    ['another object kind', JSON.stringify({ object: 'page', entry: [] })],
    ['entry not an array', JSON.stringify({ object: 'whatsapp_business_account', entry: {} })],
    ['a message without id', JSON.stringify({ object: 'whatsapp_business_account', entry: [{ changes: [{ field: 'messages', value: { metadata: { phone_number_id: '1' }, messages: [{ from: '1', timestamp: '1', type: 'text', text: { body: 'x' } }] } }] }] })],
    ['a message without sender', JSON.stringify({ object: 'whatsapp_business_account', entry: [{ changes: [{ field: 'messages', value: { metadata: { phone_number_id: '1' }, messages: [{ id: 'w', timestamp: '1', type: 'text', text: { body: 'x' } }] } }] }] })],
    ['a text message without body', JSON.stringify({ object: 'whatsapp_business_account', entry: [{ changes: [{ field: 'messages', value: { metadata: { phone_number_id: '1' }, messages: [{ from: '1', id: 'w', timestamp: '1', type: 'text' }] } }] }] })],
    ['a bad timestamp', JSON.stringify({ object: 'whatsapp_business_account', entry: [{ changes: [{ field: 'messages', value: { metadata: { phone_number_id: '1' }, messages: [{ from: '1', id: 'w', timestamp: 'yesterday', type: 'text', text: { body: 'x' } }] } }] }] })],
    ['messages without metadata', JSON.stringify({ object: 'whatsapp_business_account', entry: [{ changes: [{ field: 'messages', value: { messages: [{ from: '1', id: 'w', timestamp: '1', type: 'text', text: { body: 'x' } }] } }] }] })],
  ];
  test.each(malformed)('rejects %s with a WebhookPayloadError', (_name, body) => {
    expect(() => parseWebhookPayload(body, receivedAt)).toThrow(WebhookPayloadError);
  });
});
