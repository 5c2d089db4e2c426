import { DynamoKit } from '../../../lambda/core/adapters/dynamodb/dynamo-kit';
import { DynamoMessageRepository } from '../../../lambda/core/adapters/dynamodb/message-repository';
import { callbackDataOf, outboundRefOfCallbackData } from '../../../lambda/core/domain/callback-data';
import type { DeliveryStatus, Message } from '../../../lambda/core/domain/message';
import { RecordDeliveryStatuses, type ReportedStatus } from '../../../lambda/core/application/record-delivery-status';
import { sendOutOfTurn } from '../../../lambda/core/application/operator/out-of-turn-message';
import { createTestTable, type TestTable } from '../../support/dynamo-table';
import { CallRecorder } from '../../support/dynamo-call-recorder';
import { newCustomer, newMessageId } from '../../support/ids';
import { ManualClock } from '../../support/manual-clock';

let table: TestTable;
let messages: DynamoMessageRepository;
let receipts: RecordDeliveryStatuses;
const calls = new CallRecorder();
const clock = new ManualClock('2026-03-10T12:00:00.000Z');

beforeAll(async () => {
  table = await createTestTable('receipts');
  messages = new DynamoMessageRepository(new DynamoKit({ tableName: table.name, observer: calls }), clock);
  receipts = new RecordDeliveryStatuses({ messages });
});
afterAll(() => table.drop());
beforeEach(() => calls.reset());

async function storedReply(deliveryStatus: DeliveryStatus, overrides: Partial<Message> = {}): Promise<{ reply: Message; callbackData: string }> {
  const reply: Message = {
    customerId: newCustomer(),
    sessionId: 'S1',
    messageId: newMessageId(),
    direction: 'outbound',
    role: 'assistant',
    text: 'Olá! Como posso ajudar?',
    timestamp: '2026-03-10T11:00:00.000001Z',
    deliveryStatus,
    ...(deliveryStatus === 'sent' && { providerMessageId: 'wamid.SENT', sentAt: '2026-03-10T11:00:01.000000Z' }),
    ...overrides,
  };
  await messages.append(reply);
  return { reply, callbackData: callbackDataOf(messages.refFor(reply)) };
}

/** A status as Meta reports it: to the customer the callback data names, unless `extra` says otherwise. */
const status = (callbackData: string | undefined, kind: string, second: number, extra: Partial<ReportedStatus> = {}): ReportedStatus => ({
  providerMessageId: 'wamid.SENT',
  status: kind,
  timestamp: `2026-03-10T11:00:${String(second).padStart(2, '0')}.000000Z`,
  callbackData,
  recipientIds: [outboundRefOfCallbackData(callbackData)?.customerId ?? '5511900000000'],
  ...extra,
});

const reread = async (reply: Message) => (await messages.getOutbound(messages.refFor(reply)))!;

describe('callback data', () => {
  test('names the stored message, and nothing else parses as ours', () => {
    const ref = { customerId: '5511988887777', sortKey: 'MSG#2026-03-10T11:00:00.000001Z#m1' };
    expect(outboundRefOfCallbackData(callbackDataOf(ref))).toEqual(ref);
    for (const foreign of [undefined, '', 'campaign-42', 'r1', 'r1 5511988887777', 'r2 5511988887777 MSG#x', `r1 a b c`, `r1 ${'9'.repeat(600)} MSG#x`]) {
      expect(outboundRefOfCallbackData(foreign)).toBeUndefined();
    }
  });
});

