// Entry point of the orchestrator function. Its behaviour (draining each customer's pending
// messages, the agent call and the reply outbox) is delivered by the turn protocol; until then every
// record is reported as failed so nothing is deleted from the queue unprocessed.
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  return { batchItemFailures: event.Records.map((record) => ({ itemIdentifier: record.messageId })) };
}
