// Buttons and lists end to end on both channels: the agent answers with reply buttons or a list, the
// fake Graph API (behind the fake End User Messaging on that channel) checks the interactive message
// against Meta's limits and records it, the customer's tap comes back as the next turn with the
// option's title and id, and choices beyond a limit reach the customer as text with nothing lost.
import { ScriptedAgent } from '../../lambda/core/adapters/agent/scripted-agent';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { LOCAL_BUSINESS } from '../../local/runtime/meta-notification';
import { newCustomer } from '../support/ids';
import { CHANNELS, startTestPipeline } from '../support/pipeline';
import { waitUntil } from '../support/waiting';

describe.each(CHANNELS)('interactive replies on %s', (channel) => {
  let pipeline: LocalPipeline;
  const agent = new ScriptedAgent();

  beforeAll(async () => {
    pipeline = await startTestPipeline({ channel, agent, queue: { visibilityTimeoutSeconds: 1 } });
  });
  afterAll(() => pipeline.stop());

  const sentTo = (customer: string) => pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === customer);

  async function ask(customer: string, text: string, replies: number): Promise<void> {
    await pipeline.sendCustomerMessage(customer, text);
    await waitUntil(() => sentTo(customer).length >= replies, 20_000, `reply ${replies} to ${customer}`);
    await pipeline.waitForIdle();
  }

  /** The customer taps an option of the interactive message `wamid`, as Meta's webhook says it. */
  async function tap(customer: string, wamid: string, reply: { readonly type: 'button_reply' | 'list_reply'; readonly id: string; readonly title: string }, replies: number): Promise<void> {
    const content = { type: 'interactive', interactive: { type: reply.type, [reply.type]: { id: reply.id, title: reply.title } }, context: { from: LOCAL_BUSINESS.displayPhoneNumber, id: wamid } };
    expect((await pipeline.sendCustomerContent(customer, content)).status).toBe(200);
    await waitUntil(() => sentTo(customer).length >= replies, 20_000, `reply ${replies} to ${customer}`);
    await pipeline.waitForIdle();
  }

  it('reply buttons reach Meta within its limits, are stored as sent, and the tap comes back as a turn the agent answers', async () => {
    const customer = newCustomer();
    await ask(customer, 'Qual coleta? #botoes Sangue | Urina | Saliva', 1);

    const [buttons] = sentTo(customer);
    expect(buttons.interactive).toMatchObject({
      type: 'button',
      body: { text: buttons.text },
      action: { buttons: [{ type: 'reply', reply: { id: 'opcao-1', title: 'Sangue' } }, { type: 'reply', reply: { id: 'opcao-2', title: 'Urina' } }, { type: 'reply', reply: { id: 'opcao-3', title: 'Saliva' } }] },
    });
    const stored = (await pipeline.conversation(customer)).history.find((message) => message.role === 'assistant');
    expect(stored).toMatchObject({ deliveryStatus: 'sent', interactive: { kind: 'buttons', buttons: [{ id: 'opcao-1', title: 'Sangue' }, { id: 'opcao-2', title: 'Urina' }, { id: 'opcao-3', title: 'Saliva' }] } });

    await tap(customer, buttons.providerMessageId, { type: 'button_reply', id: 'opcao-2', title: 'Urina' }, 2);

    const chosen = agent.requests.at(-1)!.history.at(-1)!;
    expect(chosen.role).toBe('customer');
    expect(chosen.text).toContain('Urina\n[chose option id: opcao-2]');
    // The quoted message is the buttons message, as the customer saw it.
    expect(chosen.text).toMatch(/^> .*• Sangue/);
    expect(sentTo(customer)[1].interactive).toBeUndefined();
    const tapped = (await pipeline.conversation(customer)).history.find((message) => message.role === 'user' && message.choiceId !== undefined);
    expect(tapped).toMatchObject({ text: 'Urina', choiceId: 'opcao-2', messageType: 'interactive' });
  });

  it('a list of rows reaches Meta within its limits and the chosen row comes back as a turn', async () => {
    const customer = newCustomer();
    await ask(customer, 'Quais exames? #lista Hemograma | Glicemia | TSH | Vitamina D', 1);

    const [list] = sentTo(customer);
    expect(list.interactive).toMatchObject({ type: 'list', action: { button: 'Ver opções', sections: [{ rows: expect.arrayContaining([{ id: 'opcao-4', title: 'Vitamina D' }]) }] } });
    expect(list.interactive?.action.sections?.[0].rows).toHaveLength(4);

    await tap(customer, list.providerMessageId, { type: 'list_reply', id: 'opcao-3', title: 'TSH' }, 2);
    expect(sentTo(customer)[1].text).toContain('TSH\n[chose option id: opcao-3]');
  });

  it('choices beyond a WhatsApp limit go as plain text with every option in it: nothing is lost', async () => {
    const customer = newCustomer();
    await ask(customer, 'Horários? #botoes Manhã cedo | Tarde | Noite | Madrugada de sábado', 1);

    const [reply] = sentTo(customer);
    expect(reply.interactive).toBeUndefined();
    for (const option of ['• Manhã cedo', '• Tarde', '• Noite', '• Madrugada de sábado']) expect(reply.text).toContain(option);
    const stored = (await pipeline.conversation(customer)).history.find((message) => message.role === 'assistant');
    expect(stored?.interactive).toBeUndefined();
    expect(stored?.text).toBe(reply.text);
  });

  it('buttons whose send failed are sent again identically on the retry, without asking the agent again', async () => {
    const customer = newCustomer();
    const callsBefore = agent.calls;
    pipeline.fakeWhatsApp.failNext(1, { httpStatus: 503, code: 2, message: 'Service temporarily unavailable or down.' });
    await ask(customer, 'Confirma? #botoes Sim | Não', 1);

    expect(agent.calls - callsBefore).toBe(1);
    expect(sentTo(customer)).toHaveLength(1);
    expect(sentTo(customer)[0].interactive?.action.buttons?.map((button) => button.reply.title)).toEqual(['Sim', 'Não']);
  });
});
