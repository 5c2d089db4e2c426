import { parseEndUserMessagingEvent } from '../../../../lambda/core/adapters/whatsapp/end-user-messaging-event';
import { parseWebhookPayload } from '../../../../lambda/core/adapters/whatsapp/webhook-payload';
import type { InboundTurn } from '../../../../lambda/core/domain/inbound-turn';
import { metaFixture } from '../../../support/fixtures';

const receivedAt = new Date('2026-12-01T12:00:00.000Z');

/** The one turn of `test/fixtures/meta-webhook/types/<name>.json`, without the fields every type shares. */
function typed(name: string): Partial<InboundTurn> {
  const { turns } = parseWebhookPayload(metaFixture(`types/${name}`), receivedAt);
  expect(turns).toHaveLength(1);
  const { customerId, customerIdKind, messageId, providerTimestamp, receivedAt: received, businessPhoneNumberId, displayPhoneNumber, profileName, ...content } = turns[0];
  return content;
}

describe('inbound content: what each Meta message type reads as and does', () => {
  test('image: a described attachment with its caption, to be downloaded by the turn', () => {
    expect(typed('image')).toEqual({
      messageType: 'image',
      text: '[image] My prescription',
      media: { kind: 'image', providerMediaId: '1479537139650973', mimeType: 'image/jpeg', sha256: 'Wm9Vb3n8kbfXyZ1gHbXhzdWG2ROr1o5rS5rLnTq4Fhs=', caption: 'My prescription' },
    });
  });

  test('video', () => {
    expect(typed('video')).toMatchObject({ text: '[video] The noise it makes', media: { kind: 'video', providerMediaId: '1479537139650974', mimeType: 'video/mp4', caption: 'The noise it makes' } });
  });

  test('sticker', () => {
    expect(typed('sticker')).toEqual({ messageType: 'sticker', text: '[sticker]', media: { kind: 'sticker', providerMediaId: '1479537139650975', mimeType: 'image/webp', sha256: 'c3RpY2tlcnNoYTI1Ng==' } });
  });

  test('voice note: an audio marked as recorded in WhatsApp', () => {
    expect(typed('voice-note')).toEqual({
      messageType: 'audio',
      text: '[audio]',
      media: { kind: 'audio', providerMediaId: '1479537139650976', mimeType: 'audio/ogg; codecs=opus', sha256: 'dm9pY2Vub3Rlc2hhMjU2', voice: true },
    });
  });

  test('document: its file name and caption', () => {
    expect(typed('document')).toMatchObject({ text: '[document] exam-request.pdf Lab order', media: { kind: 'document', filename: 'exam-request.pdf', caption: 'Lab order', mimeType: 'application/pdf' } });
    // A name that would show reversed (a right-to-left override) is kept without the characters that reorder it.
    const reversed = JSON.parse(metaFixture('types/document'));
    reversed.entry[0].changes[0].value.messages[0].document.filename = 'fatura\u202Efdp.exe';
    const [turn] = parseWebhookPayload(JSON.stringify(reversed), receivedAt).turns;
    expect(turn.media).toMatchObject({ filename: 'faturafdp.exe' });
    expect(turn.text).toBe('[document] faturafdp.exe Lab order');
  });

  test('location: name, address, coordinates and link', () => {
    expect(typed('location')).toEqual({ messageType: 'location', text: '[location] MASP Av. Paulista, 1578 - Bela Vista, São Paulo (-23.561414, -46.655881) https://masp.org.br' });
  });

  test('contacts: each card with its fields', () => {
    expect(typed('contacts')).toEqual({
      messageType: 'contacts',
      text: '[contact] Bruno Lima; Clínica Lima, Manager; +55 11 97777-6666; bruno@example.com; Rua Augusta, 100; https://clinica.example.com; 1990-04-12',
    });
  });

  test('button reply: its title and id, quoting the message whose button it was', () => {
    expect(typed('button-reply')).toEqual({ messageType: 'interactive', text: 'Yes, book it', choiceId: 'confirm-yes', quotedMessageId: 'wamid.OUTBOUND-BUTTONS' });
  });

  test('list reply: the chosen row, by title and id', () => {
    expect(typed('list-reply')).toMatchObject({ text: 'DNA paternity', choiceId: 'exam-dna' });
  });

  test("flow reply: the answers of response_json as fields, without Meta's flow token", () => {
    expect(typed('flow-reply').text).toBe('[flow] flow\npreferred_date: 2026-12-04\nexam: blood_panel\nfasting: true');
  });

  test('template quick-reply button: its text', () => {
    expect(typed('button')).toMatchObject({ text: 'Stop promotions', quotedMessageId: 'wamid.TEMPLATE001' });
  });

  test('reaction: recorded on the message it reacts to', () => {
    expect(typed('reaction')).toEqual({ messageType: 'reaction', text: '[reaction] 👍', reaction: { targetMessageId: 'wamid.OUTBOUND-REPLY', emoji: '👍' } });
  });

  test('removed reaction: no emoji', () => {
    expect(typed('reaction-removed')).toEqual({ messageType: 'reaction', text: '[reaction removed]', reaction: { targetMessageId: 'wamid.OUTBOUND-REPLY' } });
  });

  test('order: every item with quantity and price, and the note', () => {
    expect(typed('order')).toEqual({ messageType: 'order', text: '[order] catalogue 784522397116153\n2 × KIT-GLUCOSE (49.9 BRL)\n1 × STRIPS-50 (89 BRL)\nPlease deliver before noon' });
  });

  test('referral (click-to-WhatsApp ad) on any message: the ad it came from, after the text', () => {
    expect(typed('referral')).toEqual({ messageType: 'text', text: 'Hi, I saw your ad\n[ad] Home blood tests Book a collection at home today https://fb.me/3cr4Wqqkv (ad 120208888888888888)' });
  });

  test('quoted reply on any message: the quoted id (its text is read from the history at turn time)', () => {
    expect(typed('quoted-reply')).toEqual({ messageType: 'text', text: 'Is this still the price?', quotedMessageId: 'wamid.OUTBOUND-PRICE' });
  });

  test('product enquiry: the product asked about', () => {
    expect(typed('product-enquiry')).toEqual({ messageType: 'text', text: 'Do you have it in stock?\n[product] KIT-GLUCOSE', quotedMessageId: 'wamid.OUTBOUND-CATALOG' });
  });

  test('edit: the new text, naming the message it replaces', () => {
    expect(typed('edit')).toEqual({ messageType: 'edit', text: 'Is this still the price for two kits?', editOf: 'wamid.TYPES-QUOTED-REPLY' });
  });

  test('revoke: the customer deleted a message, named by its id; nothing for the agent to read', () => {
    expect(typed('revoke')).toEqual({ messageType: 'revoke', text: '[revoke]', revokes: 'wamid.TYPES-QUOTED-REPLY' });
  });

  test("unsupported: a type Meta cannot deliver is marked for the notice, not the agent", () => {
    expect(typed('unsupported')).toEqual({ messageType: 'unsupported', text: '[unsupported]', unsupported: true });
  });

  test('an unknown type is handled like an unsupported one', () => {
    expect(typed('unknown-type')).toEqual({ messageType: 'hologram', text: '[hologram]', unsupported: true });
  });

  test('End User Messaging carries the same payload: the same content, media descriptor included', () => {
    const webhook = JSON.parse(metaFixture('types/voice-note')) as { entry: unknown[] };
    const event = parseEndUserMessagingEvent(
      JSON.stringify({
        context: { MetaWabaIds: [{ wabaId: '102290129340398', arn: 'arn:aws:social-messaging:us-east-1:123456789012:waba/1' }], MetaPhoneNumberIds: [{ metaPhoneNumberId: '106540352242922', arn: 'arn:aws:social-messaging:us-east-1:123456789012:phone-number-id/1' }] },
        aws_account_id: '123456789012',
        whatsAppWebhookEntry: JSON.stringify(webhook.entry[0]),
      }),
      receivedAt,
    );
    expect(event.notification.turns).toEqual(parseWebhookPayload(metaFixture('types/voice-note'), receivedAt).turns);
    expect(event.notification.turns[0].media).toMatchObject({ kind: 'audio', voice: true });
  });
});

