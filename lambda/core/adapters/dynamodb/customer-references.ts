/**
 * A reference is an item in the customer's partition that names items stored under keys without
 * the customer in them (a demand and its source marker, an operator's login grant). It is written
 * in the same transaction as what it names, so an erasure or export finds them by key.
 */
import type { Item } from './dynamo-kit';
import { ENTITY_TYPE, PK, SK, type TableKey, TTL } from './keys';

const TARGETS = 'targets';

export function referenceItem(key: TableKey, entityType: string, targets: readonly TableKey[], ttl?: number): Item {
  return { ...key, [ENTITY_TYPE]: entityType, [TARGETS]: targets.map((target) => ({ pk: target[PK], sk: target[SK] })), [TTL]: ttl };
}

/** The keys a reference names (an item that is not a reference names none). */
export function referencedKeys(item: Item): TableKey[] {
  const targets = item[TARGETS];
  if (!Array.isArray(targets)) return [];
  return targets
    .filter((target): target is { pk: string; sk: string } => typeof target?.pk === 'string' && typeof target?.sk === 'string')
    .map((target) => ({ [PK]: target.pk, [SK]: target.sk }));
}
