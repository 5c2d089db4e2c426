import { legacyBufferToItem, legacyPendingReplyToItem } from '../../../lambda/core/adapters/dynamodb/codecs/inbound-codec';
import { isUnreadFor } from '../../../lambda/core/domain/inbox-summary';
import { SessionState } from '../../../lambda/core/domain/session';
import { addMilliseconds } from '../../../lambda/core/domain/timestamps';
import { AgentInvocationError, type AgentRequest } from '../../../lambda/core/ports/agent';
import { FALLBACK_TEXT_DEFAULTS } from '../../../lib/contract';
import { isCompleted } from '../../support/inspect';
import { ManualClock } from '../../support/manual-clock';
import { afterPersist, TurnHarness } from '../../support/turn-harness';

const CUSTOMER = '5511988887777';
/** Meta's timestamp of the first message of a test: recent, since the webhook drops week-old messages. */
const SENT_AT = Math.floor(Date.now() / 1000) - 3600;
/** Meta's timestamp of a message the customer sent 25 hours ago: their 24-hour window is closed. */
const SENT_25_HOURS_AGO = Math.floor(Date.now() / 1000) - 25 * 3600;
const HOUR_MS = 3_600_000;
let harness: TurnHarness;

afterEach(async () => {
  await harness?.close();
});

describe('turn protocol (docs/DESIGN.md#turn-protocol)', () => {
  test('a body without phone or not JSON is dropped without a retry and writes nothing', async () => {
    harness = await TurnHarness.start();
    for (const body of ['not json', '{"message_id":"wamid.X"}']) {
      expect(await harness.process(CUSTOMER, undefined, { body })).toEqual({ batchItemFailures: [] });
    }
    expect(harness.agent.requests).toHaveLength(0);
    expect(harness.fake.sent()).toEqual([]);
  });

  test('nothing pending is an idempotent no-op', async () => {
    harness = await TurnHarness.start();
    expect(await harness.process(CUSTOMER)).toEqual({ batchItemFailures: [] });
    expect(harness.agent.requests).toHaveLength(0);
  });

  test('a normal turn appends history, opens a session, answers once and completes the receipt', async () => {
    harness = await TurnHarness.start();
    await harness.receive(CUSTOMER, 'wamid.A', 'Oi, quero um exame');
    expect(await harness.process(CUSTOMER, 'wamid.A')).toEqual({ batchItemFailures: [] });

    expect(harness.sentTo(CUSTOMER)).toEqual(['Olá! Recebi: Oi, quero um exame (mensagem 1)']);
    expect(harness.fake.readReceipts().map((receipt) => receipt.messageId)).toEqual(['wamid.A']);
    expect(await harness.history(CUSTOMER)).toEqual(['user: Oi, quero um exame', 'assistant[sent]: Olá! Recebi: Oi, quero um exame (mensagem 1)']);
    expect((await harness.sessions.getActive(CUSTOMER))?.state).toBe(SessionState.QUALIFYING);
    expect(await isCompleted(harness.receipts, { customerId: CUSTOMER, messageId: 'wamid.A' })).toBe(true);
    const latest = await harness.receipts.getLatest(CUSTOMER);
    expect(latest?.pendingMessageIds).toEqual([]);
    expect(latest?.outbox).toBeUndefined();

    // The same record delivered again changes nothing.
    await harness.process(CUSTOMER, 'wamid.A');
    expect(harness.agent.requests).toHaveLength(1);
    expect(harness.fake.sent()).toHaveLength(1);
  });

  test('a failed read receipt never fails the turn', async () => {
    harness = await TurnHarness.start({
      wrap: (deps) => ({
        ...deps,
        whatsapp: Object.assign(Object.create(deps.whatsapp), {
          markAsRead: async () => {
            throw new Error('read receipt refused');
          },
        }),
      }),
    });
    await harness.receive(CUSTOMER, 'wamid.A', 'oi');
    expect(await harness.process(CUSTOMER, 'wamid.A')).toEqual({ batchItemFailures: [] });
    expect(harness.sentTo(CUSTOMER)).toEqual(['Olá! Recebi: oi (mensagem 1)']);
  });

  test('pending messages are drained in registration order, tied and regressing timestamps kept in order', async () => {
    harness = await TurnHarness.start();
    await harness.receive(CUSTOMER, 'wamid.1', 'primeira', SENT_AT + 100);
    await harness.receive(CUSTOMER, 'wamid.2', 'segunda', SENT_AT + 100);
    await harness.receive(CUSTOMER, 'wamid.3', 'terceira', SENT_AT + 50);
    await harness.process(CUSTOMER, 'wamid.1');

    expect(harness.agent.requests).toHaveLength(1);
    expect(harness.agent.requests[0].history.map((entry) => entry.text)).toEqual(['primeira', 'segunda', 'terceira']);
    expect(harness.sentTo(CUSTOMER)).toEqual(['Olá! Recebi: primeira | segunda | terceira (mensagem 3)']);
    const timestamps = harness.agent.requests[0].history.map((entry) => entry.at);
    expect([...timestamps].sort()).toEqual(timestamps);
    expect(new Set(timestamps).size).toBe(3);

    // The later records find nothing pending.
    await harness.process(CUSTOMER, 'wamid.2');
    await harness.process(CUSTOMER, 'wamid.3');
    expect(harness.agent.requests).toHaveLength(1);
    expect(harness.fake.sent()).toHaveLength(1);
  });

  test('a second turn sees the whole session history and the agent’s earlier reply', async () => {
    harness = await TurnHarness.start();
    await harness.receive(CUSTOMER, 'wamid.A', 'um');
    await harness.process(CUSTOMER, 'wamid.A');
    await harness.receive(CUSTOMER, 'wamid.B', 'dois', SENT_AT + 1);
    await harness.process(CUSTOMER, 'wamid.B');
    expect(harness.agent.requests[1].history.map((entry) => `${entry.role}: ${entry.text}`)).toEqual([
      'customer: um',
      'assistant: Olá! Recebi: um (mensagem 1)',
      'customer: dois',
    ]);
    expect(harness.sentTo(CUSTOMER)).toEqual(['Olá! Recebi: um (mensagem 1)', 'Olá! Recebi: dois (mensagem 2)']);
  });
});

