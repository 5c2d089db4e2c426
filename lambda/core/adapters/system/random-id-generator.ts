import { randomUUID } from 'node:crypto';
import type { IdGenerator } from '../../ports/clock';

/** Random (version 4) UUIDs. */
export const randomIdGenerator: IdGenerator = {
  newId: () => randomUUID(),
};