describe('inbound content: a malformed shape of any type is an unsupported turn, and the message beside it is read as it is', () => {
  const malformed: ReadonlyArray<[string, string, (message: Record<string, any>) => void]> = [
    ['an image without its media id', 'image', (message) => delete message.image.id],
    ['a document that is not an object', 'document', (message) => (message.document = 'exam.pdf')],
    ['a reaction without the message it reacts to', 'reaction', (message) => delete message.reaction.message_id],
    ['a reaction to an id that is not a message id', 'reaction', (message) => (message.reaction.message_id = 'wamid.with#hash')],
    ['a flow reply whose response_json is not JSON', 'flow-reply', (message) => (message.interactive.nfm_reply.response_json = '{not json')],
    ['an edit without its original message', 'edit', (message) => delete message.edit.original_message_id],
    ['an edit whose message has no text', 'edit', (message) => delete message.edit.message.text],
    ['a revoke without the message it deletes', 'revoke', (message) => delete message.revoke.original_message_id],
    ['a revoke naming an empty id', 'revoke', (message) => (message.revoke.original_message_id = '')],
    ['a revoke naming an id that is not a message id', 'revoke', (message) => (message.revoke.original_message_id = 'wamid.with#hash')],
    ['a revoke that is not an object', 'revoke', (message) => (message.revoke = 'wamid.TYPES-QUOTED-REPLY')],
    ['contacts that are not a list', 'contacts', (message) => (message.contacts = { name: 'Bruno' })],
    ['an order item without its product', 'order', (message) => delete message.order.product_items[0].product_retailer_id],
    ['a referral that is not an object', 'referral', (message) => (message.referral = 'ad')],
  ];

  test.each(malformed)('%s', (_what, name, spoil) => {
    const body = JSON.parse(metaFixture(`types/${name}`));
    const text = JSON.parse(metaFixture('text-message'));
    // Alongside a good message: Meta signed both, so neither is refused; the customer is told of the one that cannot be read.
    body.entry[0].changes[0].value.messages.unshift(text.entry[0].changes[0].value.messages[0]);
    spoil(body.entry[0].changes[0].value.messages[1]);
    const parsed = parseWebhookPayload(JSON.stringify(body), receivedAt);
    expect(parsed.unreadable).toBe(0);
    expect(parsed.turns.map((turn) => [turn.text, turn.unsupported ?? false])).toEqual([
      ['Does it come in another color?', false],
      [`[${body.entry[0].changes[0].value.messages[1].type}]`, true],
    ]);
  });
});