describe('latest message wins', () => {
  test('B arrives while A’s agent call runs: A completes without sending, B answers once with A and B', async () => {
    harness = await TurnHarness.start({
      agent: {
        respondAfter: async (_request, call) => {
          if (call === 1) await harness.receive(CUSTOMER, 'wamid.B', 'segunda mensagem', SENT_AT + 1);
        },
      },
    });
    await harness.receive(CUSTOMER, 'wamid.A', 'primeira mensagem');
    expect(await harness.process(CUSTOMER, 'wamid.A')).toEqual({ batchItemFailures: [] });
    expect(harness.fake.sent()).toEqual([]);
    expect(await isCompleted(harness.receipts, { customerId: CUSTOMER, messageId: 'wamid.A' })).toBe(true);

    await harness.process(CUSTOMER, 'wamid.B');
    expect(harness.sentTo(CUSTOMER)).toEqual(['Olá! Recebi: primeira mensagem | segunda mensagem (mensagem 2)']);
    expect(harness.agent.requests[1].history.map((entry) => entry.text)).toEqual(['primeira mensagem', 'segunda mensagem']);
  });

  test('B arrives after A persisted but before A was sent: A is superseded and never sent', async () => {
    harness = await TurnHarness.start({
      wrap: afterPersist(async (_deps, write) => {
        if (write.expectedLatestMessageId === 'wamid.A') await harness.receive(CUSTOMER, 'wamid.B', 'mudei de ideia', SENT_AT + 1);
      }),
    });
    await harness.receive(CUSTOMER, 'wamid.A', 'quero X');
    await harness.process(CUSTOMER, 'wamid.A');
    expect(harness.fake.sent()).toEqual([]);
    expect(await harness.history(CUSTOMER)).toEqual(['user: quero X', 'assistant[superseded]: Olá! Recebi: quero X (mensagem 1)']);

    await harness.process(CUSTOMER, 'wamid.B');
    expect(harness.sentTo(CUSTOMER)).toEqual(['Olá! Recebi: quero X | mudei de ideia (mensagem 2)']);
  });

  test('a human takeover between persist and send: the reply is superseded, never sent', async () => {
    harness = await TurnHarness.start({
      wrap: afterPersist(async ({ sessions }) => {
        const session = (await sessions.getActive(CUSTOMER))!;
        const waiting = await sessions.transitionState(session, session.state, SessionState.AWAITING_HUMAN);
        await sessions.transitionState(waiting, SessionState.AWAITING_HUMAN, SessionState.HUMAN_ACTIVE, { changes: { assignedTo: '5511900000000' } });
      }),
    });
    await harness.receive(CUSTOMER, 'wamid.A', 'oi');
    expect(await harness.process(CUSTOMER, 'wamid.A')).toEqual({ batchItemFailures: [] });
    expect(harness.fake.sent()).toEqual([]);
    expect(await harness.history(CUSTOMER)).toEqual(['user: oi', 'assistant[superseded]: Olá! Recebi: oi (mensagem 1)']);
  });
});