describe('recording statuses', () => {
  test('sent → delivered → read, one write each', async () => {
    const { reply, callbackData } = await storedReply('sent');
    for (const [kind, second] of [['sent', 2], ['delivered', 3], ['read', 4]] as const) {
      expect(await receipts.execute([status(callbackData, kind, second)])).toMatchObject({ recorded: 1, unchanged: 0 });
      expect((await reread(reply)).receipt).toEqual({ status: kind, at: `2026-03-10T11:00:0${second}.000000Z` });
    }
    expect(calls.operations().filter((operation) => operation === 'update')).toHaveLength(3);
  });

  test('duplicates and reordered statuses change nothing: read never goes back to delivered, nothing after failed', async () => {
    const { reply, callbackData } = await storedReply('sent');
    const result = await receipts.execute([status(callbackData, 'read', 5), status(callbackData, 'delivered', 4), status(callbackData, 'read', 5), status(callbackData, 'sent', 3)]);
    expect(result).toMatchObject({ recorded: 1, unchanged: 3 });
    expect((await reread(reply)).receipt?.status).toBe('read');

    const failed = await storedReply('sent');
    await receipts.execute([status(failed.callbackData, 'failed', 6, { errorCode: 131047 }), status(failed.callbackData, 'sent', 5), status(failed.callbackData, 'delivered', 7)]);
    expect((await reread(failed.reply)).receipt).toEqual({ status: 'failed', at: '2026-03-10T11:00:06.000000Z', failureCode: 131047 });
  });

  test('at most one write per status, none for messages the pipeline did not send', async () => {
    const { callbackData } = await storedReply('sent');
    calls.reset();
    const result = await receipts.execute([
      status(undefined, 'delivered', 2),
      status('a campaign of the business', 'read', 3),
      status(callbackData, 'played', 4),
      status(callbackData, 'delivered', 5),
      status(callbackData, 'delivered', 5),
    ]);
    expect(result).toMatchObject({ notOurs: 3, recorded: 1, unchanged: 1 });
    expect(calls.operations()).toEqual(['update', 'update']);
  });

  test('a failed status is recorded with its code and classified', async () => {
    const { reply, callbackData } = await storedReply('sent');
    const result = await receipts.execute([status(callbackData, 'failed', 2, { errorCode: 131047 })]);
    expect(result.failures).toEqual(['window-closed']);
    expect((await reread(reply)).receipt?.failureCode).toBe(131047);
    const other = await storedReply('sent');
    expect((await receipts.execute([status(other.callbackData, 'failed', 2)])).failures).toEqual(['other']);
  });

  test('a status that names a reply whose send outcome is unknown settles it as sent, with Meta’s id', async () => {
    for (const unknown of ['pending_send', 'maybe_sent'] as const) {
      const { reply, callbackData } = await storedReply(unknown);
      expect(await receipts.execute([status(callbackData, 'sent', 2, { providerMessageId: 'wamid.LATE' })])).toMatchObject({ settled: 1, recorded: 0 });
      const settled = await reread(reply);
      expect(settled).toMatchObject({ deliveryStatus: 'sent', providerMessageId: 'wamid.LATE', sentAt: '2026-03-10T11:00:02.000000Z', receipt: { status: 'sent' } });
      // The sender's own record after that is the same send, recorded once more.
      expect(await messages.markOutboundSent(messages.refFor(reply), { providerMessageId: 'wamid.LATE', providerMessageIds: ['wamid.LATE'] }, '2026-03-10T11:00:03.000000Z')).toBe(true);
    }
  });

  test('a status names a message Meta took: a reply recorded superseded was sent after all', async () => {
    const { reply, callbackData } = await storedReply('superseded');
    expect(await receipts.execute([status(callbackData, 'delivered', 2)])).toMatchObject({ settled: 1 });
    expect((await reread(reply)).deliveryStatus).toBe('sent');
  });

  test('replies WhatsApp refused and customer messages are left alone', async () => {
    const { reply, callbackData } = await storedReply('failed_permanent');
    expect(await receipts.execute([status(callbackData, 'delivered', 2)])).toMatchObject({ unchanged: 1 });
    expect((await reread(reply)).deliveryStatus).toBe('failed_permanent');
    const inbound: Message = { customerId: newCustomer(), sessionId: 'S1', messageId: newMessageId(), direction: 'inbound', role: 'user', text: 'oi', timestamp: '2026-03-10T11:00:00.000001Z' };
    await messages.append(inbound);
    expect(await receipts.execute([status(callbackDataOf(messages.refFor(inbound)), 'read', 2)])).toMatchObject({ unchanged: 1 });
    // A message that is not stored (erased, or past its retention) is not created by its status.
    expect(await receipts.execute([status(callbackDataOf({ customerId: newCustomer(), sortKey: 'MSG#2026-03-10T11:00:00.000001Z#gone' }), 'read', 2)])).toMatchObject({ unchanged: 1 });
  });
});

