import {
  INTERACTIVE_LIMITS as L,
  type InteractiveReply,
  interactiveAsText,
  interactiveProblems,
  parseInteractiveReply,
  shownReply,
} from '../../../lambda/core/domain/interactive-reply';

const text = (length: number) => 'x'.repeat(length);
const buttons = (...titles: string[]): InteractiveReply => ({ kind: 'buttons', buttons: titles.map((title, index) => ({ id: `b${index}`, title })) });
const list = (rows: number, row: Partial<{ title: string; description: string; id: string }> = {}): InteractiveReply => ({
  kind: 'list',
  button: 'Ver opções',
  sections: [{ rows: Array.from({ length: rows }, (_, index) => ({ id: row.id ?? `r${index}`, title: row.title ?? `Linha ${index}`, ...(row.description === undefined ? {} : { description: row.description }) })) }],
});

describe("WhatsApp's limits, each at its edge", () => {
  // [what, within the limit, one past it]
  const cases: Array<[string, [string, InteractiveReply], [string, InteractiveReply]]> = [
    ['body', [text(L.body), buttons('Sim')], [text(L.body + 1), buttons('Sim')]],
    ['buttons', ['b', buttons('a', 'b', 'c')], ['b', buttons('a', 'b', 'c', 'd')]],
    ['button title', ['b', buttons(text(L.buttonTitle))], ['b', buttons(text(L.buttonTitle + 1))]],
    ['button id', ['b', { kind: 'buttons', buttons: [{ id: text(L.buttonId), title: 'Sim' }] }], ['b', { kind: 'buttons', buttons: [{ id: text(L.buttonId + 1), title: 'Sim' }] }]],
    ['header', ['b', { ...buttons('Sim'), header: text(L.header) }], ['b', { ...buttons('Sim'), header: text(L.header + 1) }]],
    ['footer', ['b', { ...buttons('Sim'), footer: text(L.footer) }], ['b', { ...buttons('Sim'), footer: text(L.footer + 1) }]],
    ['rows in all', ['b', list(L.rows)], ['b', list(L.rows + 1)]],
    ['row title', ['b', list(1, { title: text(L.rowTitle) })], ['b', list(1, { title: text(L.rowTitle + 1) })]],
    ['row description', ['b', list(1, { description: text(L.rowDescription) })], ['b', list(1, { description: text(L.rowDescription + 1) })]],
    ['row id', ['b', list(1, { id: text(L.rowId) })], ['b', list(1, { id: text(L.rowId + 1) })]],
    ['list button', ['b', { ...list(1), button: text(L.listButton) } as InteractiveReply], ['b', { ...list(1), button: text(L.listButton + 1) } as InteractiveReply]],
    [
      'section title',
      ['b', { kind: 'list', button: 'Ver', sections: [{ title: text(L.sectionTitle), rows: [{ id: 'a', title: 'A' }] }] }],
      ['b', { kind: 'list', button: 'Ver', sections: [{ title: text(L.sectionTitle + 1), rows: [{ id: 'a', title: 'A' }] }] }],
    ],
    ['cta display text', ['b', { kind: 'cta_url', displayText: text(L.displayText), url: 'https://example.com/a' }], ['b', { kind: 'cta_url', displayText: text(L.displayText + 1), url: 'https://example.com/a' }]],
  ];
  it.each(cases)('%s', (_what, [body, within], [overBody, over]) => {
    expect(interactiveProblems(body, within)).toEqual([]);
    expect(interactiveProblems(overBody, over)).toHaveLength(1);
  });

  it('counts characters, not UTF-16 units: 20 emoji are a valid button title', () => {
    expect(interactiveProblems('b', buttons('👍'.repeat(20)))).toEqual([]);
  });

  it('refuses what WhatsApp refuses besides lengths', () => {
    expect(interactiveProblems('b', buttons('Sim', 'Sim'))).toContain('button titles must differ');
    expect(interactiveProblems('b', { kind: 'list', button: 'Ver', sections: [{ rows: [{ id: 'a', title: 'A' }] }, { rows: [{ id: 'a', title: 'B' }] }] })).toEqual(
      expect.arrayContaining(['a section title is required', 'row ids must differ']),
    );
    expect(interactiveProblems('b', { kind: 'cta_url', displayText: 'Abrir', url: 'javascript:alert(1)' })).toEqual(['the url must be an http(s) address']);
  });
});

describe('the plain-text fallback', () => {
  it('keeps the body and every option, the link after its text', () => {
    expect(interactiveAsText('Qual coleta?', { ...buttons('Sangue', 'Urina'), header: 'Coleta', footer: 'Responda com um toque' })).toBe('Coleta\nQual coleta?\n\n• Sangue\n• Urina\n\nResponda com um toque');
    expect(interactiveAsText('Exames:', { kind: 'list', button: 'Ver', sections: [{ title: 'Sangue', rows: [{ id: 'h', title: 'Hemograma', description: 'Em jejum' }] }] })).toBe('Exames:\n\nSangue:\n• Hemograma — Em jejum');
    expect(interactiveAsText('Seu pedido:', { kind: 'cta_url', displayText: 'Acompanhar', url: 'https://example.com/p/1' })).toBe('Seu pedido:\n\nAcompanhar: https://example.com/p/1');
  });

  it('is what an over-limit reply is sent as, with no interactive part left', () => {
    const over = buttons('a', 'b', 'c', 'd');
    expect(shownReply('Escolha', over)).toEqual({ text: interactiveAsText('Escolha', over), outcome: 'text_fallback' });
    expect(shownReply('Escolha', buttons('a'))).toEqual({ text: 'Escolha', interactive: buttons('a'), outcome: 'interactive' });
    expect(shownReply('Escolha', undefined)).toEqual({ text: 'Escolha' });
  });
});

describe('reading choices from JSON', () => {
  it('reads each kind, and only the known fields', () => {
    expect(parseInteractiveReply({ kind: 'buttons', buttons: [{ id: 'a', title: 'A', extra: 1 }], footer: 'f' })).toEqual({ interactive: { kind: 'buttons', buttons: [{ id: 'a', title: 'A' }], footer: 'f' } });
    expect(parseInteractiveReply({ kind: 'cta_url', displayText: 'Abrir', url: 'https://example.com' })).toEqual({ interactive: { kind: 'cta_url', displayText: 'Abrir', url: 'https://example.com' } });
  });

  it('names what is malformed, and never throws', () => {
    expect(parseInteractiveReply(null)).toEqual({ problems: ['interactive must be an object'] });
    expect(parseInteractiveReply({ kind: 'carousel' })).toEqual({ problems: ['kind must be one of buttons, list, cta_url'] });
    expect(parseInteractiveReply({ kind: 'list', button: 'Ver', sections: [{ rows: [{ id: 1 }] }] })).toEqual({ problems: ['sections[0].rows[0].id must be a non-empty string', 'sections[0].rows[0].title must be a non-empty string'] });
  });
});