describe('outbox and retries', () => {
  test('a failed send keeps the reply and asks for a retry; the retry re-sends without the agent', async () => {
    harness = await TurnHarness.start();
    await harness.receive(CUSTOMER, 'wamid.A', 'oi');
    harness.fake.failNext(1, { httpStatus: 500, code: 131000, message: 'Something went wrong' });
    const first = await harness.process(CUSTOMER, 'wamid.A');
    expect(first.batchItemFailures).toHaveLength(1);
    expect(await harness.history(CUSTOMER)).toEqual(['user: oi', 'assistant[pending_send]: Olá! Recebi: oi (mensagem 1)']);

    expect(await harness.process(CUSTOMER, 'wamid.A', { receiveCount: 2 })).toEqual({ batchItemFailures: [] });
    expect(harness.agent.requests).toHaveLength(1);
    expect(harness.sentTo(CUSTOMER)).toEqual(['Olá! Recebi: oi (mensagem 1)']);
    expect(await harness.history(CUSTOMER)).toEqual(['user: oi', 'assistant[sent]: Olá! Recebi: oi (mensagem 1)']);
    expect((await harness.receipts.getLatest(CUSTOMER))?.outbox).toBeUndefined();
  });

  test('a retry after a newer message supersedes the old reply and answers the newer one once', async () => {
    harness = await TurnHarness.start();
    await harness.receive(CUSTOMER, 'wamid.A', 'primeira');
    harness.fake.failNext(1, { httpStatus: 503, code: 131016, message: 'Service unavailable' });
    expect((await harness.process(CUSTOMER, 'wamid.A')).batchItemFailures).toHaveLength(1);
    await harness.receive(CUSTOMER, 'wamid.B', 'segunda', SENT_AT + 1);

    expect(await harness.process(CUSTOMER, 'wamid.A', { receiveCount: 2 })).toEqual({ batchItemFailures: [] });
    expect(harness.sentTo(CUSTOMER)).toEqual(['Olá! Recebi: primeira | segunda (mensagem 2)']);
    expect(await harness.history(CUSTOMER)).toEqual([
      'user: primeira',
      'assistant[superseded]: Olá! Recebi: primeira (mensagem 1)',
      'user: segunda',
      'assistant[sent]: Olá! Recebi: primeira | segunda (mensagem 2)',
    ]);
    await harness.process(CUSTOMER, 'wamid.B');
    expect(harness.fake.sent()).toHaveLength(1);
  });

  test('a permanent refusal (24-hour window closed) is marked and not retried', async () => {
    harness = await TurnHarness.start();
    await harness.receive(CUSTOMER, 'wamid.A', 'oi');
    harness.fake.failNext(1, { httpStatus: 400, code: 131047, message: 'Re-engagement message' });
    expect(await harness.process(CUSTOMER, 'wamid.A')).toEqual({ batchItemFailures: [] });
    expect(await harness.history(CUSTOMER)).toEqual(['user: oi', 'assistant[failed_permanent]: Olá! Recebi: oi (mensagem 1)']);
    expect(await isCompleted(harness.receipts, { customerId: CUSTOMER, messageId: 'wamid.A' })).toBe(true);
  });

  test('an agent failure reports the record for a retry and leaves the message pending', async () => {
    harness = await TurnHarness.start({ agent: { failWhen: (_request, call) => (call === 1 ? new Error('model throttled') : undefined) } });
    await harness.receive(CUSTOMER, 'wamid.A', 'oi');
    expect((await harness.process(CUSTOMER, 'wamid.A')).batchItemFailures).toHaveLength(1);
    expect((await harness.receipts.getLatest(CUSTOMER))?.pendingMessageIds).toEqual(['wamid.A']);
    expect(await harness.process(CUSTOMER, 'wamid.A', { receiveCount: 2 })).toEqual({ batchItemFailures: [] });
    expect(harness.sentTo(CUSTOMER)).toEqual(['Olá! Recebi: oi (mensagem 1)']);
    expect(await harness.history(CUSTOMER)).toEqual(['user: oi', 'assistant[sent]: Olá! Recebi: oi (mensagem 1)']);
  });
});

