// The protocol rules that live in the domain, checked without a table.
import { advancedWatermark, placeInHistory, type InboundReceipt } from '../../../lambda/core/domain/inbound-receipt';
import { routesToAgent } from '../../../lambda/core/domain/inbound-routing';
import { SESSION_STATES, SessionState } from '../../../lambda/core/domain/session';
import { applyActions, completionsAfter, demandsOfTurn, isStillDeliverable, MAX_QUALIFICATION_BYTES, MAX_QUALIFICATION_KEYS, newest } from '../../../lambda/core/domain/turn';
import { inboundTurn, newSession } from '../../support/domain-records';
import { newCustomer } from '../../support/ids';

function receipt(overrides: Partial<InboundReceipt> & { providerTimestamp?: string } = {}): InboundReceipt {
  const { providerTimestamp = '2026-03-10T11:59:00.000000Z', ...rest } = overrides;
  return {
    turn: inboundTurn('5511999990000', { providerTimestamp }),
    registeredAt: '2026-03-10T12:00:00.000000Z',
    expiresAtEpochSeconds: 0,
    agentRoutedAt: '2026-03-10T12:00:00.000000Z',
    ...rest,
  };
}

describe('routing', () => {
  test('the agent answers without a session and in every state a human does not own', () => {
    expect(routesToAgent(undefined)).toBe(true);
    expect(SESSION_STATES.filter((state) => !routesToAgent(state))).toEqual([SessionState.AWAITING_HUMAN, SessionState.HUMAN_ACTIVE]);
    // Opt-out and opt-in words reach the turn whoever owns the conversation; other text does not.
    expect(SESSION_STATES.filter((state) => !routesToAgent(state, ' Parar! '))).toEqual([]);
    expect(SESSION_STATES.filter((state) => !routesToAgent(state, 'VOLTAR'))).toEqual([]);
    expect(SESSION_STATES.filter((state) => !routesToAgent(state, 'não quero parar'))).toEqual([SessionState.AWAITING_HUMAN, SessionState.HUMAN_ACTIVE]);
  });
});

describe('the pending list', () => {
  test('places messages in list order, 1 µs after the watermark or the previous one when the provider clock ties or regresses', () => {
    const placed = placeInHistory(
      [receipt({ providerTimestamp: '2026-03-10T11:00:00.000000Z' }), receipt({ providerTimestamp: '2026-03-10T10:00:00.000000Z' }), receipt({ providerTimestamp: '2026-03-10T13:00:00.000000Z' })],
      '2026-03-10T12:00:00.000000Z',
    );
    expect(placed.map((turn) => turn.historyTimestamp)).toEqual(['2026-03-10T12:00:00.000001Z', '2026-03-10T12:00:00.000002Z', '2026-03-10T13:00:00.000000Z']);
  });

  test('leaves out what is not the agent’s to drain, and keeps a redriven message’s place', () => {
    const redriven = receipt({ historyTimestamp: '2026-03-10T09:00:00.000000Z' });
    const drained = placeInHistory(
      [receipt({ agentRoutedAt: undefined }), receipt({ humanRoutedAt: 'x' }), receipt({ completedAt: 'x' }), receipt({ deadLetteredAt: 'x' }), receipt({ syncClaimedAt: 'x' }), redriven],
      undefined,
    );
    expect(drained.map((turn) => [turn.messageId, turn.historyTimestamp])).toEqual([[redriven.turn.messageId, '2026-03-10T09:00:00.000000Z']]);
  });

  test('the watermark only moves forward', () => {
    expect(advancedWatermark(undefined, [])).toBeUndefined();
    expect(advancedWatermark('2026-03-10T12:00:00.000000Z', [{ customerId: 'c', messageId: 'm', historyTimestamp: '2026-03-10T11:00:00.000000Z' }])).toBe('2026-03-10T12:00:00.000000Z');
    expect(advancedWatermark('2026-03-10T12:00:00.000000Z', [{ customerId: 'c', messageId: 'm', historyTimestamp: '2026-03-10T13:00:00Z' }])).toBe('2026-03-10T13:00:00.000000Z');
  });
});

