// End to end over real HTTP and the real local servers, once per channel: signed Meta POST → webhook
// Function URL (Cloud API) or SNS-shaped event → inbound function (End User Messaging) → DynamoDB
// Local + SQS FIFO emulator → orchestrator event source → scripted agent → fake Graph API (directly,
// or behind the fake End User Messaging endpoint).
import { ScriptedAgent } from '../../lambda/core/adapters/agent/scripted-agent';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { LOCAL_BUSINESS } from '../../local/runtime/meta-notification';
import { CHANNELS, parseScriptedReply, startTestPipeline } from '../support/pipeline';
import { gate, waitUntil } from '../support/waiting';
import { newCustomer } from '../support/ids';

describe.each(CHANNELS)('over the %s channel', (channel) => {
  let pipeline: LocalPipeline | undefined;
  afterEach(async () => {
    await pipeline?.stop();
    pipeline = undefined;
  });

  function repliesTo(customer: string): string[] {
    return pipeline!.fakeWhatsApp.sent().filter((message) => message.recipient === customer).map((message) => message.text);
  }

  it('holds a conversation of several turns, keeps the session and opens a new one after it closes', async () => {
    pipeline = await startTestPipeline({ channel });
    const customer = newCustomer();
    const turn = async (text: string, replies: number) => {
      expect((await pipeline!.sendCustomerMessage(customer, text)).status).toBe(200);
      await pipeline!.fakeWhatsApp.waitForSent(replies, 15_000);
      return repliesTo(customer)[replies - 1];
    };

    expect(await turn('Oi, tudo bem?', 1)).toBe('Olá! Recebi: Oi, tudo bem? (mensagem 1)');
    expect(await turn('Meu nome #dado nome=Ana', 2)).toBe('Olá! Recebi: Meu nome #dado nome=Ana (mensagem 2)');
    const open = await pipeline.conversation(customer);
    expect(open.session).toMatchObject({ state: 'QUALIFYING', qualificationData: { nome: 'Ana' } });
    expect(open.history.map((message) => [message.role, message.text])).toEqual([
      ['user', 'Oi, tudo bem?'],
      ['assistant', 'Olá! Recebi: Oi, tudo bem? (mensagem 1)'],
      ['user', 'Meu nome #dado nome=Ana'],
      ['assistant', 'Olá! Recebi: Meu nome #dado nome=Ana (mensagem 2)'],
    ]);

    expect(await turn('Obrigada, tchau #fim', 3)).toBe('Olá! Recebi: Obrigada, tchau #fim (mensagem 3)');
    await pipeline.waitForIdle();
    expect((await pipeline.conversation(customer)).session).toMatchObject({ sessionId: open.session!.sessionId, state: 'CLOSED' });

    expect(await turn('Voltei!', 4)).toBe('Olá! Recebi: Voltei! (mensagem 1)');
    const reopened = await pipeline.conversation(customer);
    expect(reopened.session?.sessionId).not.toBe(open.session!.sessionId);
    expect(reopened.session?.state).toBe('QUALIFYING');
    expect(pipeline.fakeWhatsApp.sent().every((message) => message.businessPhoneNumberId === LOCAL_BUSINESS.businessPhoneNumberId)).toBe(true);
  });

  it('answers a burst from one customer once, with the full history, after holding the first turn', async () => {
    const firstCallStarted = gate();
    const releaseFirstCall = gate();
    const agent = new ScriptedAgent({
      respondAfter: async (_request, call) => {
        if (call !== 1) return;
        firstCallStarted.open();
        await releaseFirstCall.opened;
      },
    });
    pipeline = await startTestPipeline({ channel, agent });
    const customer = newCustomer();

    await pipeline.sendCustomerMessage(customer, 'Olá');
    await firstCallStarted.opened;
    // While the agent works on the first message, the customer keeps typing.
    for (const text of ['Quero fazer um exame', 'É urgente']) expect((await pipeline.sendCustomerMessage(customer, text)).status).toBe(200);
    releaseFirstCall.open();
    await pipeline.waitForIdle();

    expect(repliesTo(customer)).toEqual(['Olá! Recebi: Olá | Quero fazer um exame | É urgente (mensagem 3)']);
    // The held call's answer was superseded, never sent; the next call saw the whole burst in order.
    expect(agent.requests.length).toBe(2);
    expect(agent.requests[1].history.map((entry) => entry.text)).toEqual(['Olá', 'Quero fazer um exame', 'É urgente']);
    const { history } = await pipeline.conversation(customer);
    expect(history.map((message) => message.text)).toEqual(['Olá', 'Quero fazer um exame', 'É urgente', 'Olá! Recebi: Olá | Quero fazer um exame | É urgente (mensagem 3)']);
  });

  it('answers several messages Meta delivers in one notification in payload order, none lost or repeated', async () => {
    pipeline = await startTestPipeline({ channel });
    const customer = newCustomer();

    const delivery = await pipeline.sendCustomerMessages(customer, ['Bom dia', 'Tenho uma dúvida', 'sobre o exame']);
    expect(delivery.status).toBe(200);
    await pipeline.waitForIdle();

    const replies = repliesTo(customer).map(parseScriptedReply);
    expect(replies.flatMap((reply) => reply.answered)).toEqual(['Bom dia', 'Tenho uma dúvida', 'sobre o exame']);
    expect(replies[replies.length - 1].count).toBe(3);
    const { history } = await pipeline.conversation(customer);
    expect(history.filter((message) => message.role === 'user').map((message) => message.messageId)).toEqual(delivery.messageIds);
  });

  it('serves many customers in parallel and keeps each customer’s messages in order, none lost or repeated', async () => {
    pipeline = await startTestPipeline({ channel, agent: new ScriptedAgent({ delayMs: 20 }) });
    const customers = Array.from({ length: 12 }, () => newCustomer());
    const messagesOf = (customer: string) => [1, 2, 3, 4].map((index) => `${customer.slice(-4)} mensagem ${index}`);

    // Half the customers type in bursts (their turns merge); the others wait for each answer.
    const patient = (index: number) => index % 2 === 0;
    await Promise.all(
      customers.map(async (customer, index) => {
        for (const [sent, text] of messagesOf(customer).entries()) {
          expect((await pipeline!.sendCustomerMessage(customer, text)).status).toBe(200);
          if (patient(index)) await waitUntil(() => repliesTo(customer).length > sent, 20_000);
        }
      }),
    );
    await pipeline.waitForIdle(60_000);

    for (const customer of customers) {
      const replies = repliesTo(customer).map(parseScriptedReply);
      // Latest-message-wins may merge turns, but every message is answered exactly once, in order.
      expect(replies.flatMap((reply) => reply.answered)).toEqual(messagesOf(customer));
      expect(replies.map((reply) => reply.count)).toEqual([...replies.map((reply) => reply.count)].sort((a, b) => a - b));
      expect(replies[replies.length - 1].count).toBe(4);
    }
    customers.filter((_customer, index) => patient(index)).forEach((customer) => expect(repliesTo(customer).map((text) => parseScriptedReply(text).count)).toEqual([1, 2, 3, 4]));
  });
});
