import { OPERATOR_AVAILABILITY_CONFIG_KEY } from '../../domain/admin';
import { isAvailabilityValid } from '../../domain/operator';
import { AVAILABILITY_TTL_CONFIG_KEY, availabilityTtlHoursFrom } from '../../domain/operational-settings';
import type { OperationalConfigRepository } from '../../ports/repositories';

/**
 * The phones of the operators available at `now`: the `operator_availability` entries still valid
 * in `timeZone` under the `availability_ttl_hours` setting. The handoff notifications page these
 * operators, and the console shows each operator the same answer.
 */
export async function availableOperatorPhones(config: OperationalConfigRepository, now: Date, timeZone: string): Promise<ReadonlySet<string>> {
  const [availability, ttl] = await Promise.all([config.get(OPERATOR_AVAILABILITY_CONFIG_KEY), config.get(AVAILABILITY_TTL_CONFIG_KEY)]);
  const ttlHours = availabilityTtlHoursFrom(ttl?.value);
  const entries = Object.entries((availability?.value ?? {}) as Record<string, unknown>);
  return new Set(entries.filter(([, since]) => typeof since === 'string' && isAvailabilityValid(since, now, timeZone, ttlHours)).map(([phone]) => phone));
}
