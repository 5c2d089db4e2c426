import { TurnAgent, type TurnAgentDependencies } from '../../../lambda/core/application/turn-agent';
import { DEFAULT_TURN_SETTINGS } from '../../../lambda/core/application/turn-settings';
import type { PendingInbound } from '../../../lambda/core/domain/inbound-receipt';
import type { StoredMedia } from '../../../lambda/core/domain/media';
import { customerMessage, type Message } from '../../../lambda/core/domain/message';
import { SessionState, type Session } from '../../../lambda/core/domain/session';
import type { AgentRequest } from '../../../lambda/core/ports/agent';
import { InMemoryMediaStore } from '../../support/in-memory-media-store';

// What the turn shows the agent of the history's attachments: each customer message's stored
// media on its entry, with the bucket to read it from; the earlier conversation only describes them.

const CUSTOMER = '5511987654321';
const photo: StoredMedia = { kind: 'image', providerMediaId: 'm-1', mimeType: 'image/jpeg', state: 'stored', objectKey: 'media/5511987654321/wamid.P1', sizeBytes: 1024 };

const message = (messageId: string, sessionId: string, timestamp: string, extra: Partial<Message> = {}): Message => ({
  customerId: CUSTOMER,
  sessionId,
  messageId,
  direction: 'inbound',
  role: 'user',
  text: '[image] meu exame',
  timestamp,
  ...extra,
});

const session: Session = {
  sessionId: 'session-2',
  customerId: CUSTOMER,
  state: SessionState.QUALIFYING,
  qualificationData: {},
  cadastralData: {},
  handoffRenotifyCount: 0,
  createdAt: '2026-11-30T12:00:00.000000Z',
  updatedAt: '2026-11-30T12:00:00.000000Z',
};

const last: PendingInbound = {
  customerId: CUSTOMER,
  customerIdKind: 'phone',
  messageId: 'wamid.T1',
  providerTimestamp: '2026-11-30T12:01:00.000Z',
  receivedAt: '2026-11-30T12:01:00.000Z',
  historyTimestamp: '2026-11-30T12:01:00.000000Z',
  messageType: 'text',
  text: 'O que diz o exame?',
  businessPhoneNumberId: '1234567890',
};

async function askedWith(mediaStore?: InMemoryMediaStore): Promise<AgentRequest> {
  const requests: AgentRequest[] = [];
  const deps = {
    agent: { respond: async (request: AgentRequest) => (requests.push(request), { reply: 'Vi.', actions: [], iterations: 1, stopReason: 'completed' as const }) },
    whatsapp: { markAsRead: async () => undefined },
    messages: {},
    receipts: { getLatest: async () => undefined },
    resources: { getCurrent: async () => undefined },
    clock: { now: () => new Date('2026-11-30T12:01:01.000Z') },
    ...(mediaStore && { mediaStore }),
  } as unknown as TurnAgentDependencies;
  const agent = new TurnAgent(deps, { ...DEFAULT_TURN_SETTINGS, promptResource: { type: 'prompt', id: 'system' } } as never);
  const stored = {
    history: Promise.resolve([message('wamid.P1', 'session-2', '2026-11-30T12:00:30.000000Z', { media: photo, messageType: 'image' })]),
    earlier: Promise.resolve([message('wamid.E1', 'session-1', '2026-11-29T12:00:30.000000Z', { media: { ...photo, objectKey: 'media/5511987654321/wamid.E1' }, messageType: 'image' })]),
  };
  await agent.ask(session, last, Date.now() + 60_000, stored, [customerMessage(last, session.sessionId, last.historyTimestamp)]);
  return requests[0];
}

it("a customer message's stored attachment rides on its entry, with the bucket to read it from", async () => {
  const store = new InMemoryMediaStore();
  const request = await askedWith(store);

  expect(request.history.map(({ text, media }) => ({ text, media }))).toEqual([
    { text: '[image] meu exame', media: photo },
    { text: 'O que diz o exame?', media: undefined },
  ]);
  expect(request.mediaStore).toBe(store);
});

it('the earlier conversation describes its attachments in text and carries none', async () => {
  const request = await askedWith(new InMemoryMediaStore());

  expect(request.earlierConversation).toEqual([
    { role: 'customer', at: '2026-11-29T12:00:30.000000Z', text: '[image] meu exame\n[The customer sent an image (image/jpeg, 1024 bytes). You cannot see or hear it: ask the customer about it if you need its content.]' },
  ]);
});

it('without a bucket the request carries none', async () => {
  expect((await askedWith()).mediaStore).toBeUndefined();
});
