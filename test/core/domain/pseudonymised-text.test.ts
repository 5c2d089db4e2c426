// The pseudonymiser of a customer's texts (docs/PRIVACY.md, "A conversation as a scenario"): names in
// any case, with or without accents, whole or in parts; the customer's own number however written;
// other phones, documents, cards and e-mail addresses; the rest of what the agent recorded.
import { MASKED, pseudonymiser, recordedIdentity } from '../../../lambda/core/domain/pseudonymised-text';

const customerId = '5511987654321';
const identity = { customerId, names: ['João da Silva', '~Bia 🌸'], recorded: { document_id: '123.456.789-09', company: 'Padaria Estrela', city: 'SP' } };
const pseudonymise = pseudonymiser(identity);

describe('names', () => {
  it.each([
    ['Oi, sou o João da Silva', 'Oi, sou o [name]'],
    ['meu nome é joão', 'meu nome é [name]'],
    ['JOÃO SILVA aqui', '[name] aqui'],
    ['Joao, tudo bem?', '[name], tudo bem?'],
    ['Silva, João.', '[name], [name].'],
    ['Assinado: joão\nda silva', 'Assinado: [name]'],
    ['A Bia vai passar aí', 'A [name] vai passar aí'],
    ['(joão)', '([name])'],
  ])('%j → %j', (text, expected) => {
    expect(pseudonymise(text)).toBe(expected);
  });

  it('masks whole words only, and not the particles between a name\'s words', () => {
    expect(pseudonymise('Joãozinho e Silvana da Bahia')).toBe('Joãozinho e Silvana da Bahia');
  });

  it('reads names from the recorded fields that hold one, and the profile name apart', () => {
    const recorded = recordedIdentity({ name: 'Ana', lastName: 'Souza', email: 'ana@x.io', document_id: '12345678909', deal_value: 1200 }, { nome: 'Aninha', sampleType: 'sangue' });
    expect(recorded).toEqual({ names: ['Ana', 'Souza', 'Aninha'], recorded: { email: 'ana@x.io', document_id: '12345678909' } });
    const masked = pseudonymiser({ customerId, ...recorded })('Ana aqui (Aninha pros íntimos), SOUZA de sobrenome; exame de sangue');
    expect(masked).toBe('[name] aqui ([name] pros íntimos), [name] de sobrenome; exame de sangue');
  });
});

describe('numbers', () => {
  it.each([
    ['5511987654321'],
    ['+55 11 98765-4321'],
    ['+55 (11) 98765-4321'],
    ['(11) 98765-4321'],
    ['11 987654321'],
    ['98765-4321'],
    ['98765 4321'],
    ['11.98765.4321'],
  ])('the customer\'s own number written %j is [phone]', (written) => {
    expect(pseudonymise(`me liga no ${written} depois`)).toBe(`me liga no ${MASKED.phone} depois`);
  });

  it('knows the number written with the ninth digit a Brazilian id leaves out', () => {
    expect(pseudonymiser({ customerId: '551187654321', names: [], recorded: {} })('meu zap: (11) 98765-4321')).toBe('meu zap: [phone]');
  });

  it('keeps a parenthesis the number did not open', () => {
    expect(pseudonymise('(liga: 11987654321)')).toBe('(liga: [phone])');
  });

  it.each([
    ['+1 (415) 555-0199', MASKED.number],
    ['4111 1111 1111 1111', MASKED.number],
    ['987.654.321-00', MASKED.number],
    ['12/05/1990', MASKED.number],
  ])('another long digit run %j is masked', (written, placeholder) => {
    expect(pseudonymise(`número ${written}.`)).toBe(`número ${placeholder}.`);
  });

  it('keeps short numbers: quantities, prices, a house number', () => {
    const text = 'Quero 2 exames por R$ 150,00 na rua 7 de Setembro, 1234, CEP 01310';
    expect(pseudonymise(text)).toBe(text);
  });

  it('masks the customer id that is no phone number as [customer]', () => {
    expect(pseudonymiser({ customerId: 'BR.1a2b3c4d5e', names: [], recorded: {} })('meu id é br.1A2B3C4D5E')).toBe('meu id é [customer]');
  });
});

describe('e-mail addresses and recorded data', () => {
  it('masks every e-mail address, a name inside one included', () => {
    expect(pseudonymise('Escreve pra joao.silva@exemplo.com.br ou contato@loja.io')).toBe('Escreve pra [email] ou [email]');
  });

  it('masks what the agent recorded by its field, case and accents ignored, and leaves values too short to mean anything', () => {
    expect(pseudonymise('CPF 123.456.789-09, trabalho na padaria estrela em SP')).toBe('CPF [document_id], trabalho na [company] em SP');
  });

  it('masks a recorded value that holds the customer\'s name as that value', () => {
    const masked = pseudonymiser({ ...identity, recorded: { company: 'Doces do João' } })('Sou o João, dono da Doces do Joao');
    expect(masked).toBe('Sou o [name], dono da [company]');
  });

  it('leaves a text that names nobody as it was', () => {
    const text = 'Qual o horário de atendimento? 😊';
    expect(pseudonymise(text)).toBe(text);
  });
});
