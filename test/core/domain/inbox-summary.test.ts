import { previewOf, withCustomerMessage } from '../../../lambda/core/domain/inbox-summary';
import type { Session } from '../../../lambda/core/domain/session';
import { applyActions } from '../../../lambda/core/domain/turn';

const at = '2026-12-01T12:00:00.000000Z';
const session: Session = { sessionId: 's1', customerId: '5511999990000', state: 'QUALIFYING', qualificationData: {}, cadastralData: {}, handoffRenotifyCount: 0, createdAt: at, updatedAt: at };

describe('previewOf', () => {
  test('keeps a short text whole, its whitespace flattened', () => {
    expect(previewOf('  Olá,\n\ntudo  bem? ')).toBe('Olá, tudo bem?');
  });

  test('cuts a long text on the last word boundary, with an ellipsis', () => {
    expect(previewOf('uma frase comprida demais para caber', 20)).toBe('uma frase comprida…');
    expect([...previewOf('palavra '.repeat(40))].length).toBeLessThanOrEqual(120);
    expect(previewOf('palavra '.repeat(40)).endsWith('palavra…')).toBe(true);
  });

  test('cuts a text without spaces at the bound, never inside a surrogate pair', () => {
    expect(previewOf('x'.repeat(30), 10)).toBe(`${'x'.repeat(9)}…`);
    expect(previewOf('😀'.repeat(30), 10)).toBe(`${'😀'.repeat(9)}…`);
  });
});

describe('what a row says, kept on the session', () => {
  test("the customer's last message and profile name; a message without a name keeps the one known", () => {
    const named = withCustomerMessage(session, { text: 'Quero marcar um exame', profileName: 'Maria' }, at);
    expect(named).toMatchObject({ profileName: 'Maria', lastCustomerMessage: { preview: 'Quero marcar um exame', at } });
    expect(withCustomerMessage(named, { text: 'Amanhã?' }, at)).toMatchObject({ profileName: 'Maria', lastCustomerMessage: { preview: 'Amanhã?' } });
  });

  test("a handoff keeps the agent's reason, bounded", () => {
    expect(applyActions(session, [{ type: 'request_human_handoff', reason: 'Pediu um orçamento' }], at)).toMatchObject({ state: 'AWAITING_HUMAN', handoffReason: 'Pediu um orçamento' });
    expect([...applyActions(session, [{ type: 'request_human_handoff', reason: 'motivo '.repeat(200) }], at).handoffReason!].length).toBeLessThanOrEqual(500);
  });
});
