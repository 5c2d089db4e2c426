import { UNSUPPORTED_MESSAGE_TEXT_DEFAULT } from '../../../lib/contract';
import { TurnHarness } from '../../support/turn-harness';
import { messageNotification } from '../../support/webhook-events';

/** What each kind of customer message does end to end: the real webhook, DynamoDB Local, the real turn. */
describe('inbound message types through the pipeline', () => {
  let harness: TurnHarness;
  let customer = 5511900000000;
  const nextCustomer = () => String((customer += 1));

  beforeAll(async () => {
    harness = await TurnHarness.start();
  });
  afterAll(() => harness.close());

  /** The history entry of the agent's reply, with the wamid Meta gave it. */
  async function sentReply(customerId: string) {
    const { items } = await harness.messages.history(customerId, { limit: 100 });
    const reply = items.find((message) => message.direction === 'outbound' && message.providerMessageId !== undefined);
    if (reply === undefined) throw new Error('no reply was sent');
    return reply;
  }

  test('a reaction is recorded on the message it reacts to and starts no turn; removing it clears it', async () => {
    const customerId = nextCustomer();
    await harness.receive(customerId, 'wamid.R-1', 'Quanto custa o exame?');
    await harness.process(customerId);
    const reply = await sentReply(customerId);
    const callsBefore = harness.agent.calls;

    expect(await harness.receiveMessage(customerId, { id: 'wamid.R-2', type: 'reaction', reaction: { message_id: reply.providerMessageId, emoji: '👍' } })).toBe(200);
    await harness.process(customerId);

    expect(harness.agent.calls).toBe(callsBefore);
    expect(harness.sentTo(customerId)).toHaveLength(1);
    expect(await harness.receipts.getReceipt({ customerId, messageId: 'wamid.R-2' })).toBeUndefined();
    expect((await harness.receipts.getLatest(customerId))?.pendingMessageIds).toEqual([]);
    expect((await sentReply(customerId)).reaction).toEqual({ emoji: '👍', at: expect.any(String) });
    expect(await harness.history(customerId)).toHaveLength(2);

    await harness.receiveMessage(customerId, { id: 'wamid.R-3', type: 'reaction', timestamp: String(Math.floor(Date.now() / 1000) + 5), reaction: { message_id: reply.providerMessageId } });
    expect((await sentReply(customerId)).reaction).toBeUndefined();
    expect(harness.agent.calls).toBe(callsBefore);
  });

  test('a reaction to a message the pipeline does not have is answered 200 and changes nothing', async () => {
    const customerId = nextCustomer();
    expect(await harness.receiveMessage(customerId, { id: 'wamid.R-9', type: 'reaction', reaction: { message_id: 'wamid.UNKNOWN', emoji: '❤️' } })).toBe(200);
    expect(await harness.history(customerId)).toEqual([]);
    expect(await harness.receipts.getLatest(customerId)).toBeUndefined();
  });

  test('an edit of a message still waiting for the agent: the agent answers the new text, once', async () => {
    const customerId = nextCustomer();
    await harness.receive(customerId, 'wamid.E-1', 'Quero agendar na terça');
    await harness.receiveMessage(customerId, { id: 'wamid.E-2', type: 'edit', edit: { original_message_id: 'wamid.E-1', message: { type: 'text', text: { body: 'Quero agendar na quarta' } } } });
    await harness.process(customerId);

    expect(harness.agent.requests.at(-1)?.history.map((entry) => entry.text)).toEqual(['Quero agendar na quarta']);
    expect(harness.sentTo(customerId)).toHaveLength(1);
    expect(await harness.history(customerId)).toEqual(['user: Quero agendar na quarta', expect.stringMatching(/^assistant\[sent\]: /)]);
  });

  test('an edit of a message already answered updates its history entry and is answered as a correction', async () => {
    const customerId = nextCustomer();
    await harness.receive(customerId, 'wamid.E-10', 'Quero agendar na terça');
    await harness.process(customerId);
    await harness.receiveMessage(customerId, { id: 'wamid.E-11', type: 'edit', edit: { original_message_id: 'wamid.E-10', message: { type: 'text', text: { body: 'Quero agendar na quarta' } } } });
    await harness.process(customerId);

    const { items } = await harness.messages.history(customerId, { limit: 100 });
    const original = items.find((message) => message.messageId === 'wamid.E-10');
    expect(original).toMatchObject({ text: 'Quero agendar na quarta', editedAt: expect.any(String) });
    expect(harness.agent.requests.at(-1)?.history.filter((entry) => entry.role === 'customer').map((entry) => entry.text)).toEqual(['Quero agendar na quarta', '[edited] Quero agendar na quarta']);
    expect(harness.sentTo(customerId)).toHaveLength(2);
  });

  describe('a message the customer deleted (revoke)', () => {
    const revoke = (id: string, original: string) => ({ id, type: 'revoke', revoke: { original_message_id: original } });
    /** Counts of the inbound outcome metrics the webhook emitted while `act` ran. */
    async function outcomesOf(act: () => Promise<unknown>): Promise<string[]> {
      const addMetric = jest.spyOn(harness.metrics, 'addMetric');
      try {
        await act();
        return addMetric.mock.calls.map(([name]) => name).filter((name) => name.startsWith('InboundRevokes'));
      } finally {
        addMetric.mockRestore();
      }
    }

    test('after the answer: the entry is marked deleted, its text dropped; no turn, no notice, and the agent never reads it again', async () => {
      const customerId = nextCustomer();
      await harness.receive(customerId, 'wamid.V-1', 'Meu CPF é 123.456.789-00');
      await harness.process(customerId);
      const callsBefore = harness.agent.calls;

      expect(await outcomesOf(() => harness.receiveMessage(customerId, revoke('wamid.V-2', 'wamid.V-1')))).toEqual(['InboundRevokes']);
      await harness.process(customerId);

      expect(harness.agent.calls).toBe(callsBefore);
      expect(harness.sentTo(customerId)).toHaveLength(1);
      expect(await harness.receipts.getReceipt({ customerId, messageId: 'wamid.V-2' })).toBeUndefined();
      const { items } = await harness.messages.history(customerId, { limit: 100 });
      expect(items.find((message) => message.messageId === 'wamid.V-1')).toMatchObject({ text: '', revokedAt: expect.any(String) });

      await harness.receive(customerId, 'wamid.V-3', 'Bom dia');
      await harness.process(customerId);
      const customerLines = harness.agent.requests.at(-1)?.history.filter((entry) => entry.role === 'customer').map((entry) => entry.text);
      expect(customerLines).toEqual(['Bom dia']);
    });

    test('of the only message waiting: the turn is skipped, nothing is sent and the agent never reads it', async () => {
      const customerId = nextCustomer();
      const callsBefore = harness.agent.calls;
      await harness.receive(customerId, 'wamid.V-10', 'Mandei a foto errada');
      await harness.receiveMessage(customerId, revoke('wamid.V-11', 'wamid.V-10'));
      await harness.process(customerId);

      expect(harness.agent.calls).toBe(callsBefore);
      expect(harness.sentTo(customerId)).toEqual([]);
      expect((await harness.receipts.getLatest(customerId))?.pendingMessageIds).toEqual([]);
      expect((await harness.receipts.getReceipt({ customerId, messageId: 'wamid.V-10' }))?.turn.text).toBe('');
      expect(await harness.history(customerId)).toEqual([]);
    });

    test('of the latest message waiting: the agent answers the one before it, once, without reading the deleted one', async () => {
      const customerId = nextCustomer();
      await harness.receive(customerId, 'wamid.V-20', 'Quero agendar um exame');
      await harness.receive(customerId, 'wamid.V-21', 'Meu cartão é 4111 1111 1111 1111');
      await harness.receiveMessage(customerId, revoke('wamid.V-22', 'wamid.V-21'));
      await harness.process(customerId);

      expect(harness.agent.requests.at(-1)?.history.map((entry) => entry.text)).toEqual(['Quero agendar um exame']);
      expect(harness.sentTo(customerId)).toHaveLength(1);
      expect(await harness.history(customerId)).toEqual(['user: Quero agendar um exame', expect.stringMatching(/^assistant\[sent\]: /)]);
    });

    test("Meta's redelivery of the revoke ends the same way and changes nothing more", async () => {
      const customerId = nextCustomer();
      await harness.receive(customerId, 'wamid.V-30', 'Olá');
      await harness.process(customerId);
      await harness.receiveMessage(customerId, revoke('wamid.V-31', 'wamid.V-30'));
      const { items: before } = await harness.messages.history(customerId, { limit: 100 });
      const callsBefore = harness.agent.calls;

      expect(await outcomesOf(() => harness.receiveMessage(customerId, { ...revoke('wamid.V-31', 'wamid.V-30'), timestamp: String(Math.floor(Date.now() / 1000) + 60) }))).toEqual(['InboundRevokes']);
      await harness.process(customerId);

      expect((await harness.messages.history(customerId, { limit: 100 })).items).toEqual(before);
      expect(harness.agent.calls).toBe(callsBefore);
      expect(harness.sentTo(customerId)).toHaveLength(1);
    });

    test('of a message the pipeline does not hold: answered 200, counted apart, nothing changed', async () => {
      const customerId = nextCustomer();
      await harness.receive(customerId, 'wamid.V-40', 'Olá');
      await harness.process(customerId);
      const history = await harness.history(customerId);
      const latest = await harness.receipts.getLatest(customerId);

      expect(await outcomesOf(async () => expect(await harness.receiveMessage(customerId, revoke('wamid.V-41', 'wamid.UNKNOWN'))).toBe(200))).toEqual(['InboundRevokesUnmatched']);
      expect(await harness.history(customerId)).toEqual(history);
      expect(await harness.receipts.getLatest(customerId)).toEqual(latest);
      expect(harness.sentTo(customerId)).toHaveLength(1);
    });

    test('a revoke without the message it deletes is an unsupported turn; the message beside it is registered', async () => {
      const customerId = nextCustomer();
      const body = JSON.parse(messageNotification(customerId, { id: 'wamid.V-50', timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: 'Olá' } }));
      body.entry[0].changes[0].value.messages.push({ from: customerId, id: 'wamid.V-51', timestamp: String(Math.floor(Date.now() / 1000)), type: 'revoke', revoke: { original_message_id: '' } });

      expect((await harness.webhookPost(JSON.stringify(body))).statusCode).toBe(200);
      expect(await harness.receipts.getReceipt({ customerId, messageId: 'wamid.V-50' })).toMatchObject({ turn: { text: 'Olá' } });
      expect(await harness.receipts.getReceipt({ customerId, messageId: 'wamid.V-51' })).toMatchObject({ turn: { text: '[revoke]', unsupported: true } });
    });
  });

  test('an image reaches the history as a readable line with its attachment pending download', async () => {
    const customerId = nextCustomer();
    await harness.receiveMessage(customerId, { id: 'wamid.M-1', type: 'image', image: { id: '1479537139650973', mime_type: 'image/jpeg', sha256: 'abc=', caption: 'Minha receita' } });
    await harness.process(customerId);

    const { items } = await harness.messages.history(customerId, { limit: 100 });
    expect(items.find((message) => message.messageId === 'wamid.M-1')).toMatchObject({
      text: '[image] Minha receita',
      messageType: 'image',
      media: { kind: 'image', providerMediaId: '1479537139650973', mimeType: 'image/jpeg', sha256: 'abc=', caption: 'Minha receita', state: 'pending' },
    });
  });

  test('a quoted reply shows the agent the quoted message above it, read from the history', async () => {
    const customerId = nextCustomer();
    await harness.receive(customerId, 'wamid.Q-1', 'Quanto custa o exame de sangue?');
    await harness.process(customerId);
    const reply = await sentReply(customerId);
    await harness.receiveMessage(customerId, { id: 'wamid.Q-2', type: 'text', text: { body: 'Esse preço vale para dois?' }, context: { from: '15550783881', id: reply.providerMessageId } });
    await harness.process(customerId);

    expect(harness.agent.requests.at(-1)?.history.at(-1)?.text).toBe(`> ${reply.text}\nEsse preço vale para dois?`);
    // Stored once: the history keeps the reply's own text and the quote's id, not a copy.
    const { items } = await harness.messages.history(customerId, { limit: 100 });
    expect(items.find((message) => message.messageId === 'wamid.Q-2')).toMatchObject({ text: 'Esse preço vale para dois?', quotedMessageId: reply.providerMessageId });
  });

  test('a type the pipeline cannot read gets the short notice once per conversation, never an agent turn', async () => {
    const customerId = nextCustomer();
    const callsBefore = harness.agent.calls;
    const unsupported = (id: string) => ({ id, type: 'unsupported', errors: [{ code: 131051, title: 'Message type unknown' }], unsupported: { type: 'poll_creation' } });
    await harness.receiveMessage(customerId, unsupported('wamid.U-1'));
    await harness.process(customerId);
    await harness.receiveMessage(customerId, unsupported('wamid.U-2'));
    await harness.process(customerId);

    expect(harness.sentTo(customerId)).toEqual([UNSUPPORTED_MESSAGE_TEXT_DEFAULT]);
    expect(harness.agent.calls).toBe(callsBefore);
    expect((await harness.receipts.getLatest(customerId))?.pendingMessageIds).toEqual([]);

    // A readable message next is the agent's as usual.
    await harness.receive(customerId, 'wamid.U-3', 'Bom dia');
    await harness.process(customerId);
    expect(harness.agent.calls).toBe(callsBefore + 1);
    expect(harness.sentTo(customerId)).toHaveLength(2);
  });

  test('a malformed message of any type is an unsupported turn the customer is told about; the good message beside it is answered', async () => {
    const customerId = nextCustomer();
    const body = JSON.parse(messageNotification(customerId, { id: 'wamid.B-1', timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: 'Olá' } }));
    body.entry[0].changes[0].value.messages.push({ from: customerId, id: 'wamid.B-2', timestamp: String(Math.floor(Date.now() / 1000)), type: 'reaction', reaction: { emoji: '👍' } });
    const status = (await harness.webhookPost(JSON.stringify(body))).statusCode;

    expect(status).toBe(200);
    expect(await harness.receipts.getReceipt({ customerId, messageId: 'wamid.B-1' })).toMatchObject({ turn: { text: 'Olá' } });
    expect(await harness.receipts.getReceipt({ customerId, messageId: 'wamid.B-2' })).toMatchObject({ turn: { text: '[reaction]', unsupported: true } });
  });
});
