import type { Session } from '../../domain/session';
import type { CustomerDataRepository } from '../../ports/customer-data';
import type { EvaluationCleanup } from '../../ports/evaluation';
import type { DynamoHandoffReport } from './handoff-report-repository';

/**
 * Erases a played scenario's customer as an erasure would (customer-data-repository.ts: every
 * partition named after the customer and what it references), and the handoff items of its
 * sessions, which are keyed by day and session and would otherwise count in the admins' report.
 */
export class DynamoEvaluationCleanup implements EvaluationCleanup {
  constructor(
    private readonly data: Pick<CustomerDataRepository, 'inventory' | 'remove'>,
    private readonly handoffs: Pick<DynamoHandoffReport, 'forget'>,
  ) {}

  async forget(customerId: string, sessions: readonly Pick<Session, 'sessionId' | 'handoffRequestedAt'>[]): Promise<void> {
    await Promise.all(sessions.map((session) => this.handoffs.forget(session)));
    const { dependents, anchors } = await this.data.inventory(customerId);
    await this.data.remove(dependents);
    await this.data.remove(anchors);
  }
}
