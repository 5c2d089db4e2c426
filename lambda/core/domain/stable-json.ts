import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted at every depth, so equal values always produce equal text (and equal
 * digests) whatever order their properties were built in. `undefined` properties are omitted, as
 * JSON.stringify does.
 */
export function stableStringify(value: unknown): string {
  return JSON.stringify(sortKeysDeep(value));
}

function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const child = (value as Record<string, unknown>)[key];
    if (child !== undefined) sorted[key] = sortKeysDeep(child);
  }
  return sorted;
}

/** Hex SHA-256 of the stable JSON of `value`. */
export function stableDigest(value: unknown): string {
  return sha256Hex(stableStringify(value));
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
