// A turn's expectations against what it did (docs/EVALUATION.md#expectations): each check fails
// with a line that names it, and holds when the turn did what it says.
import { expectationProblems, matchProblems, type TurnObservation } from '../../../lambda/core/domain/evaluation/expectations';
import { replyLanguage } from '../../../lambda/core/domain/evaluation/reply-language';

const turn = (change: Partial<TurnObservation> = {}): TurnObservation => ({
  replies: ['Olá! Uma pessoa vai continuar o atendimento com você.'],
  toolCalls: [{ name: 'request_human_handoff', input: { reason: 'The customer asked for a person.' } }],
  handedOff: true,
  learned: { cadastral: { name: 'Ana', email: 'ana@example.com' }, qualification: {}, segment: 'clínica' },
  ...change,
});

test('a turn that did everything its expectations say has no problem', () => {
  const expect_ = {
    toolsCalled: [{ name: 'request_human_handoff', input: { reason: { matches: 'person' } } }],
    toolsNotCalled: ['close_session'],
    handoff: true,
    learned: { cadastral: { email: { contains: '@example.com' } }, segment: 'clínica' },
    reply: { contains: ['PESSOA'], notContains: ['R$'], matches: 'continuar', maxLength: 80, inLanguage: true },
  };
  expect(expectationProblems(expect_, turn(), 'pt-BR')).toEqual([]);
});

test('each failed check is one line naming it', () => {
  const expect_ = {
    toolsCalled: [{ name: 'request_human_handoff', input: { reason: { matches: '^refund' } } }, { name: 'update_cadastral_data' }],
    toolsNotCalled: ['request_human_handoff'],
    handover: 'cadastro',
    handoff: false,
    learned: { cadastral: { email: 'other@example.com' } },
    reply: { contains: ['orçamento'], notContains: ['pessoa'], matches: '^Bom dia', maxLength: 10, inLanguage: true, none: true },
  };
  expect(expectationProblems(expect_, turn(), 'en')).toEqual([
    'toolsCalled: request_human_handoff was called, but not with that input (input.reason "The customer asked for a person." does not match /^refund/)',
    'toolsCalled: update_cadastral_data was not called (called: request_human_handoff)',
    'toolsNotCalled: request_human_handoff was called',
    'handover: the stage is none, not cadastro',
    'handoff: the conversation went to people',
    'learned.cadastral.email is "ana@example.com", not "other@example.com"',
    'reply.none: the turn replied',
    'reply.contains: no "orçamento" in "Olá! Uma pessoa vai continuar o atendimento com você."',
    'reply.notContains: "pessoa" in "Olá! Uma pessoa vai continuar o atendimento com você."',
    'reply.matches: "Olá! Uma pessoa vai continuar o atendimento com você." does not match /^Bom dia/',
    'reply.maxLength: 53 characters, over 10',
    'reply.inLanguage: the reply reads as pt-BR, not en',
  ]);
});

test('a turn without a reply fails reply.none: false and reads as no language', () => {
  expect(expectationProblems({ reply: { none: false, inLanguage: true } }, turn({ replies: [] }), 'es')).toEqual([
    'reply.none: the turn did not reply',
    'reply.inLanguage: the reply reads as no known language, not es',
  ]);
});

test('matchers: listed keys only, nested objects, texts by regex or substring, anything else by equality', () => {
  const input = { data: { email: 'ana@example.com', city: 'Recife' }, count: 2, tags: ['a', 'b'] };
  expect(matchProblems({ data: { email: { contains: 'EXAMPLE' } }, count: 2, tags: ['a', 'b'] }, input, 'input')).toEqual([]);
  expect(matchProblems({ data: { city: { matches: '^São' } }, count: 3, tags: ['b'], missing: 'x' }, input, 'input')).toEqual([
    'input.data.city "Recife" does not match /^São/',
    'input.count is 2, not 3',
    'input.tags is ["a","b"], not ["b"]',
    'input.missing is absent, not "x"',
  ]);
  expect(matchProblems({ count: { contains: '2' } }, input, 'input')).toEqual(['input.count is 2, not a text']);
});

test.each([
  ['Olá! Uma pessoa vai continuar o atendimento com você.', 'pt-BR'],
  ['Hello! A person will continue the conversation with you.', 'en'],
  ['¡Hola! Una persona va a continuar la atención con usted.', 'es'],
  ['👍 12345', undefined],
])('the reply %j reads as %s', (text, language) => {
  expect(replyLanguage(text)).toBe(language);
});
