import type { DeadLetterInspection } from '../../domain/dead-letter-verdict';
import type { Operator } from '../../domain/operator';
import { isoMicros } from '../../domain/timestamps';
import type { Clock } from '../../ports/clock';
import type { OperationalConfigRepository } from '../../ports/repositories';
import type { RedriveDeadLetters, RedriveOutcome } from '../redrive-dead-letters';
import type { OperatorAuditTrail } from './operator-audit';

/** Where the last reading of the dead-letter queue is kept (beside the settings; never editable). */
export const DEAD_LETTER_SNAPSHOT_CONFIG_KEY = 'dead_letter_snapshot';

/** Cards kept per reading: a queue this full needs `npm run redrive`, not a screen. */
export const DEAD_LETTER_SNAPSHOT_MAX_CARDS = 100;

/** What the screen shows of one record: its verdict and why, without the stored items it was decided from. */
export type DeadLetterCard = Pick<DeadLetterInspection, 'recordId' | 'receiveCount' | 'queuedAt' | 'customer' | 'messageId' | 'session' | 'replies' | 'parked' | 'verdict' | 'reasons' | 'explanation' | 'onConfirm'>;

export interface DeadLetterSnapshot {
  /** When the queue was read, and by whom. */
  readonly takenAt: string;
  readonly takenBy: string;
  /** Records the reading saw (more than `items` when it held more than the cards kept). */
  readonly count: number;
  /** In the queue's FIFO order. */
  readonly items: readonly DeadLetterCard[];
}

export interface DeadLetterScreenDependencies {
  readonly redrive: RedriveDeadLetters;
  readonly config: Pick<OperationalConfigRepository, 'get' | 'set'>;
  readonly trail: OperatorAuditTrail;
  readonly clock: Clock;
}

/**
 * The console's view of the dead-letter queue. Reading SQS is a receive: it hides the records for a
 * while and counts as one more delivery attempt of each. So the queue is read only when an admin
 * asks (refresh, dry run, redrive, or a first visit with nothing read yet), and every screen read
 * shows the snapshot that reading left in the table.
 */
export class DeadLetterScreen {
  constructor(private readonly deps: DeadLetterScreenDependencies) {}

  /** The last reading; the first visit of all reads the queue once. */
  async current(admin: Operator): Promise<DeadLetterSnapshot> {
    const stored = await this.deps.config.get(DEAD_LETTER_SNAPSHOT_CONFIG_KEY);
    return stored === undefined ? this.refresh(admin) : (stored.value as DeadLetterSnapshot);
  }

  /** Reads the queue once (nothing changes in it) and keeps what it saw. */
  async refresh(admin: Operator): Promise<DeadLetterSnapshot> {
    return this.keep(admin, await this.deps.redrive.inspectAll());
  }

  /** The dry run: every record inspected, nothing changed; the screen then shows this reading. */
  async dryRun(admin: Operator): Promise<RedriveOutcome[]> {
    const inspections = await this.deps.redrive.inspectAll();
    await this.keep(admin, inspections);
    return inspections.map((inspection) => ({ inspection, action: 'inspected' }));
  }

  /** The safe redrive (audited); what it left in the queue becomes the screen's reading. */
  async redrive(admin: Operator): Promise<RedriveOutcome[]> {
    const outcomes = await this.deps.redrive.run({ apply: true });
    await this.keep(
      admin,
      outcomes.filter((outcome) => outcome.action === 'held').map((outcome) => outcome.inspection),
    );
    const counts = Object.fromEntries(['dropped', 'redriven', 'held'].map((action) => [action, outcomes.filter((outcome) => outcome.action === action).length]));
    await this.deps.trail.record({ author: admin.phone, action: 'dead_letters.redrive', resourceType: 'dead_letters', details: counts });
    return outcomes;
  }

  /** An erased customer leaves the reading too (the erasure already took their records from the queue). */
  async forget(customerId: string): Promise<void> {
    const stored = await this.deps.config.get(DEAD_LETTER_SNAPSHOT_CONFIG_KEY);
    if (stored === undefined) return;
    const snapshot = stored.value as DeadLetterSnapshot;
    const items = snapshot.items.filter((card) => card.customer !== customerId);
    if (items.length === snapshot.items.length) return;
    await this.deps.config.set({ key: DEAD_LETTER_SNAPSHOT_CONFIG_KEY, value: { ...snapshot, count: snapshot.count - (snapshot.items.length - items.length), items }, author: stored.author });
  }

  private async keep(admin: Operator, inspections: readonly DeadLetterInspection[]): Promise<DeadLetterSnapshot> {
    const snapshot: DeadLetterSnapshot = {
      takenAt: isoMicros(this.deps.clock.now()),
      takenBy: admin.phone,
      count: inspections.length,
      items: inspections.slice(0, DEAD_LETTER_SNAPSHOT_MAX_CARDS).map(cardOf),
    };
    await this.deps.config.set({ key: DEAD_LETTER_SNAPSHOT_CONFIG_KEY, value: snapshot, author: admin.phone });
    return snapshot;
  }
}

function cardOf({ recordId, receiveCount, queuedAt, customer, messageId, session, replies, parked, verdict, reasons, explanation, onConfirm }: DeadLetterInspection): DeadLetterCard {
  return { recordId, receiveCount, queuedAt, customer, messageId, session, replies, parked, verdict, reasons, explanation, onConfirm };
}
