import { conversationRefusal, permittedActions } from '../../../../lib/contract/conversation-access';

const ana = { phone: '5511900000002', role: 'operator' as const };
const bruno = { phone: '5511900000003', role: 'operator' as const };
const admin = { phone: '5511900000001', role: 'admin' as const };

describe('who may do what with a conversation (one rule for the API and the console)', () => {
  it.each([
    ['bruno', { state: 'NEW' as const }, [], bruno],
    ['bruno', { state: 'QUALIFYING' as const }, [], bruno],
    ['bruno', { state: 'AWAITING_HUMAN' as const }, ['read', 'claim'], bruno],
    ['bruno', { state: 'HUMAN_ACTIVE' as const, assignedTo: ana.phone }, [], bruno],
    ['ana', { state: 'HUMAN_ACTIVE' as const, assignedTo: ana.phone }, ['read', 'reply', 'release', 'close'], ana],
    ['bruno', { state: 'CLOSED' as const }, [], bruno],
    ['admin', { state: 'NEW' as const }, ['read', 'takeOver', 'close'], admin],
    ['admin', { state: 'QUALIFYING' as const }, ['read', 'takeOver', 'close'], admin],
    ['admin', { state: 'AWAITING_HUMAN' as const }, ['read', 'claim', 'release', 'close'], admin],
    ['admin', { state: 'HUMAN_ACTIVE' as const, assignedTo: ana.phone }, ['read', 'release', 'close'], admin],
    ['admin', { state: 'HUMAN_ACTIVE' as const, assignedTo: admin.phone }, ['read', 'reply', 'release', 'close'], admin],
    ['admin', { state: 'CLOSED' as const }, ['read'], admin],
  ])('%s, on %j, may do exactly %j', (_who, conversation, actions, actor) => {
    expect(permittedActions(actor, conversation)).toEqual(actions);
  });

  it('says who has a conversation another person has, whatever the refused action', () => {
    const anas = { state: 'HUMAN_ACTIVE' as const, assignedTo: ana.phone };
    for (const action of ['read', 'claim', 'reply', 'release', 'close'] as const) {
      expect(conversationRefusal(bruno, anas, action)).toMatchObject({ code: 'conversation_taken', assignedTo: ana.phone });
    }
    expect(conversationRefusal(admin, anas, 'reply')).toEqual({ code: 'conversation_taken', status: 'forbidden', assignedTo: ana.phone });
    expect(conversationRefusal(ana, anas, 'claim')).toEqual({ code: 'conversation_yours', status: 'conflict' });
  });

  it('refuses giving back or closing a waiting conversation nobody has as unclaimed, not as someone else’s', () => {
    for (const action of ['release', 'close', 'reply'] as const) {
      expect(conversationRefusal(bruno, { state: 'AWAITING_HUMAN' }, action)).toMatchObject({ code: 'conversation_unclaimed' });
      expect(conversationRefusal(bruno, { state: 'AWAITING_HUMAN' }, action)?.assignedTo).toBeUndefined();
    }
  });
});
