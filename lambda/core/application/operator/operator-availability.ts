import { OPERATOR_AVAILABILITY_CONFIG_KEY } from '../../domain/admin';
import { isAvailabilityValid, type Operator } from '../../domain/operator';
import { AVAILABILITY_TTL_CONFIG_KEY, availabilityTtlHoursFrom } from '../../domain/operational-settings';
import { isoMicros, type IsoTimestamp } from '../../domain/timestamps';
import type { Clock } from '../../ports/clock';
import type { OperationalConfigRepository } from '../../ports/repositories';
import type { OperatorAuditTrail } from './operator-audit';

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

export interface OperatorAvailabilityDependencies {
  readonly config: OperationalConfigRepository;
  readonly audit: OperatorAuditTrail;
  readonly clock: Clock;
  /** The operators' IANA zone, whose midnight ends a declared availability. */
  readonly timeZone: string;
}

/** An operator's own availability, as the handoff notifications see it: declared, and audited. */
export class OperatorAvailability {
  constructor(private readonly deps: OperatorAvailabilityDependencies) {}

  /** Whether the operator is available now. */
  async isAvailable(operator: Operator): Promise<boolean> {
    return (await availableOperatorPhones(this.deps.config, this.deps.clock.now(), this.deps.timeZone)).has(operator.phone);
  }

  /** Declares the operator available (now) or not; returns whether they are available afterwards. */
  async setAvailability(operator: Operator, available: boolean): Promise<{ readonly available: boolean; readonly since?: IsoTimestamp }> {
    const since = available ? isoMicros(this.deps.clock.now()) : null;
    const map = await this.deps.config.setOperatorAvailability(operator.phone, since, operator.phone);
    await this.deps.audit.record({ author: operator.phone, action: 'operator.availability', resourceType: 'operator', resourceId: operator.phone, details: { available } });
    return map[operator.phone] === undefined ? { available: false } : { available: true, since: map[operator.phone] };
  }
}
