import type { InboundRef } from '../domain/inbound-receipt';
import { isoMicros } from '../domain/timestamps';
import type { GateTrace, ToolCallRecord, TurnCheckpointStore, TurnTrace } from '../ports/agent-tools';
import type { Clock } from '../ports/clock';
import type { AgentAnswer } from './turn-agent';

/**
 * The turn's trace (docs/DESIGN.md#a-turns-trace), written beside its checkpoint: the gates it
 * asked, the agent's model round trips and consumer tool calls — names, figures and outcomes,
 * never a text, an input or a result. Best effort: a failed write never fails the turn.
 */
export class TurnTraces {
  constructor(
    private readonly store: Pick<TurnCheckpointStore, 'saveTrace'> | undefined,
    private readonly clock: Clock,
  ) {}

  /** Writes the trace of the turn `last` names; resolves once written or given up. */
  async record(last: InboundRef, gates: readonly GateTrace[], agent?: Pick<AgentAnswer, 'call' | 'stage'>): Promise<void> {
    if (this.store === undefined) return;
    const trace: TurnTrace = {
      at: isoMicros(this.clock.now()),
      gates,
      ...(agent?.stage !== undefined && { stage: agent.stage }),
      ...(agent !== undefined && { stopReason: agent.call.stopReason }),
      modelCalls: agent?.call.modelCalls ?? [],
      toolCalls: (agent?.call.toolCalls ?? []).map(toolCallTrace),
    };
    await this.store.saveTrace(last.customerId, last.messageId, trace).catch(() => undefined);
  }
}

function toolCallTrace({ name, sideEffects, result, durationMs, replayed, recalled }: ToolCallRecord): TurnTrace['toolCalls'][number] {
  return { name, sideEffects, ...(result && { outcome: result.outcome }), ...(durationMs !== undefined && { durationMs }), ...(replayed && { replayed }), ...(recalled && { recalled }) };
}
