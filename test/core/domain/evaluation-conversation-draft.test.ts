// A conversation drafted as a scenario (docs/EVALUATION.md, "From a real conversation"): one turn
// per customer message in order, of each kind; the latest 20 when there were more, said so; the
// business's texts, what the agent learned and the customer's identity left out; whatever the
// conversation, the draft follows the file format.
import { parseScenarios } from '../../../lambda/core/application/evaluation/scenario-format';
import { draftScenario, SCENARIO_MAX_TURNS, type ConversationRecord } from '../../../lambda/core/domain/evaluation/conversation-draft';
import type { Message } from '../../../lambda/core/domain/message';
import { newSession } from '../../support/domain-records';

const customerId = '5511987654321';
const pseudonym = 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2';
const session = newSession(customerId, { createdAt: '2026-11-30T14:00:00.000000Z', profileName: 'Carla Souza', currentAgent: undefined, cadastralData: { name: 'Carla Beatriz Souza', document_id: '123.456.789-09' }, qualificationData: { exam: 'hemograma' } });
let clock = 0;

function message(fields: Partial<Message> & Pick<Message, 'role' | 'text'>): Message {
  clock += 1;
  const inbound = fields.role === 'user';
  return { customerId, sessionId: session.sessionId, messageId: `m-${clock}`, direction: inbound ? 'inbound' : 'outbound', timestamp: `2026-11-30T14:${String(clock).padStart(2, '0')}:00.000000Z`, messageType: 'text', ...fields };
}
const customerSays = (text: string, fields: Partial<Message> = {}) => message({ role: 'user', text, ...fields });
const agentSays = (text: string, fields: Partial<Message> = {}) => message({ role: 'assistant', text, ...fields });

const draft = (messages: readonly Message[], record: Partial<ConversationRecord> = {}) => draftScenario({ session, messages, ...record }, { locale: 'pt-BR', pseudonym });
/** The draft as a scenario file the runner reads: it must parse. */
const parsed = (scenario: unknown) => parseScenarios([{ file: 'drafted.json', text: JSON.stringify(scenario) }])[0];

it('makes one turn of each customer message, in order and by kind, and none of the business\'s messages', () => {
  const messages = [
    customerSays('Oi, sou a Carla, meu número é 11 98765-4321'),
    agentSays('Olá Carla! Escolha uma opção', { interactive: { kind: 'buttons', buttons: [{ id: 'exame', title: 'Marcar exame' }] } }),
    customerSays('Marcar exame', { messageType: 'interactive', choiceId: 'exame' }),
    agentSays('Qual unidade?', { interactive: { kind: 'list', button: 'Unidades', sections: [{ rows: [{ id: 'unidade-centro', title: 'Centro' }] }] } }),
    customerSays('Centro', { messageType: 'interactive', choiceId: 'unidade-centro' }),
    customerSays('[image] pedido.jpg Pedido da Carla Souza', { messageType: 'image', media: { kind: 'image', providerMediaId: 'media-1', filename: 'pedido-carla-souza.jpg', caption: 'Pedido da Carla Souza', state: 'stored' } }),
    customerSays('[audio]', { messageType: 'audio', media: { kind: 'audio', providerMediaId: 'media-2', voice: true, state: 'stored' } }),
    message({ role: 'operator', text: 'Oi Carla, aqui é a Bia', operatorPhone: '5511900000000' }),
    customerSays('Quero falar com alguém', { messageType: 'button' }),
    customerSays('[location] Casa Rua das Flores, 10 (-23.5505, -46.6333)', { messageType: 'location' }),
    customerSays('[contact] Beto Souza; 5511912345678', { messageType: 'contacts' }),
    customerSays('', { revokedAt: '2026-11-30T15:00:00.000000Z' }),
    customerSays('[flow] cadastro\nnome_completo: Carla Souza\nendereco: Rua das Flores, 10\nobservação longa\nque continua', { messageType: 'interactive' }),
  ];
  const scenario = draft(messages)!;
  expect(parsed(scenario)).toEqual(scenario);
  expect(scenario.turns).toEqual([
    { customer: { text: 'Oi, sou a [name], meu número é [phone]' } },
    { customer: { tap: { kind: 'button', id: 'exame', title: 'Marcar exame' } } },
    { customer: { tap: { kind: 'list', id: 'unidade-centro', title: 'Centro' } } },
    { customer: { media: { kind: 'image', caption: 'Pedido da [name]' } } },
    { customer: { media: { kind: 'audio' } } },
    { customer: { tap: { kind: 'button', title: 'Quero falar com alguém' } } },
    { customer: { text: '[location]' } },
    { customer: { text: '[contacts]' } },
    { customer: { text: '[flow] cadastro\nnome_completo: [value]\nendereco: [value]' } },
  ]);
});

