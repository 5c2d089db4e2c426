import { OPERATOR_AVAILABILITY_CONFIG_KEY, type OperationalConfig } from '../../domain/admin';
import { ConditionFailedError, VersionConflictError, type OperationalConfigInput, type OperationalConfigRepository } from '../../ports/repositories';
import { isoMicros } from '../../domain/timestamps';
import type { Clock } from '../../ports/clock';
import { AdminAttribute as C, operationalConfigFromItem } from './codecs/admin-codec';
import type { DynamoKit } from './dynamo-kit';
import { ENTITY_TYPE, EntityType, operationalConfigKey } from './keys';
import { conditionally, ITEM_ABSENT, KEY_NAMES } from './repository-support';

/** A writer that creates the availability map can race another creating it; one retry settles it. */
const AVAILABILITY_ATTEMPTS = 3;

/**
 * Named operational settings. Every write is an in-place update that bumps `version` (attributes
 * this code does not model are untouched); callers may compare-and-set on the version they read.
 */
export class DynamoOperationalConfigRepository implements OperationalConfigRepository {
  constructor(
    private readonly kit: DynamoKit,
    private readonly clock: Clock,
  ) {}

  async get(key: string): Promise<OperationalConfig | undefined> {
    const item = await this.kit.get({ key: operationalConfigKey(key), consistentRead: true });
    return item && operationalConfigFromItem(item);
  }

  async set(config: OperationalConfigInput, options: { readonly expectedVersion?: number } = {}): Promise<OperationalConfig> {
    const names: Record<string, string> = { ...this.headerNames(), '#value': C.value };
    const values: Record<string, unknown> = { ...this.headerValues(config.key, config.author), ':value': config.value };
    let condition: string | undefined;
    if (options.expectedVersion === 0) {
      names['#pk'] = KEY_NAMES['#pk'];
      condition = ITEM_ABSENT;
    } else if (options.expectedVersion !== undefined) {
      values[':expected'] = options.expectedVersion;
      condition = '#version = :expected';
    }
    try {
      const item = await this.kit.update({
        key: operationalConfigKey(config.key),
        update: `SET #value = :value, ${this.headerSets()} ADD #version :one`,
        condition,
        names,
        values,
        returnValues: 'ALL_NEW',
      });
      return operationalConfigFromItem(item!);
    } catch (error) {
      if (error instanceof ConditionFailedError) {
        throw new VersionConflictError(`Config ${config.key} is no longer at version ${options.expectedVersion}`, error.reasons, { cause: error });
      }
      throw error;
    }
  }

  /**
   * Edits one entry of the availability map in place (`SET value.#phone` / `REMOVE value.#phone`),
   * so concurrent operators never overwrite each other's entries with a stale copy of the map.
   */
  async setOperatorAvailability(operatorPhone: string, availableSince: string | null, author: string): Promise<Readonly<Record<string, string>>> {
    const key = operationalConfigKey(OPERATOR_AVAILABILITY_CONFIG_KEY);
    const since = availableSince === null ? undefined : isoMicros(availableSince);
    for (let attempt = 1; attempt <= AVAILABILITY_ATTEMPTS; attempt++) {
      let updated: OperationalConfig | undefined;
      const edited = await conditionally(async () => {
        const item = await this.kit.update({
          key,
          update: since === undefined ? `SET ${this.headerSets()} REMOVE #value.#phone ADD #version :one` : `SET #value.#phone = :since, ${this.headerSets()} ADD #version :one`,
          condition: 'attribute_exists(#value)',
          names: { ...this.headerNames(), '#value': C.value, '#phone': operatorPhone },
          values: { ...this.headerValues(OPERATOR_AVAILABILITY_CONFIG_KEY, author), ...(since === undefined ? {} : { ':since': since }) },
          returnValues: 'ALL_NEW',
        });
        updated = operationalConfigFromItem(item!);
      });
      if (edited) return (updated!.value ?? {}) as Record<string, string>;
      if (since === undefined) return {}; // no map yet: nothing to remove
      const created = await conditionally(async () => {
        const item = await this.kit.update({
          key,
          update: `SET #value = :map, ${this.headerSets()} ADD #version :one`,
          condition: 'attribute_not_exists(#value)',
          names: { ...this.headerNames(), '#value': C.value },
          values: { ...this.headerValues(OPERATOR_AVAILABILITY_CONFIG_KEY, author), ':map': { [operatorPhone]: since } },
          returnValues: 'ALL_NEW',
        });
        updated = operationalConfigFromItem(item!);
      });
      if (created) return (updated!.value ?? {}) as Record<string, string>;
    }
    throw new ConditionFailedError('operator_availability kept changing shape; retry');
  }

  private headerSets(): string {
    return '#type = :type, #key = :key, #author = :author, #updated = :now';
  }

  private headerNames(): Record<string, string> {
    return { '#type': ENTITY_TYPE, '#key': 'config_key', '#author': C.author, '#updated': C.updatedAt, '#version': C.version };
  }

  private headerValues(key: string, author: string): Record<string, unknown> {
    return { ':type': EntityType.operationalConfig, ':key': key, ':author': author, ':now': isoMicros(this.clock.now()), ':one': 1 };
  }
}
