import type { Clock, IdGenerator } from '../../lambda/core/ports/clock';

/** A clock that only moves when the test says so. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: string | Date = '2026-03-10T12:00:00.000Z') {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  set(instant: string | Date): void {
    this.current = new Date(instant).getTime();
  }

  advance(millis: number): void {
    this.current += millis;
  }
}

/** Predictable ids: `prefix-1`, `prefix-2`, … */
export class SequentialIds implements IdGenerator {
  private next = 0;
  constructor(private readonly prefix = 'id') {}
  newId(): string {
    this.next += 1;
    return `${this.prefix}-${this.next}`;
  }
}