describe('agent actions', () => {
  test('a handoff moves the session to a human; later messages reach the human inbox, not the agent', async () => {
    harness = await TurnHarness.start();
    await harness.receive(CUSTOMER, 'wamid.A', 'quero falar com alguém #humano');
    await harness.process(CUSTOMER, 'wamid.A');
    const session = await harness.sessions.getActive(CUSTOMER);
    expect(session?.state).toBe(SessionState.AWAITING_HUMAN);
    expect(session?.handoffRequestedAt).toBeDefined();
    expect(harness.fake.sent()).toHaveLength(1);

    await harness.receive(CUSTOMER, 'wamid.B', 'ainda aguardo');
    await harness.process(CUSTOMER, 'wamid.B');
    expect(harness.agent.requests).toHaveLength(1);
    expect(harness.fake.sent()).toHaveLength(1);
    expect((await harness.history(CUSTOMER)).at(-1)).toBe('user: ainda aguardo');
  });

  test('qualification data is merged, a demand recorded once, a closed session replaced by a new one', async () => {
    harness = await TurnHarness.start();
    await harness.receive(CUSTOMER, 'wamid.A', '#dado tipo=paternidade #fora exame de sangue');
    await harness.process(CUSTOMER, 'wamid.A');
    const first = await harness.sessions.getActive(CUSTOMER);
    expect(first?.qualificationData).toEqual({ tipo: 'paternidade' });
    const demands = await harness.demands.listRecent();
    expect(demands.items.map((demand) => [demand.requestedService, demand.sourceMessageId, demand.sessionId])).toEqual([['exame de sangue', 'wamid.A', first?.sessionId]]);

    await harness.receive(CUSTOMER, 'wamid.B', 'obrigado #fim', SENT_AT + 1);
    await harness.process(CUSTOMER, 'wamid.B');
    expect((await harness.sessions.get(CUSTOMER, first!.sessionId))?.state).toBe(SessionState.CLOSED);
    expect(harness.fake.sent()).toHaveLength(2);

    await harness.receive(CUSTOMER, 'wamid.C', 'voltei', SENT_AT + 2);
    await harness.process(CUSTOMER, 'wamid.C');
    const second = await harness.sessions.getActive(CUSTOMER);
    expect(second?.sessionId).not.toBe(first?.sessionId);
    expect(harness.agent.requests[2].history.map((entry) => entry.text)).toEqual(['voltei']);
  });

  test('the system prompt comes from the current admin resource, with a default when none exists', async () => {
    harness = await TurnHarness.start({ settings: { promptCacheMs: 0 } });
    await harness.receive(CUSTOMER, 'wamid.A', 'um');
    await harness.process(CUSTOMER, 'wamid.A');
    expect(harness.agent.requests[0].systemPrompt).toMatch(/WhatsApp assistant/);

    await harness.resources.putNextVersion({ resourceType: 'prompt', resourceId: 'system', content: 'Você é a assistente da GoGenetic.', author: 'ops' });
    await harness.receive(CUSTOMER, 'wamid.B', 'dois', SENT_AT + 1);
    await harness.process(CUSTOMER, 'wamid.B');
    expect(harness.agent.requests[1].systemPrompt).toBe('Você é a assistente da GoGenetic.');
    expect(harness.agent.requests[1].maxIterations).toBe(10);
    expect(harness.agent.requests[1].deadline).toBeLessThan(Date.now() + 90_000 - 10_000);
  });

  test('a process reuses the prompt it read until the cache period ends', async () => {
    harness = await TurnHarness.start({ settings: { promptCacheMs: 60_000 } });
    await harness.receive(CUSTOMER, 'wamid.A', 'um');
    await harness.process(CUSTOMER, 'wamid.A');
    await harness.resources.putNextVersion({ resourceType: 'prompt', resourceId: 'system', content: 'novo prompt', author: 'ops' });
    await harness.receive(CUSTOMER, 'wamid.B', 'dois');
    await harness.process(CUSTOMER, 'wamid.B');
    expect(harness.agent.requests.map((request) => request.systemPrompt)).toEqual([harness.agent.requests[0].systemPrompt, harness.agent.requests[0].systemPrompt]);
    expect(harness.agent.requests[0].systemPrompt).not.toBe('novo prompt');
  });
});

