import { randomUUID } from 'node:crypto';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { physicalNames } from '../../../../lib/contract';
import { SqsDeadLetterQueue } from '../../../../lambda/core/adapters/sqs/sqs-dead-letter-queue';
import { SignedSqs } from '../../../../lambda/core/adapters/sqs/sqs-api';
import { removeCustomerDeadLetters } from '../../../../lambda/core/application/privacy/customer-dead-letters';
import { createTurnQueues } from '../../../../local/servers/local-resources';
import { newCustomer, newMessageId } from '../../../support/ids';
import { takeAll } from '../../../support/inspect';

const sqs = new SQSClient({});
afterAll(() => sqs.destroy());

test('deletes every dead letter of the customer and leaves the others in their order, visible at once', async () => {
  const { deadLetterQueueUrl } = await createTurnQueues(sqs, physicalNames('erase-dlq', randomUUID().slice(0, 8)));
  const [erased, first, second] = [newCustomer(), newCustomer(), newCustomer()];
  const sent: { customer: string; messageId: string }[] = [];
  for (const customer of [first, erased, first, erased, second, erased, first]) {
    const messageId = newMessageId();
    sent.push({ customer, messageId });
    await sqs.send(
      new SendMessageCommand({ QueueUrl: deadLetterQueueUrl, MessageBody: JSON.stringify({ phone_number: customer, message_id: messageId }), MessageGroupId: customer, MessageDeduplicationId: randomUUID() }),
    );
  }
  // A record of the customer whose body no turn can read is theirs too: its group names them.
  await sqs.send(new SendMessageCommand({ QueueUrl: deadLetterQueueUrl, MessageBody: 'not a turn', MessageGroupId: erased, MessageDeduplicationId: randomUUID() }));

  const queue = new SqsDeadLetterQueue({ deadLetterQueueUrl, sqs: new SignedSqs() });
  expect(await removeCustomerDeadLetters(queue, erased)).toBe(4);
  expect(await removeCustomerDeadLetters(queue, erased)).toBe(0);

  const left = (await takeAll(deadLetterQueueUrl)).map((message) => ({ group: message.Attributes?.MessageGroupId, body: message.Body, receives: Number(message.Attributes?.ApproximateReceiveCount) }));
  const bodyOf = ({ customer, messageId }: { customer: string; messageId: string }) => JSON.stringify({ phone_number: customer, message_id: messageId });
  const others = sent.filter(({ customer }) => customer !== erased);
  expect(left.map(({ body }) => body).sort()).toEqual(others.map(bodyOf).sort());
  for (const customer of [first, second]) {
    expect(left.filter(({ group }) => group === customer).map(({ body }) => body)).toEqual(others.filter((record) => record.customer === customer).map(bodyOf));
  }
  // Each erasure received a record at most once (this read is one more).
  for (const { receives } of left) expect(receives).toBeLessThanOrEqual(3);
});
