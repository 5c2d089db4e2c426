import { isUnreadFor, MAX_SEEN_MARKS, previewOf, seenMarkOf, withCustomerMessage } from '../../../lambda/core/domain/inbox-summary';
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

describe('unread marks, by operator', () => {
  const wrote = withCustomerMessage(session, { text: 'Oi' }, at);
  const later = '2026-12-01T12:05:00.000000Z';

  test('unread for an operator who never opened it, once the customer wrote; never before', () => {
    expect(isUnreadFor(session, 'ana')).toBe(false);
    expect(isUnreadFor(wrote, 'ana')).toBe(true);
    expect(seenMarkOf(session, 'ana')).toBeUndefined();
  });

  test("opening marks the customer's last message seen for that operator alone; a newer message is unread again", () => {
    const mark = seenMarkOf(wrote, 'ana')!;
    expect(mark).toEqual({ operatorPhone: 'ana', at });
    const seen = { ...wrote, seenBy: { ana: mark.at } };
    expect(isUnreadFor(seen, 'ana')).toBe(false);
    expect(isUnreadFor(seen, 'bruno')).toBe(true);
    // Nothing unread: nothing to write (an open conversation's polls cost no write).
    expect(seenMarkOf(seen, 'ana')).toBeUndefined();
    expect(isUnreadFor(withCustomerMessage(seen, { text: 'Ainda aí?' }, later), 'ana')).toBe(true);
  });

  test(`keeps at most ${MAX_SEEN_MARKS} operators: a new one pushes out the oldest mark`, () => {
    const seenBy = Object.fromEntries(Array.from({ length: MAX_SEEN_MARKS }, (_, index) => [`op${index}`, `2026-12-01T11:${String(10 + index).padStart(2, '0')}:00.000000Z`]));
    const full = { ...withCustomerMessage(session, { text: 'Oi' }, later), seenBy };
    expect(seenMarkOf(full, 'newcomer')).toEqual({ operatorPhone: 'newcomer', at: later, dropped: 'op0' });
    // One already marked replaces their own mark.
    expect(seenMarkOf(full, 'op5')).toEqual({ operatorPhone: 'op5', at: later });
  });
});
