import { MalformedItemError } from '../dynamo-errors';
import { isoMicros } from '../../../domain/timestamps';
import type { CarriesUnknownAttributes } from '../../../domain/unknown-attributes';
import type { Item } from '../dynamo-kit';
import { ENTITY_TYPE, type EntityType, KEY_ATTRIBUTES } from '../keys';

/**
 * Reads one stored item into an entity, normalising as it goes (timestamps to the microsecond ISO
 * format, numeric strings to numbers) and remembering which attributes it consumed, so whatever is
 * left over can be carried as the entity's unknown attributes.
 */
export class ItemReader {
  private readonly consumed = new Set<string>([...KEY_ATTRIBUTES, ENTITY_TYPE]);

  constructor(
    private readonly item: Item,
    private readonly entityType: EntityType,
  ) {
    // Rows written before entity types existed have none; a row of ANOTHER type is never accepted.
    const stored = item[ENTITY_TYPE];
    if (stored !== undefined && stored !== entityType) throw new MalformedItemError(entityType, ENTITY_TYPE, `is ${JSON.stringify(stored)}`);
  }

  private take(name: string): unknown {
    this.consumed.add(name);
    const value = this.item[name];
    return value === null ? undefined : value;
  }

  private fail(name: string, problem: string): never {
    throw new MalformedItemError(this.entityType, name, problem);
  }

  string(name: string): string {
    const value = this.optionalString(name);
    return value === undefined ? this.fail(name, 'is missing') : value;
  }

  optionalString(name: string): string | undefined {
    const value = this.take(name);
    if (value === undefined || typeof value === 'string') return value;
    if (typeof value === 'number') return String(value);
    return this.fail(name, `is not a string (${typeof value})`);
  }

  number(name: string, fallback?: number): number {
    const value = this.optionalNumber(name);
    if (value !== undefined) return value;
    return fallback === undefined ? this.fail(name, 'is missing') : fallback;
  }

  optionalNumber(name: string): number | undefined {
    const value = this.take(name);
    if (value === undefined) return undefined;
    const number = typeof value === 'string' ? Number(value) : typeof value === 'bigint' ? Number(value) : value;
    if (typeof number !== 'number' || !Number.isFinite(number)) this.fail(name, `is not a number (${JSON.stringify(value)})`);
    return number;
  }

  boolean(name: string, fallback?: boolean): boolean {
    const value = this.take(name);
    if (typeof value === 'boolean') return value;
    if (value === undefined && fallback !== undefined) return fallback;
    return this.fail(name, value === undefined ? 'is missing' : 'is not a boolean');
  }

  timestamp(name: string): string {
    const value = this.optionalTimestamp(name);
    return value === undefined ? this.fail(name, 'is missing') : value;
  }

  optionalTimestamp(name: string): string | undefined {
    const value = this.optionalString(name);
    if (value === undefined) return undefined;
    try {
      return isoMicros(value);
    } catch {
      return this.fail(name, `is not an ISO-8601 timestamp (${JSON.stringify(value)})`);
    }
  }

  oneOf<T extends string>(name: string, allowed: readonly T[]): T {
    const value = this.optionalOneOf(name, allowed);
    return value === undefined ? this.fail(name, 'is missing') : value;
  }

  optionalOneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    const value = this.optionalString(name);
    if (value === undefined || (allowed as readonly string[]).includes(value)) return value as T | undefined;
    return this.fail(name, `is not one of ${allowed.join(', ')}`);
  }

  map(name: string): Record<string, unknown> {
    return this.optionalMap(name) ?? {};
  }

  optionalMap(name: string): Record<string, unknown> | undefined {
    const value = this.take(name);
    if (value === undefined) return undefined;
    if (typeof value !== 'object' || Array.isArray(value) || value instanceof Set) return this.fail(name, 'is not a map');
    return value as Record<string, unknown>;
  }

  stringList(name: string): string[] {
    const value = this.take(name);
    if (value === undefined) return [];
    const list = value instanceof Set ? [...value] : value;
    if (!Array.isArray(list) || list.some((entry) => typeof entry !== 'string')) return this.fail(name, 'is not a list of strings');
    return list as string[];
  }

  /** Any JSON value, as stored. */
  raw(name: string): unknown {
    return this.take(name);
  }

  /** Everything not consumed so far (call last). */
  unknownAttributes(): CarriesUnknownAttributes {
    const rest = Object.entries(this.item).filter(([name]) => !this.consumed.has(name));
    return rest.length === 0 ? {} : { unknownAttributes: Object.fromEntries(rest) };
  }
}

/** The item to store: unknown attributes first, so the modelled ones always win. */
export function withUnknownAttributes(entity: CarriesUnknownAttributes, modelled: Item): Item {
  return { ...(entity.unknownAttributes ?? {}), ...modelled };
}

/** Maps `undefined` to an absent attribute and normalises the instant. */
export const optionalIso = (value: string | undefined) => (value === undefined ? undefined : isoMicros(value));