describe('legacy debounce items', () => {
  test('a legacy buffer is drained through receipts and answered once', async () => {
    harness = await TurnHarness.start();
    // Left by an older deployment a minute ago: inside the customer's 24-hour window.
    const at = addMilliseconds(new Date(), -60_000);
    await harness.kit.put({ item: legacyBufferToItem({ customerId: CUSTOMER, messageIds: ['wamid.L1', 'wamid.L2'], texts: ['velho um', 'velho dois'], firstMessageAt: at, lastMessageAt: addMilliseconds(at, 5_000), businessPhoneNumberId: '106540352242922' }) });
    await harness.process(CUSTOMER);
    expect(harness.sentTo(CUSTOMER)).toEqual(['Olá! Recebi: velho um | velho dois (mensagem 2)']);
    expect((await harness.legacy.getLegacyItems(CUSTOMER)).buffer).toBeUndefined();
    await harness.process(CUSTOMER);
    expect(harness.fake.sent()).toHaveLength(1);
  });

  test('a legacy pending reply is replayed once while its session is unchanged', async () => {
    harness = await TurnHarness.start();
    await harness.receive(CUSTOMER, 'wamid.A', 'oi');
    await harness.process(CUSTOMER, 'wamid.A');
    const session = (await harness.sessions.getActive(CUSTOMER))!;
    await harness.kit.put({ item: legacyPendingReplyToItem({ customerId: CUSTOMER, text: 'resposta antiga', sessionId: session.sessionId, state: session.state, createdAt: session.updatedAt }) });
    await harness.process(CUSTOMER);
    await harness.process(CUSTOMER);
    expect(harness.sentTo(CUSTOMER)).toEqual(['Olá! Recebi: oi (mensagem 1)', 'resposta antiga']);
    expect(harness.agent.requests).toHaveLength(1);
  });
});

/** A model endpoint that is down for every message that says `quebra`: a failure a retry might fix. */
const BROKEN_FOR_QUEBRA = { failWhen: (request: AgentRequest) => (request.history.some((entry) => entry.text.includes('quebra')) ? new AgentInvocationError('invocation_failed', 'model throttled') : undefined) };

