// The WhatsApp Business app's echoes and standby messages on DynamoDB Local: what each writes, what a
// redelivery writes (nothing), and that a notification without them costs no request at all.
import { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoKit } from '../../../lambda/core/adapters/dynamodb/dynamo-kit';
import { DynamoInboxVersion } from '../../../lambda/core/adapters/dynamodb/inbox-version';
import { DynamoMessageRepository } from '../../../lambda/core/adapters/dynamodb/message-repository';
import { DynamoSessionRepository } from '../../../lambda/core/adapters/dynamodb/session-repository';
import { registerInboundNotification, type InboundNotificationDependencies } from '../../../lambda/core/application/inbound-notification';
import { RecordBusinessEchoes } from '../../../lambda/core/application/record-business-echoes';
import type { RegisterInboundTurns } from '../../../lambda/core/application/register-inbound';
import type { RecordDeliveryStatuses } from '../../../lambda/core/application/record-delivery-status';
import { ANSWERED_FROM_PHONE, type BusinessEcho } from '../../../lambda/core/domain/business-echo';
import { openSession, SessionState } from '../../../lambda/core/domain/session';
import { createTestTable, type TestTable } from '../../support/dynamo-table';
import { CallRecorder } from '../../support/dynamo-call-recorder';
import { newCustomer, newMessageId } from '../../support/ids';
import { ManualClock } from '../../support/manual-clock';

let table: TestTable;
let sessions: DynamoSessionRepository;
let messages: DynamoMessageRepository;
let echoes: RecordBusinessEchoes;
let inboxVersion: DynamoInboxVersion;
const calls = new CallRecorder();
const clock = new ManualClock('2026-03-10T12:00:00.000Z');
let nextId = 0;
const ids = { newId: () => `S${++nextId}` };

beforeAll(async () => {
  table = await createTestTable('business-echoes');
  const kit = new DynamoKit({ tableName: table.name, observer: calls });
  sessions = new DynamoSessionRepository(kit, clock);
  messages = new DynamoMessageRepository(kit, clock);
  echoes = new RecordBusinessEchoes({ sessions, messages, clock, ids });
  inboxVersion = new DynamoInboxVersion(kit, clock);
});
afterAll(() => table.drop());
beforeEach(() => calls.reset());

const echoTo = (customerId: string, receivedAt = '2026-03-10T12:00:00.000Z'): BusinessEcho => ({
  customerId,
  customerIdKind: 'phone',
  messageId: newMessageId(),
  providerTimestamp: '2026-03-10T11:59:59.000Z',
  receivedAt,
  businessPhoneNumberId: '106540352242922',
  messageType: 'text',
  text: 'Oi, aqui é a Ana',
});

test('an echo hands the agent’s conversation to people, owned by nobody and without a handoff time; its redelivery writes nothing', async () => {
  const customer = newCustomer();
  await sessions.put({ ...openSession({ customerId: customer, customerIdKind: 'phone' }, ids.newId(), '2026-03-10T11:00:00.000000Z'), state: SessionState.QUALIFYING });
  const echo = echoTo(customer);
  const before = (await inboxVersion.current('5511900000001')).version;

  expect(await echoes.execute([echo])).toEqual({ recorded: 1, paused: 1 });
  // The paused conversation joins the operators' open lists at their next poll.
  expect((await inboxVersion.current('5511900000001')).version).toBeGreaterThan(before);
  // Redelivered a minute later, so at another reception time: found by its id.
  expect(await echoes.execute([{ ...echo, receivedAt: '2026-03-10T12:01:00.000Z' }])).toEqual({ recorded: 0, paused: 0 });

  const session = await sessions.getActive(customer);
  expect(session).toMatchObject({ state: SessionState.AWAITING_HUMAN, handoffReason: ANSWERED_FROM_PHONE });
  expect(session?.handoffRequestedAt).toBeUndefined();
  const history = (await messages.history(customer)).items;
  expect(history.map((message) => [message.role, message.direction, message.text, message.timestamp])).toEqual([['business_app', 'outbound', 'Oi, aqui é a Ana', '2026-03-10T12:00:00.000000Z']]);
});

test('a redelivered echo leaves with the agent a conversation an operator gave back since', async () => {
  const customer = newCustomer();
  await sessions.put({ ...openSession({ customerId: customer, customerIdKind: 'phone' }, ids.newId(), '2026-03-10T11:00:00.000000Z'), state: SessionState.QUALIFYING });
  const echo = echoTo(customer);
  await echoes.execute([echo]);
  const paused = (await sessions.getActive(customer))!;
  await sessions.transitionState(paused, SessionState.AWAITING_HUMAN, SessionState.QUALIFYING, { expectedAssignedTo: null });

  expect(await echoes.execute([{ ...echo, receivedAt: '2026-03-10T12:05:00.000Z' }])).toEqual({ recorded: 0, paused: 0 });
  expect(await sessions.getActive(customer)).toMatchObject({ state: SessionState.QUALIFYING });
});

test('an echo on a conversation an operator owns leaves it theirs', async () => {
  const customer = newCustomer();
  const owned = { ...openSession({ customerId: customer, customerIdKind: 'phone' }, ids.newId(), '2026-03-10T11:00:00.000000Z'), state: SessionState.HUMAN_ACTIVE, assignedTo: '5511900000001' };
  await sessions.put(owned);

  expect(await echoes.execute([echoTo(customer)])).toEqual({ recorded: 1, paused: 0 });
  expect(await sessions.getActive(customer)).toMatchObject({ state: SessionState.HUMAN_ACTIVE, assignedTo: '5511900000001' });
});

test('a notification without echoes, standby messages or handovers makes no request and counts none of their metrics', async () => {
  const counted: string[] = [];
  class RecordingMetrics extends Metrics {
    override addMetric(name: string, unit: Parameters<Metrics['addMetric']>[1], value: number): this {
      counted.push(name);
      return super.addMetric(name, unit, value);
    }
  }
  const untouched = { execute: () => Promise.reject(new Error('not called without echoes or standby messages')) };
  const deps: InboundNotificationDependencies = {
    registerInbound: { execute: async () => [] } as unknown as RegisterInboundTurns,
    recordStatuses: { execute: async () => ({ recorded: 0, settled: 0, notOurs: 0, unchanged: 0, failures: [], metaFees: [] }) } as unknown as RecordDeliveryStatuses,
    clock,
    metrics: new RecordingMetrics({ namespace: 'test', serviceName: 'business-echoes' }),
    coexistence: { echoes: untouched, standby: untouched },
  };

  const summary = await registerInboundNotification({ turns: [], statuses: [], ignored: 0, unreadable: 0 }, deps);

  expect(summary).toMatchObject({ echoes: { recorded: 0, paused: 0 }, standbyRecorded: 0, handovers: 0 });
  expect(calls.operations()).toEqual([]);
  expect(counted.filter((name) => /Echo|Paused|Standby|Handover/.test(name))).toEqual([]);
});
