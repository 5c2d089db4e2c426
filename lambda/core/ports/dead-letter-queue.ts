/**
 * The queue where a turn's record lands after its last failed delivery attempt, as the redrive
 * sees it. Records come in the queue's order (FIFO per customer).
 */
export interface DeadLetterQueue {
  /**
   * The next records (up to a small batch), each hidden from other readers for `holdSeconds` while
   * it is looked at; empty when none is left to see.
   */
  receive(holdSeconds: number): Promise<DeadLetterRecord[]>;
  /** Shows a held record to readers again, leaving it in the queue. */
  release(record: DeadLetterRecord): Promise<void>;
  /** Sends the record's body back to the turn queue in its customer's group, as a new message. */
  sendBackToTurnQueue(record: DeadLetterRecord): Promise<void>;
  /** Deletes the record from the dead-letter queue. */
  remove(record: DeadLetterRecord): Promise<void>;
}

export interface DeadLetterRecord {
  /** The queue's id of the record. */
  readonly recordId: string;
  /** The body as it was queued, sent back unchanged. */
  readonly body: string;
  /** The turn the body names; `undefined` when it is not a turn of this pipeline. */
  readonly turn?: { readonly customerId: string; readonly messageId?: string };
  /** Delivery attempts so far. */
  readonly receiveCount: number;
  /** When the record first entered the turn queue, ISO-8601 UTC. */
  readonly queuedAt?: string;
  /** The record's message group: the customer id. */
  readonly groupId?: string;
  /** What the queue needs to release, remove or send back this receipt of the record. */
  readonly handle: string;
}
