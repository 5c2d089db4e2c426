import type { Clock } from '../../ports/clock';

/** The machine's wall clock. */
export const systemClock: Clock = {
  now: () => new Date(),
};
