import { checkInteractive } from '../../local/fake-whatsapp/fake-interactive';

const reply = (id: string, title: string) => ({ type: 'reply', reply: { id, title } });
const buttons = (...titles: string[]) => ({ type: 'button', body: { text: 'Qual?' }, action: { buttons: titles.map((title, index) => reply(`b${index}`, title)) } });
const list = (rows: ReadonlyArray<{ id: string; title: string; description?: string }>, button = 'Ver') => ({ type: 'list', body: { text: 'Qual?' }, action: { button, sections: [{ title: 'Exames', rows }] } });

it("accepts Meta's documented shapes within its limits", () => {
  expect(checkInteractive(buttons('Sim', 'Não', 'Talvez'))).toMatchObject({ type: 'button' });
  expect(checkInteractive(list(Array.from({ length: 10 }, (_, index) => ({ id: `r${index}`, title: 'x'.repeat(24), description: 'd'.repeat(72) }))))).toMatchObject({ type: 'list' });
  expect(checkInteractive({ type: 'cta_url', body: { text: 'Pedido' }, action: { name: 'cta_url', parameters: { display_text: 'Acompanhar', url: 'https://example.com/p' } } })).toMatchObject({ type: 'cta_url' });
});

it.each([
  ['four buttons', buttons('a', 'b', 'c', 'd')],
  ['a button title of 21 characters', buttons('x'.repeat(21))],
  ['a body of 1025 characters', { ...buttons('Sim'), body: { text: 'x'.repeat(1025) } }],
  ['eleven rows', list(Array.from({ length: 11 }, (_, index) => ({ id: `r${index}`, title: 'Linha' })))],
  ['a row title of 25 characters', list([{ id: 'a', title: 'x'.repeat(25) }])],
  ['a row description of 73 characters', list([{ id: 'a', title: 'A', description: 'x'.repeat(73) }])],
  ['a list button of 21 characters', list([{ id: 'a', title: 'A' }], 'x'.repeat(21))],
  ['a footer of 61 characters', { ...buttons('Sim'), footer: { text: 'x'.repeat(61) } }],
  ['a display text of 21 characters', { type: 'cta_url', body: { text: 'Pedido' }, action: { name: 'cta_url', parameters: { display_text: 'x'.repeat(21), url: 'https://example.com' } } }],
])('refuses %s with 131009, as Meta does', (_what, interactive) => {
  expect(checkInteractive(interactive)).toMatchObject({ code: 131009, message: '(#131009) Parameter value is not valid' });
});

it('refuses an unknown interactive type as an invalid parameter (100)', () => {
  expect(checkInteractive({ type: 'carousel', body: { text: 'x' } })).toMatchObject({ code: 100 });
});
