import { setTimeout as sleepFor } from 'node:timers/promises';
import { settleUntil, supersededDuringSettle } from '../../domain/burst-settle';
import type { Clock } from '../../ports/clock';
import type { InboundReceiptRepository } from '../../ports/repositories';
import type { GateTurn, GateVerdict, TurnGate } from './turn-gate';

export interface BurstSettleSettings {
  /** How long the customer must have been quiet before the agent is asked; 0: never wait. */
  readonly settleMs: number;
  /** How often the waiting turn re-reads the marker: a newer message frees the customer's queue group within this. */
  readonly pollMs: number;
  /** Time kept back from the invocation deadline for persisting and sending (the agent's deadline is the rest). */
  readonly deliveryReserveMs: number;
}

export interface BurstSettleDependencies {
  readonly receipts: Pick<InboundReceiptRepository, 'getLatest'>;
  readonly clock: Clock;
}

/**
 * One answer per burst (docs/DESIGN.md#one-answer-per-burst): while the customer is still writing, the
 * turn waits — bounded by `settleUntil` — re-reading the marker, with the typing indicator on. A
 * newer message ends the turn without the agent: its own record's turn answers the whole burst.
 * A quiet customer, or a marker that cannot be read (the persist guard still decides), lets the
 * turn through.
 */
export class BurstSettleGate implements TurnGate {
  readonly name = 'burst_settle';
  readonly step = 'with_history';

  constructor(
    private readonly settings: BurstSettleSettings,
    private readonly deps: BurstSettleDependencies,
  ) {}

  async check({ pending, last, deadline, showTyping }: GateTurn): Promise<GateVerdict | undefined> {
    const agentDeadline = deadline - this.settings.deliveryReserveMs;
    const until = settleUntil(pending, last, { settleMs: this.settings.settleMs, agentDeadline, now: this.now() });
    if (until <= this.now()) return undefined;
    void showTyping();
    for (let now = this.now(); now < until; now = this.now()) {
      await sleepFor(Math.min(this.settings.pollMs, until - now));
      const latest = await this.deps.receipts.getLatest(last.customerId).catch(() => undefined);
      if (latest === undefined) return undefined;
      const superseded = supersededDuringSettle(latest, last.messageId);
      if (superseded === 'pending') return { kind: 'unanswered', outcome: 'burst_continued', keepPending: true };
      if (superseded === 'completed') return { kind: 'unanswered', outcome: 'superseded' };
    }
    return undefined;
  }

  private now(): number {
    return this.deps.clock.now().getTime();
  }
}
