import type { Clock, IdGenerator } from '../../ports/clock';
import type { AdminAuditRepository } from '../../ports/repositories';
import { isoMicros } from '../../domain/timestamps';

export interface AuditedAction {
  /** The operator's phone. */
  readonly author: string;
  /** e.g. `conversation.claim`, `prompt.update`. */
  readonly action: string;
  readonly resourceType?: string;
  readonly resourceId?: string;
  /** Never message text: the audit is read by every admin. */
  readonly details?: Readonly<Record<string, unknown>>;
}

/** Writes every operator and admin action to the admin audit. */
export class OperatorAuditTrail {
  constructor(
    private readonly audit: AdminAuditRepository,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  record(action: AuditedAction): Promise<void> {
    return this.audit.record({ eventId: this.ids.newId(), occurredAt: isoMicros(this.clock.now()), ...action });
  }
}
