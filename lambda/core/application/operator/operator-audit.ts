import type { AuditAction } from '../../../../lib/contract/audit-actions';
import type { Clock, IdGenerator } from '../../ports/clock';
import type { AdminAuditRepository } from '../../ports/repositories';
import { isoMicros } from '../../domain/timestamps';
import type { CustomerPseudonyms } from '../privacy/customer-pseudonyms';

/** Resources that are a customer: their id is the customer id, which the audit never stores. */
const CUSTOMER_RESOURCE_TYPES: readonly string[] = ['conversation', 'customer'];

export interface AuditedAction {
  /** The operator's phone. */
  readonly author: string;
  /** e.g. `conversation.claim`, `prompt.update`: one of the actions the console words (lib/contract/audit-actions.ts). */
  readonly action: AuditAction;
  /** A `conversation` or `customer` resource is named by the customer id, stored as the customer's pseudonym. */
  readonly resourceType?: string;
  readonly resourceId?: string;
  /** The customer the action concerns when the resource is something else (a CRM row): stored as `details.customer`, their pseudonym. */
  readonly customerId?: string;
  /** Never message text, nor a customer id: the audit is read by every admin. */
  readonly details?: Readonly<Record<string, unknown>>;
}

/**
 * Writes every operator and admin action to the admin audit. Customers are named by pseudonym
 * only (docs/PRIVACY.md), so an erasure leaves nothing in the audit that leads back to them.
 */
export class OperatorAuditTrail {
  constructor(
    private readonly audit: AdminAuditRepository,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    readonly pseudonyms: CustomerPseudonyms,
  ) {}

  async record(action: AuditedAction): Promise<void> {
    const { customerId, ...event } = action;
    const namesCustomer = event.resourceId !== undefined && CUSTOMER_RESOURCE_TYPES.includes(event.resourceType ?? '');
    const resourceId = namesCustomer ? await this.pseudonyms.of(event.resourceId!) : event.resourceId;
    const details = customerId === undefined ? event.details : { ...event.details, customer: await this.pseudonyms.of(customerId) };
    await this.audit.record({ eventId: this.ids.newId(), occurredAt: isoMicros(this.clock.now()), ...event, resourceId, details });
  }
}
