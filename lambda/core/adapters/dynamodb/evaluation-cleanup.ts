import type { Session } from '../../domain/session';
import type { EvaluationCleanup } from '../../ports/evaluation';
import type { DynamoCustomerDataRepository } from './customer-data-repository';
import type { DynamoHandoffReport } from './handoff-report-repository';

/**
 * Erases a played scenario's customer: the items of its own partitions, one DeleteItem each as an
 * erasure deletes them, and the handoff items of its sessions, which are keyed by day and session
 * and would otherwise count in the admins' handoff report.
 */
export class DynamoEvaluationCleanup implements EvaluationCleanup {
  constructor(
    private readonly data: Pick<DynamoCustomerDataRepository, 'evaluationCustomerItems' | 'remove'>,
    private readonly handoffs: Pick<DynamoHandoffReport, 'forget'>,
  ) {}

  async forget(customerId: string, sessions: readonly Pick<Session, 'sessionId' | 'handoffRequestedAt'>[]): Promise<void> {
    await Promise.all(sessions.map((session) => this.handoffs.forget(session)));
    await this.data.remove(await this.data.evaluationCustomerItems(customerId));
  }
}