describe('the turn', () => {
  const customerId = newCustomer();
  const pending = [
    { ...inboundTurn(customerId), historyTimestamp: '2026-03-10T12:00:00.000000Z' },
    { ...inboundTurn(customerId), historyTimestamp: '2026-03-10T12:00:00.000002Z' },
    { ...inboundTurn(customerId), historyTimestamp: '2026-03-10T12:00:00.000001Z' },
  ];

  test('answers the newest message by history and ends the watermark at the reply', () => {
    expect(newest(pending)).toBe(pending[1]);
    const completions = completionsAfter(pending, '2026-03-10T12:00:01.000000Z');
    expect(completions.map((completion) => completion.historyTimestamp)).toEqual(['2026-03-10T12:00:00.000000Z', '2026-03-10T12:00:00.000002Z', '2026-03-10T12:00:01.000000Z']);
  });

  test('the first answer qualifies a new session; a handoff after closing is dropped', () => {
    const at = '2026-03-10T12:00:05.000000Z';
    expect(applyActions(newSession(customerId, { state: SessionState.NEW }), [], at).state).toBe(SessionState.QUALIFYING);
    const closed = applyActions(newSession(customerId, { state: SessionState.QUALIFYING }), [{ type: 'close_session', reason: 'done' }, { type: 'request_human_handoff', reason: 'late' }], at);
    expect(closed).toMatchObject({ state: SessionState.CLOSED, closedAt: at });
    expect(closed.handoffRequestedAt).toBeUndefined();
  });

  test('what the agent learned and a handover are recorded on the session; registration data merges field by field', () => {
    const at = '2026-03-10T12:00:05.000000Z';
    const session = newSession(customerId, { state: SessionState.QUALIFYING, cadastralData: { name: 'Ana', legacy_field: 'kept' } });
    const updated = applyActions(
      session,
      [
        { type: 'update_cadastral_data', data: { email: 'ana@exemplo.com' } },
        { type: 'update_cadastral_data', data: { name: 'Ana Souza' } },
        { type: 'set_segment', segment: 'clínica' },
        { type: 'set_intent', intent: 'orçamento' },
        { type: 'handover_to_agent', agent: 'cadastro', reason: 'dados' },
        { type: 'set_segment', segment: 'laboratório' },
      ],
      at,
    );
    expect(updated).toMatchObject({
      cadastralData: { name: 'Ana Souza', email: 'ana@exemplo.com', legacy_field: 'kept' },
      segment: 'laboratório',
      intent: 'orçamento',
      currentAgent: 'cadastro',
      state: SessionState.QUALIFYING,
    });
  });

  test('qualification data stays bounded in fields and bytes, whatever the agent sends; corrections still apply', () => {
    const at = '2026-03-10T12:00:05.000000Z';
    const update = (data: Record<string, string>) => ({ type: 'update_qualification' as const, data });
    const large = Object.fromEntries(Array.from({ length: 20 }, (_, index) => [`field_${index}`, 'x'.repeat(500)]));
    let session = newSession(customerId, { state: SessionState.QUALIFYING });
    for (let turn = 0; turn < 10; turn++) {
      session = applyActions(session, [update(Object.fromEntries(Object.entries(large).map(([key, value]) => [`${key}_${turn}`, value])))], at);
    }

    const fields = Object.entries(session.qualificationData);
    expect(fields.length).toBeLessThanOrEqual(MAX_QUALIFICATION_KEYS);
    expect(fields.reduce((total, [key, value]) => total + key.length + String(value).length, 0)).toBeLessThanOrEqual(MAX_QUALIFICATION_BYTES);
    const corrected = applyActions(session, [update({ [fields[0][0]]: 'short' })], at);
    expect(corrected.qualificationData[fields[0][0]]).toBe('short');
  });

  test('at most five demands of one turn are recorded', () => {
    const demand = (index: number) => ({ type: 'record_out_of_portfolio_demand' as const, requestedService: `service ${index}` });

    expect(demandsOfTurn(Array.from({ length: 50 }, (_, index) => demand(index)))).toEqual([0, 1, 2, 3, 4].map(demand));
  });

  test('a persisted reply is not delivered once a human took over after it was written', () => {
    const session = newSession(customerId, { state: SessionState.AWAITING_HUMAN, updatedAt: '2026-03-10T12:00:02.000000Z' });
    const latest = { customerId, latestMessageId: 'wamid.A', pendingMessageIds: [] };
    const outbox = { ref: { customerId, sortKey: 'MSG#x' }, replyToMessageId: 'wamid.A' };
    const reply = { customerId, sessionId: session.sessionId, messageId: 'r', direction: 'outbound' as const, role: 'assistant' as const, text: 'oi', timestamp: '2026-03-10T12:00:01.000000Z' };
    expect(isStillDeliverable(latest, outbox, reply, session)).toBe(false);
    expect(isStillDeliverable(latest, outbox, reply, { ...session, state: SessionState.QUALIFYING })).toBe(true);
    expect(isStillDeliverable({ ...latest, latestMessageId: 'wamid.B' }, outbox, reply, { ...session, state: SessionState.QUALIFYING })).toBe(false);
  });
});
