/**
 * Every persisted instant is written in ONE fixed-width format, ISO-8601 UTC with microseconds:
 * `2026-01-01T00:00:00.000001Z`. Because the width and zone never vary, lexicographic order of the
 * strings is chronological order — which sort keys (`MSG#{timestamp}#…`, audit, demands) and the
 * GSI1 sort keys depend on. Mixing `…00.000Z` with `…00.000001Z` would sort wrongly ('Z' > '0'), so
 * values are normalised on write and again on read (older rows used `+00:00` and milliseconds).
 * Microseconds are needed to order tied or regressing provider timestamps by a 1 µs bump.
 */

/** An instant as `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
export type IsoTimestamp = string;

const ISO_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?(Z|[+-]\d{2}:?\d{2})$/i;

/** Microseconds since the Unix epoch (exact in a double for ±285 years around 1970). */
export function toEpochMicros(value: string | Date): number {
  if (value instanceof Date) {
    const millis = value.getTime();
    if (Number.isNaN(millis)) throw new RangeError('Invalid Date');
    return millis * 1000;
  }
  const match = ISO_PATTERN.exec(value);
  if (!match) throw new RangeError(`Not an ISO-8601 timestamp with a zone: ${JSON.stringify(value)}`);
  const [, year, month, day, hour, minute, second, fraction = '', zone] = match;
  const wallClockMillis = Date.UTC(+year, +month - 1, +day, +hour, +minute, +second);
  const check = new Date(wallClockMillis);
  if (check.getUTCDate() !== +day || check.getUTCHours() !== +hour || check.getUTCSeconds() !== +second) {
    throw new RangeError(`Not a valid calendar instant: ${JSON.stringify(value)}`);
  }
  const offsetMinutes = zone.toUpperCase() === 'Z' ? 0 : zoneOffsetMinutes(zone);
  const micros = Number(fraction.padEnd(6, '0').slice(0, 6));
  return (wallClockMillis - offsetMinutes * 60_000) * 1000 + micros;
}

function zoneOffsetMinutes(zone: string): number {
  const digits = zone.replace(':', '');
  const sign = digits.startsWith('-') ? -1 : 1;
  return sign * (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5)));
}

export function fromEpochMicros(micros: number): IsoTimestamp {
  if (!Number.isSafeInteger(micros)) throw new RangeError(`Not an integral microsecond count: ${micros}`);
  const millis = Math.floor(micros / 1000);
  const subMillis = micros - millis * 1000;
  return new Date(millis).toISOString().replace('Z', `${String(subMillis).padStart(3, '0')}Z`);
}

/** Normalises any zoned ISO-8601 string or Date to the persisted microsecond format. */
export function isoMicros(value: string | Date): IsoTimestamp {
  return fromEpochMicros(toEpochMicros(value));
}

/** The instant 1 µs after `value`: how tied or regressing timestamps are made strictly increasing. */
export function nextMicrosecond(value: string): IsoTimestamp {
  return fromEpochMicros(toEpochMicros(value) + 1);
}

/** The later of two instants, normalised. */
export function latestOf(a: string, b: string): IsoTimestamp {
  return toEpochMicros(a) >= toEpochMicros(b) ? isoMicros(a) : isoMicros(b);
}

/** Whole seconds since the epoch (DynamoDB's TTL unit), rounded up so an item never expires early. */
export function epochSeconds(value: string | Date): number {
  return Math.ceil(toEpochMicros(value) / 1_000_000);
}

export function addMilliseconds(value: string | Date, millis: number): IsoTimestamp {
  return fromEpochMicros(toEpochMicros(value) + millis * 1000);
}

/**
 * A day of the calendar written `YYYY-MM-DD` (not 2026-02-30). Read as a date, not as a microsecond
 * count: {@link utcDay}'s count cannot hold the calendar's far end.
 */
export function isCalendarDay(text: string): boolean {
  const midnight = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : NaN;
  return !Number.isNaN(midnight) && new Date(midnight).toISOString().slice(0, 10) === text;
}

/** `YYYY-MM-DD` of the UTC day the instant falls in. */
export function utcDay(value: string | Date): string {
  return isoMicros(value).slice(0, 10);
}
