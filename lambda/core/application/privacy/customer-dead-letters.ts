import type { DeadLetterQueue, DeadLetterRecord } from '../../ports/dead-letter-queue';

/** The dead-letter queue as an erasure reads it: it never sends a record back. */
export type DeadLetterReader = Pick<DeadLetterQueue, 'receive' | 'release' | 'remove'>;

/**
 * How long the others' records stay hidden while the erasure reads past them; they are shown again
 * as soon as it is done, and only a crash in between leaves them hidden this long.
 */
const HOLD_SECONDS = 60;

/**
 * Deletes the customer's records from the turn queue's dead-letter queue and returns how many.
 * Every record is received once: the customer's are deleted as they come (which lets their later
 * records come), the others are held to the end and then made visible again at once, so each keeps
 * its place in its customer's order and the next redrive finds it as before, with one receive more
 * on its count (records behind a held one in the same customer's group are not even received). A
 * record a concurrent redrive holds is not seen: run the erasure again after it.
 */
export async function removeCustomerDeadLetters(queue: DeadLetterReader, customerId: string): Promise<number> {
  const held: DeadLetterRecord[] = [];
  let removed = 0;
  try {
    for (;;) {
      const records = await queue.receive(HOLD_SECONDS);
      if (records.length === 0) return removed;
      for (const record of records) {
        if (record.groupId === customerId || record.turn?.customerId === customerId) {
          await queue.remove(record);
          removed++;
        } else {
          held.push(record);
        }
      }
    }
  } finally {
    for (const record of held) await queue.release(record);
  }
}
