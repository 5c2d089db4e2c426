/**
 * Local-calendar arithmetic with the platform's time-zone database (Intl), so no time-zone library
 * is bundled into the functions.
 */
import { OPERATOR_DEFAULTS } from '../../../lib/contract';

/** Offset of `timeZone` from UTC at the instant, in milliseconds (local = utc + offset). */
function zoneOffsetMillis(instantMillis: number, timeZone: string): number {
  const parts = localParts(instantMillis, timeZone);
  const wallClockAsUtc = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
  return wallClockAsUtc - Math.floor(instantMillis / 1000) * 1000;
}

interface LocalParts {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

function localParts(instantMillis: number, timeZone: string): LocalParts {
  const parts = new Map(formatterFor(timeZone).formatToParts(instantMillis).map((part) => [part.type, Number(part.value)]));
  return { year: parts.get('year')!, month: parts.get('month')!, day: parts.get('day')!, hour: parts.get('hour')!, minute: parts.get('minute')!, second: parts.get('second')! };
}

function localDateAsUtcMillis(instantMillis: number, timeZone: string): number {
  const parts = localParts(instantMillis, timeZone);
  return Date.UTC(parts.year, parts.month - 1, parts.day);
}

/**
 * The first instant of the next local day in `timeZone`: 00:00 local, or on a day whose midnight a
 * DST change skips or repeats, the earliest instant whose local date is the next day.
 */
export function nextLocalMidnight(now: Date, timeZone: string = OPERATOR_DEFAULTS.timeZone): Date {
  const nowMillis = now.getTime();
  const tomorrow = localDateAsUtcMillis(nowMillis, timeZone) + 86_400_000;
  // The wall-clock midnight maps to an instant through the zone's offset, which may differ between
  // now and midnight when a DST change lies in between: try both offsets, keep the earliest instant
  // that is already on the next local day.
  const offsetNow = zoneOffsetMillis(nowMillis, timeZone);
  const offsetAtMidnight = zoneOffsetMillis(tomorrow - offsetNow, timeZone);
  const candidates = [tomorrow - offsetNow, tomorrow - offsetAtMidnight].filter((instant) => localDateAsUtcMillis(instant, timeZone) >= tomorrow);
  return new Date(Math.min(...candidates));
}
