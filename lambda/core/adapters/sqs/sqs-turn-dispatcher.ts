import type { InboundTurn } from '../../domain/inbound-turn';
import type { TurnDispatcher } from '../../ports/turn-dispatcher';
import { deduplicationIdFor, encodeDispatchMessage } from './dispatch-message';
import { SignedSqs, type SqsApi } from './sqs-api';

/**
 * Dispatches turns to the FIFO queue, one message group per customer so a customer's turns are
 * processed in order while different customers proceed in parallel.
 */
export class SqsTurnDispatcher implements TurnDispatcher {
  constructor(
    private readonly turnQueueUrl: string,
    private readonly client: SqsApi = new SignedSqs(),
  ) {}

  async dispatch(turn: InboundTurn): Promise<void> {
    await this.client.call('SendMessage', {
      QueueUrl: this.turnQueueUrl,
      MessageBody: encodeDispatchMessage(turn),
      MessageGroupId: turn.customerId,
      MessageDeduplicationId: deduplicationIdFor(turn.messageId),
    });
  }
}
