// The turn's trace keeps names and figures: the gates asked, the model round trips and the tool
// calls' outcomes, never the result the model read; and a trace that cannot be written never fails
// the turn.
import type { ToolCallRecord, TurnTrace } from '../../../lambda/core/ports/agent-tools';
import { TurnTraces } from '../../../lambda/core/application/turn-trace';
import { ManualClock } from '../../support/manual-clock';

const LAST = { customerId: '5511999990000', messageId: 'wamid.LAST' };
const ORDER: ToolCallRecord = { toolUseId: 'tooluse_1', name: 'create_order', sideEffects: true, result: { outcome: 'ok', content: { orderId: 'order-1' } }, durationMs: 42, replayed: true };
const CALL = { iterations: 2, latencyMs: 80, stopReason: 'completed' as const, readReceiptSent: Promise.resolve(true), modelCalls: [{ inputTokens: 10, outputTokens: 3, latencyMs: 30, stopReason: 'tool_use' }], toolCalls: [ORDER] };

it("writes the gates, the model calls and each tool call's name and outcome, without the result the model read", async () => {
  const saved: TurnTrace[] = [];
  const traces = new TurnTraces({ saveTrace: async (_customer, _turn, trace) => void saved.push(trace) }, new ManualClock('2026-12-07T10:00:00Z'));
  await traces.record(LAST, [{ gate: 'latest', verdict: 'passed' }], { call: CALL, stage: 'sell' });
  expect(saved).toEqual([
    {
      at: '2026-12-07T10:00:00.000000Z',
      gates: [{ gate: 'latest', verdict: 'passed' }],
      stage: 'sell',
      stopReason: 'completed',
      modelCalls: CALL.modelCalls,
      toolCalls: [{ name: 'create_order', sideEffects: true, outcome: 'ok', durationMs: 42, replayed: true }],
    },
  ]);
});

it('resolves when the write fails: the turn goes on without its trace', async () => {
  const traces = new TurnTraces({ saveTrace: () => Promise.reject(new Error('throttled')) }, new ManualClock());
  await expect(traces.record(LAST, [{ gate: 'window', verdict: 'decided' }])).resolves.toBeUndefined();
});