describe('a message whose turn fails on every attempt', () => {
  test('is parked on the final attempt so the customer’s next message is answered; a redrive restores it', async () => {
    harness = await TurnHarness.start({ agent: BROKEN_FOR_QUEBRA });
    await harness.receive(CUSTOMER, 'wamid.POISON', 'isto quebra');
    for (const receiveCount of [1, 2]) {
      expect((await harness.process(CUSTOMER, 'wamid.POISON', { receiveCount })).batchItemFailures).toHaveLength(1);
      expect((await harness.receipts.getLatest(CUSTOMER))?.pendingMessageIds).toEqual(['wamid.POISON']);
    }
    expect((await harness.process(CUSTOMER, 'wamid.POISON', { receiveCount: 3 })).batchItemFailures).toHaveLength(1);
    expect((await harness.receipts.getLatest(CUSTOMER))?.pendingMessageIds).toEqual([]);
    const parked = await harness.receipts.getReceipt({ customerId: CUSTOMER, messageId: 'wamid.POISON' });
    expect(parked?.deadLetteredAt).toBeDefined();
    expect(parked?.completedAt).toBeUndefined();

    await harness.receive(CUSTOMER, 'wamid.NEXT', 'oi de novo');
    expect(await harness.process(CUSTOMER, 'wamid.NEXT')).toEqual({ batchItemFailures: [] });
    // The parked message got the failure notice (failure-notice.ts), which the agent does not see.
    expect(harness.sentTo(CUSTOMER)).toEqual([FALLBACK_TEXT_DEFAULTS.turnFailed, 'Olá! Recebi: oi de novo (mensagem 1)']);
    expect(await harness.history(CUSTOMER)).toEqual(['user: isto quebra', `system[sent]: ${FALLBACK_TEXT_DEFAULTS.turnFailed}`, 'user: oi de novo', 'assistant[sent]: Olá! Recebi: oi de novo (mensagem 1)']);

    // An operator redrives the parked message: it is drained again, but a newer message was answered
    // since, so latest-message-wins completes it without a late reply.
    const restored = await harness.receipts.restoreDeadLettered({ customerId: CUSTOMER, messageId: 'wamid.POISON' });
    expect(restored?.historyTimestamp).toBeDefined();
    await harness.messages.setQuarantined(harness.messages.refFor({ customerId: CUSTOMER, messageId: 'wamid.POISON', timestamp: restored!.historyTimestamp! }), null);
    expect(await harness.receipts.restoreDeadLettered({ customerId: CUSTOMER, messageId: 'wamid.POISON' })).toBeUndefined();
    expect(await harness.process(CUSTOMER, 'wamid.POISON', { receiveCount: 1 })).toEqual({ batchItemFailures: [] });
    expect(await isCompleted(harness.receipts, { customerId: CUSTOMER, messageId: 'wamid.POISON' })).toBe(true);
    expect(harness.fake.sent()).toHaveLength(2);
  });

  test('tells the customer once per parked set, with a notice that answers nothing and the agent never sees', async () => {
    let broken = true;
    harness = await TurnHarness.start({ agent: { failWhen: () => (broken ? new AgentInvocationError('invocation_failed', 'model throttled') : undefined) } });
    await harness.receive(CUSTOMER, 'wamid.A', 'primeira', SENT_AT);
    await harness.receive(CUSTOMER, 'wamid.B', 'segunda', SENT_AT + 1);
    for (const receiveCount of [1, 2]) await harness.process(CUSTOMER, 'wamid.A', { receiveCount });
    expect(harness.sentTo(CUSTOMER)).toEqual([]);
    expect((await harness.process(CUSTOMER, 'wamid.A', { receiveCount: 3 })).batchItemFailures).toHaveLength(1);
    expect(harness.sentTo(CUSTOMER)).toEqual([FALLBACK_TEXT_DEFAULTS.turnFailed]);
    const { items } = await harness.messages.history(CUSTOMER, { limit: 10 });
    expect(items[0]).toMatchObject({ role: 'system', deliveryStatus: 'sent', failureNoticeFor: 'wamid.B' });
    expect(items[0].replyToMessageId).toBeUndefined();

    // Redriven and failing on every attempt again: the same set, so no second notice.
    const redriveAll = async () => {
      for (const messageId of ['wamid.A', 'wamid.B']) {
        const restored = await harness.receipts.restoreDeadLettered({ customerId: CUSTOMER, messageId });
        await harness.messages.setQuarantined(harness.messages.refFor({ customerId: CUSTOMER, messageId, timestamp: restored!.historyTimestamp! }), null);
      }
    };
    await redriveAll();
    expect((await harness.process(CUSTOMER, 'wamid.A', { receiveCount: 3 })).batchItemFailures).toHaveLength(1);
    expect((await harness.receipts.getReceipt({ customerId: CUSTOMER, messageId: 'wamid.B' }))?.deadLetteredAt).toBeDefined();
    expect(harness.sentTo(CUSTOMER)).toEqual([FALLBACK_TEXT_DEFAULTS.turnFailed]);

    // Redriven once the model is back: the agent answers, its history ends with the customer's messages.
    broken = false;
    await redriveAll();
    expect(await harness.process(CUSTOMER, 'wamid.A')).toEqual({ batchItemFailures: [] });
    expect(harness.agent.requests.at(-1)!.history.map((entry) => entry.text)).toEqual(['primeira', 'segunda']);
    expect(harness.sentTo(CUSTOMER)).toEqual([FALLBACK_TEXT_DEFAULTS.turnFailed, 'Olá! Recebi: primeira | segunda (mensagem 2)']);
  });

  test('a notice that cannot be sent changes nothing: the messages are parked and the record fails as before', async () => {
    harness = await TurnHarness.start({ agent: BROKEN_FOR_QUEBRA });
    await harness.receive(CUSTOMER, 'wamid.POISON', 'isto quebra');
    harness.fake.failNext(1, { httpStatus: 500, code: 131000, message: 'Something went wrong' });
    expect((await harness.process(CUSTOMER, 'wamid.POISON', { receiveCount: 3 })).batchItemFailures).toHaveLength(1);
    expect((await harness.receipts.getReceipt({ customerId: CUSTOMER, messageId: 'wamid.POISON' }))?.deadLetteredAt).toBeDefined();
    expect(harness.sentTo(CUSTOMER)).toEqual([]);
    // Claimed before the send: it is lost rather than sent twice.
    expect(await harness.history(CUSTOMER)).toEqual(['user: isto quebra', `system[pending_send]: ${FALLBACK_TEXT_DEFAULTS.turnFailed}`]);
  });

  test('a failed send on the final attempt parks nothing: the reply waits in the outbox', async () => {
    harness = await TurnHarness.start();
    await harness.receive(CUSTOMER, 'wamid.A', 'oi');
    harness.fake.failNext(1, { httpStatus: 500, code: 131000, message: 'Something went wrong' });
    expect((await harness.process(CUSTOMER, 'wamid.A', { receiveCount: 3 })).batchItemFailures).toHaveLength(1);
    const receipt = await harness.receipts.getReceipt({ customerId: CUSTOMER, messageId: 'wamid.A' });
    expect(receipt?.deadLetteredAt).toBeUndefined();
    expect((await harness.receipts.getLatest(CUSTOMER))?.outbox).toBeDefined();
  });
});

