import { createHash } from 'node:crypto';
import { isValidCustomerId, isValidMessageId } from '../../domain/inbound-turn';

/**
 * The SQS body exchanged between the webhook and the orchestrator. It carries ids only: the turn
 * itself lives in DynamoDB, so the queue never holds customer text.
 */
export interface DispatchMessage {
  readonly customerId: string;
  readonly messageId: string;
}

export function encodeDispatchMessage(message: DispatchMessage): string {
  return JSON.stringify({ phone_number: message.customerId, message_id: message.messageId });
}

/** What the orchestrator can rely on: the phone always, the message id when the producer sent one. */
export interface ReceivedDispatchMessage {
  readonly customerId: string;
  readonly messageId?: string;
}

/**
 * Returns undefined for a body that is not JSON or has no usable customer id (docs/DESIGN.md#turn-protocol: logged,
 * never retried — a retry could not succeed).
 */
export function decodeDispatchMessage(body: string): ReceivedDispatchMessage | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { phone_number: customerId, message_id: messageId } = parsed as Record<string, unknown>;
  if (typeof customerId !== 'string' || !isValidCustomerId(customerId)) return undefined;
  return { customerId, messageId: typeof messageId === 'string' && isValidMessageId(messageId) ? messageId : undefined };
}

/** FIFO deduplication id: a digest, because message ids may exceed SQS's 128-character limit. */
export function deduplicationIdFor(messageId: string): string {
  return createHash('sha256').update(messageId).digest('hex');
}
