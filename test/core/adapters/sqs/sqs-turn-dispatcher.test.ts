import { randomUUID } from 'node:crypto';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { physicalNames } from '../../../../lib/contract';
import { decodeDispatchMessage, deduplicationIdFor } from '../../../../lambda/core/adapters/sqs/dispatch-message';
import { SqsTurnDispatcher } from '../../../../lambda/core/adapters/sqs/sqs-turn-dispatcher';
import { SignedSqs } from '../../../../lambda/core/adapters/sqs/sqs-api';
import type { InboundTurn } from '../../../../lambda/core/domain/inbound-turn';
import { createTurnQueues } from '../../../../local/servers/local-resources';

const client = new SQSClient({});

function turn(customerId: string, messageId: string): InboundTurn {
  return {
    customerId,
    customerIdKind: 'phone',
    messageId,
    providerTimestamp: '2026-11-30T12:00:00.000Z',
    receivedAt: '2026-11-30T12:00:01.000Z',
    messageType: 'text',
    text: 'customer text that must never reach the queue',
    businessPhoneNumberId: '106540352242922',
  };
}

async function receiveAll(queueUrl: string) {
  const { Messages = [] } = await client.send(
    new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, MessageSystemAttributeNames: ['MessageGroupId', 'MessageDeduplicationId'], WaitTimeSeconds: 0 }),
  );
  return Messages;
}

test('dispatches ids only, grouped by customer, deduplicated by the message id digest', async () => {
  const { turnQueueUrl: queueUrl } = await createTurnQueues(client, physicalNames('dispatch', randomUUID().slice(0, 8)));
  const dispatcher = new SqsTurnDispatcher(queueUrl, new SignedSqs());
  await dispatcher.dispatch(turn('5511988887777', 'wamid.A1'));
  await dispatcher.dispatch(turn('5511988887777', 'wamid.A1'));

  const messages = await receiveAll(queueUrl);
  expect(messages).toHaveLength(1);
  const [message] = messages;
  expect(JSON.parse(message.Body!)).toEqual({ phone_number: '5511988887777', message_id: 'wamid.A1' });
  expect(message.Attributes?.MessageGroupId).toBe('5511988887777');
  expect(message.Attributes?.MessageDeduplicationId).toBe(deduplicationIdFor('wamid.A1'));
  expect(deduplicationIdFor('wamid.A1')).toMatch(/^[0-9a-f]{64}$/);
});

test('an unreachable queue surfaces as an error, never as success', async () => {
  const dispatcher = new SqsTurnDispatcher('http://127.0.0.1:9/000000000000/missing.fifo', new SignedSqs({ endpoint: 'http://127.0.0.1:9', maxAttempts: 1 }));
  await expect(dispatcher.dispatch(turn('1', 'wamid.X'))).rejects.toThrow();
});

describe('decodeDispatchMessage', () => {
  test.each([
    ['{"phone_number":"55","message_id":"wamid.1"}', { customerId: '55', messageId: 'wamid.1' }],
    ['{"phone_number":"55"}', { customerId: '55', messageId: undefined }],
    ['{"message_id":"wamid.1"}', undefined],
    ['{"phone_number":""}', undefined],
    ['{"phone_number":55}', undefined],
    ['not json', undefined],
    ['null', undefined],
  ])('%s', (body, expected) => {
    expect(decodeDispatchMessage(body)).toEqual(expected);
  });
});