describe('a failure no retry can fix', () => {
  test('the fallback text is the deployment’s when it sets one', async () => {
    harness = await TurnHarness.start({ settings: { fallbackText: 'Estamos com instabilidade; já voltamos.' } });
    await harness.receive(CUSTOMER, 'wamid.POISON', 'isto quebra #falha');
    await harness.process(CUSTOMER, 'wamid.POISON');
    expect(harness.sentTo(CUSTOMER)).toEqual(['Estamos com instabilidade; já voltamos.']);
  });

  test('answers the fallback text on the first receive and completes the messages', async () => {
    harness = await TurnHarness.start();
    await harness.receive(CUSTOMER, 'wamid.POISON', 'isto quebra #falha');
    expect(await harness.process(CUSTOMER, 'wamid.POISON', { receiveCount: 1 })).toEqual({ batchItemFailures: [] });
    expect(harness.agent.calls).toBe(1);
    expect(harness.sentTo(CUSTOMER)).toEqual([FALLBACK_TEXT_DEFAULTS.turnFailed]);
    expect(await isCompleted(harness.receipts, { customerId: CUSTOMER, messageId: 'wamid.POISON' })).toBe(true);
    expect(await harness.history(CUSTOMER)).toEqual(['user: isto quebra #falha', `system[sent]: ${FALLBACK_TEXT_DEFAULTS.turnFailed}`]);

    // A redelivery of the record finds nothing to do: no second agent call, no second fallback.
    expect(await harness.process(CUSTOMER, 'wamid.POISON', { receiveCount: 2 })).toEqual({ batchItemFailures: [] });
    expect(harness.agent.calls).toBe(1);
    expect(harness.fake.sent()).toHaveLength(1);
  });

  test('a fallback persisted but not yet sent is sent by the redelivery, once', async () => {
    harness = await TurnHarness.start();
    await harness.receive(CUSTOMER, 'wamid.POISON', 'isto quebra #falha');
    harness.fake.failNext(1, { httpStatus: 500, code: 131000, message: 'Something went wrong' });
    expect((await harness.process(CUSTOMER, 'wamid.POISON', { receiveCount: 1 })).batchItemFailures).toHaveLength(1);
    expect(harness.fake.sent()).toEqual([]);
    expect(await harness.process(CUSTOMER, 'wamid.POISON', { receiveCount: 2 })).toEqual({ batchItemFailures: [] });
    expect(await harness.process(CUSTOMER, 'wamid.POISON', { receiveCount: 3 })).toEqual({ batchItemFailures: [] });
    expect(harness.agent.calls).toBe(1);
    expect(harness.sentTo(CUSTOMER)).toEqual([FALLBACK_TEXT_DEFAULTS.turnFailed]);
  });
});