describe('statuses that are not the message they name', () => {
  test('a status of another customer carrying R’s callback data is not ours: R’s reply keeps its receipt, and no request is made', async () => {
    const { reply, callbackData } = await storedReply('sent');
    await receipts.execute([status(callbackData, 'delivered', 2)]);
    calls.reset();
    // Another app on the account sent X a message with R's callback data; X's failure names R's reply.
    const forged = status(callbackData, 'failed', 3, { recipientIds: [newCustomer()], providerMessageId: 'wamid.TO-X', errorCode: 131047 });
    expect(await receipts.execute([forged, status(callbackData, 'read', 4, { recipientIds: [] })])).toMatchObject({ notOurs: 2, recorded: 0, failures: [] });
    expect(calls.operations()).toEqual([]);
    expect((await reread(reply)).receipt).toEqual({ status: 'delivered', at: '2026-03-10T11:00:02.000000Z' });
  });

  test('a business-scoped user id names the recipient as well as a phone does', async () => {
    const { reply, callbackData } = await storedReply('sent', { customerId: 'BR.1a2b3c4d5e6f' });
    expect(await receipts.execute([status(callbackData, 'delivered', 2, { recipientIds: ['BR.1a2b3c4d5e6f'] })])).toMatchObject({ recorded: 1 });
    expect((await reread(reply)).receipt?.status).toBe('delivered');
  });

  test('a status of another wamid than the reply was sent as changes nothing; every part of a split reply counts', async () => {
    const { reply, callbackData } = await storedReply('sent');
    expect(await receipts.execute([status(callbackData, 'failed', 2, { providerMessageId: 'wamid.OTHER', errorCode: 131047 })])).toMatchObject({ unchanged: 1, failures: [] });
    expect((await reread(reply)).receipt).toBeUndefined();

    const split = await storedReply('sent', { providerMessageId: 'wamid.PART1', providerMessageIds: ['wamid.PART1', 'wamid.PART2'] });
    expect(await receipts.execute([status(split.callbackData, 'delivered', 3, { providerMessageId: 'wamid.PART2' })])).toMatchObject({ recorded: 1 });
    expect(await receipts.execute([status(split.callbackData, 'read', 4, { providerMessageId: 'wamid.PART1' })])).toMatchObject({ recorded: 1 });
    expect((await reread(split.reply)).receipt?.status).toBe('read');
  });

  test('callback data in the pipeline’s form that names no message is not ours, and the statuses beside it are still recorded', async () => {
    const { reply, callbackData } = await storedReply('sent');
    const customerId = reply.customerId;
    const poison = ['SESSION', 'ACTIVE', 'MSG#', 'MSG#yesterday#m1', 'MSG#2026-03-10T11:00:00Z#m1', 'MSG#2026-03-10T11:00:00.000001Z#a#b', 'NOTE#2026-03-10T11:00:00.000001Z#n1', `MSG#2026-03-10T11:00:00.000001Z#${'é'.repeat(20)}`];
    calls.reset();
    const result = await receipts.execute([...poison.map((sortKey, index) => status(`r1 ${customerId} ${sortKey}`, 'failed', index, { recipientIds: [customerId] })), status(callbackData, 'delivered', 9)]);
    expect(result).toMatchObject({ notOurs: poison.length, recorded: 1, failures: [] });
    expect(calls.operations()).toEqual(['update']);
    expect((await reread(reply)).receipt?.status).toBe('delivered');
  });
});

describe('messages sent outside a turn', () => {
  const watermarks: string[] = [];
  const outOfTurn = () => ({ messages, receipts: { advanceHistoryWatermark: async (_customerId: string, timestamp: string) => void watermarks.push(timestamp) }, clock, ids: { newId: newMessageId } });
  const conversation = () => ({ customerId: newCustomer(), sessionId: 'S1' });

  test('an operator’s reply is sent naming the message it is recorded as, and each status is one write on it', async () => {
    const session = conversation();
    const sends: string[] = [];
    const recorded = await sendOutOfTurn(outOfTurn(), session, { role: 'operator', text: 'Oi, sou a Bia', operatorPhone: '5511900000001' }, async (callbackData) => {
      sends.push(callbackData);
      return { providerMessageId: 'wamid.SENT', providerMessageIds: ['wamid.SENT'] };
    });
    expect(sends).toEqual([callbackDataOf(messages.refFor(recorded))]);
    expect(await reread(recorded)).toMatchObject({ role: 'operator', deliveryStatus: 'sent', providerMessageId: 'wamid.SENT' });
    expect(watermarks.at(-1)).toBe(recorded.timestamp);
    calls.reset();
    for (const [kind, second] of [['sent', 2], ['delivered', 3], ['read', 4]] as const) {
      expect(await receipts.execute([status(sends[0], kind, second)])).toMatchObject({ recorded: 1 });
    }
    expect(calls.operations()).toEqual(['update', 'update', 'update']);
    expect((await reread(recorded)).receipt?.status).toBe('read');
  });

  test('a send WhatsApp refuses records nothing: the key it named stays empty', async () => {
    const session = conversation();
    let named: string | undefined;
    const refusal = new Error('refused');
    await expect(
      sendOutOfTurn(outOfTurn(), session, { role: 'system', text: 'Aviso' }, async (callbackData) => {
        named = callbackData;
        throw refusal;
      }),
    ).rejects.toBe(refusal);
    expect((await messages.history(session.customerId)).items).toEqual([]);
    expect(await receipts.execute([status(named, 'delivered', 2)])).toMatchObject({ unchanged: 1 });
  });
});