it('names the scenario by the conversation\'s day and the audit\'s pseudonym, and says where it came from without naming the customer', () => {
  const scenario = draft([customerSays('Oi')])!;
  expect(scenario).toMatchObject({ formatVersion: 1, name: 'conversation-20261130-a1b2c3d4', start: { locale: 'pt-BR' } });
  expect(scenario.description).toContain('Drafted from a conversation of 2026-11-30 (customer a1b2c3d4 in the admin audit)');
  expect(scenario.start).toEqual({ locale: 'pt-BR' });
  expect(JSON.stringify(scenario)).not.toMatch(/Carla|Souza|98765|5511|123\.456/);
});

it('keeps the latest 20 customer messages of a longer conversation, and says so', () => {
  const messages = Array.from({ length: SCENARIO_MAX_TURNS + 3 }, (_, index) => [customerSays(`mensagem ${index + 1}`), agentSays(`resposta ${index + 1}`)]).flat();
  const scenario = parsed(draft(messages));
  expect(scenario.turns).toHaveLength(20);
  expect(scenario.turns[0]).toEqual({ customer: { text: 'mensagem 4' } });
  expect(scenario.turns[19]).toEqual({ customer: { text: 'mensagem 23' } });
  expect(scenario.description).toContain('Only its latest 20 customer messages are here');
  expect(draft(messages.slice(-40))!.description).not.toContain('Only its latest');
  // Messages that stop short of the conversation's first say so too.
  expect(draft(messages.slice(-6), { partial: true })!.description).toContain('Only its latest 3 customer messages are here; the earlier ones were left out.');
});

it('says at which stage the conversation ended; the scenario starts at the entry stage, where every conversation starts', () => {
  const scenario = draft([customerSays('Oi')], { session: { ...session, currentAgent: 'cadastro' } })!;
  expect(scenario.description).toContain('At the end it was at the stage cadastro.');
  expect(scenario.start).toEqual({ locale: 'pt-BR' });
  // A stage name no scenario could name is not one to suggest; the description stays within its 1,000 characters.
  const oddStage = draft([customerSays('Oi')], { session: { ...session, currentAgent: `Stage ${'x'.repeat(900)}` } })!;
  expect(oddStage.description).not.toContain('At the end');
  expect(parsed(oddStage)).toEqual(oddStage);
});

it('fits the format\'s bounds whatever the customer sent: a text at its most, masked longer; a title cut to 24', () => {
  // 4,095 characters, as many as WhatsApp lets a customer write; 4,680 once each name is masked.
  const long = 'Carla, '.repeat(585);
  const scenario = parsed(draft([customerSays(long), customerSays('Carla Carla Carla Carla Carla!', { messageType: 'interactive', choiceId: 'x' })]));
  const text = scenario.turns[0].customer.text!;
  expect(text.length).toBeLessThanOrEqual(4096);
  expect(text.length).toBeGreaterThan(4090);
  expect(text.startsWith('[name], [name], ')).toBe(true);
  expect(scenario.turns[1].customer.tap).toEqual({ id: 'x', title: '[name]!' });
  const titled = parsed(draft([customerSays('Um título de opção bem comprido demais', { messageType: 'interactive', choiceId: 'y' })]));
  expect(titled.turns[0].customer.tap).toEqual({ id: 'y', title: 'Um título de opção bem c' });
});

it('drafts nothing from a conversation without a message of the customer\'s to play', () => {
  expect(draft([])).toBeUndefined();
  expect(draft([agentSays('Olá!'), customerSays('', { revokedAt: '2026-11-30T15:00:00.000000Z' }), customerSays('   ')])).toBeUndefined();
});