describe("the customer's 24-hour window", () => {
  const turnOutcomes = (addMetric: jest.SpyInstance) => addMetric.mock.calls.map(([name]) => name).filter((name: string) => name.startsWith('Turn_'));

  test('a turn that drains a 25-hour-old message asks no agent, sends nothing and hands the conversation to people', async () => {
    harness = await TurnHarness.start();
    const addMetric = jest.spyOn(harness.metrics, 'addMetric');
    await harness.receive(CUSTOMER, 'wamid.A', 'ainda dá para marcar?', SENT_25_HOURS_AGO);

    expect(await harness.process(CUSTOMER, 'wamid.A')).toEqual({ batchItemFailures: [] });

    expect(harness.agent.requests).toHaveLength(0);
    expect(harness.fake.sent()).toEqual([]);
    expect(harness.fake.readReceipts()).toEqual([]);
    const session = await harness.sessions.getActive(CUSTOMER);
    expect(session?.state).toBe(SessionState.AWAITING_HUMAN);
    expect(session?.handoffRequestedAt).toBeDefined();
    expect(await harness.history(CUSTOMER)).toEqual(['user: ainda dá para marcar?']);
    expect(await isCompleted(harness.receipts, { customerId: CUSTOMER, messageId: 'wamid.A' })).toBe(true);
    expect((await harness.receipts.getLatest(CUSTOMER))?.outbox).toBeUndefined();
    expect(turnOutcomes(addMetric)).toEqual(['Turn_outside_window']);

    // The same record again: the conversation is people's, and the agent is still not asked.
    expect(await harness.process(CUSTOMER, 'wamid.A', { receiveCount: 2 })).toEqual({ batchItemFailures: [] });
    expect(harness.agent.requests).toHaveLength(0);
    expect(harness.fake.sent()).toEqual([]);
    expect(turnOutcomes(addMetric)).toEqual(['Turn_outside_window', 'Turn_noop']);
  });

  test("the conversation handed to people shows the customer's message on its inbox row, unread", async () => {
    harness = await TurnHarness.start();
    await harness.receive(CUSTOMER, 'wamid.A', 'ainda dá para marcar?', SENT_25_HOURS_AGO);

    await harness.process(CUSTOMER, 'wamid.A');

    const session = await harness.sessions.getActive(CUSTOMER);
    expect(session?.state).toBe(SessionState.AWAITING_HUMAN);
    expect(session?.lastCustomerMessage).toEqual({ preview: 'ainda dá para marcar?', at: (await harness.messages.history(CUSTOMER, { limit: 10 })).items[0].timestamp });
    expect(isUnreadFor(session!, '5511900000001')).toBe(true);
  });

  test('killed between the handoff and the completion, the retry completes the messages and never asks the agent', async () => {
    let failures = 1;
    harness = await TurnHarness.start({
      wrap: (deps) => ({
        ...deps,
        ledger: Object.assign(Object.create(deps.ledger), {
          complete: async (completion: Parameters<typeof deps.ledger.complete>[0]) => {
            if (failures-- > 0) throw new Error('killed after the handoff was written');
            return deps.ledger.complete(completion);
          },
        }),
      }),
    });
    await harness.receive(CUSTOMER, 'wamid.A', 'oi, voltei', SENT_25_HOURS_AGO);

    expect((await harness.process(CUSTOMER, 'wamid.A')).batchItemFailures).toHaveLength(1);
    expect((await harness.sessions.getActive(CUSTOMER))?.state).toBe(SessionState.AWAITING_HUMAN);
    expect(await harness.process(CUSTOMER, 'wamid.A', { receiveCount: 2 })).toEqual({ batchItemFailures: [] });

    expect(harness.agent.requests).toHaveLength(0);
    expect(harness.fake.sent()).toEqual([]);
    expect(await harness.history(CUSTOMER)).toEqual(['user: oi, voltei']);
    expect(await isCompleted(harness.receipts, { customerId: CUSTOMER, messageId: 'wamid.A' })).toBe(true);
  });

  test('an old message followed by a new one is answered: the window runs from the newest message', async () => {
    harness = await TurnHarness.start();
    await harness.receive(CUSTOMER, 'wamid.A', 'ontem', SENT_25_HOURS_AGO);
    await harness.receive(CUSTOMER, 'wamid.B', 'hoje', SENT_AT);

    await harness.process(CUSTOMER, 'wamid.A');

    expect(harness.sentTo(CUSTOMER)).toEqual(['Olá! Recebi: ontem | hoje (mensagem 2)']);
    expect((await harness.sessions.getActive(CUSTOMER))?.state).toBe(SessionState.QUALIFYING);
  });

  test('a reply persisted inside the window and retried after it closed is refused without calling WhatsApp', async () => {
    const clock = new ManualClock(new Date());
    harness = await TurnHarness.start({ clock });
    const addMetric = jest.spyOn(harness.metrics, 'addMetric');
    await harness.receive(CUSTOMER, 'wamid.A', 'oi', SENT_AT);
    harness.fake.failNext(1, { httpStatus: 500, code: 131000, message: 'Something went wrong' });
    expect((await harness.process(CUSTOMER, 'wamid.A')).batchItemFailures).toHaveLength(1);
    const requestsBefore = harness.fake.requestCount;

    clock.advance(24 * HOUR_MS);
    expect(await harness.process(CUSTOMER, 'wamid.A', { receiveCount: 2 })).toEqual({ batchItemFailures: [] });

    expect(harness.fake.requestCount).toBe(requestsBefore);
    expect(harness.fake.sent()).toEqual([]);
    expect(harness.agent.requests).toHaveLength(1);
    expect(await harness.history(CUSTOMER)).toEqual(['user: oi', 'assistant[failed_permanent]: Olá! Recebi: oi (mensagem 1)']);
    const [reply] = (await harness.messages.history(CUSTOMER, { limit: 1 })).items;
    expect(reply.failureReason).toBe('window-closed');
    expect(await isCompleted(harness.receipts, { customerId: CUSTOMER, messageId: 'wamid.A' })).toBe(true);
    expect(turnOutcomes(addMetric)).toEqual(['Turn_failed_permanent']);
  });
});
