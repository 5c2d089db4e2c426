import { AgentInvocationError } from '../../../lambda/core/ports/agent';
import type { ConsumerTool, ModelRound, ToolCallRequest, ToolCallResult, TurnCheckpointStore } from '../../../lambda/core/ports/agent-tools';
import { idempotencyKeyOf, TurnToolRounds } from '../../../lambda/core/application/turn-tool-rounds';
import { systemClock } from '../../../lambda/core/adapters/system/system-clock';

/** A store in memory that remembers what each save held, in order. */
class MemoryCheckpoints implements Pick<TurnCheckpointStore, 'load' | 'save'> {
  readonly saves: ModelRound[][] = [];
  constructor(private rounds: readonly ModelRound[] = []) {}
  async load(): Promise<readonly ModelRound[]> {
    return this.rounds;
  }
  async save(_customerId: string, _turnId: string, _run: string, rounds: readonly ModelRound[]): Promise<void> {
    this.rounds = JSON.parse(JSON.stringify(rounds)) as ModelRound[];
    this.saves.push(this.rounds as ModelRound[]);
  }
}

const CONTEXT = { customerId: '5511999990000', sessionId: 'session-1', locale: 'pt-BR', messageIds: ['wamid.1', 'wamid.2'] };
const ROUND = { message: { role: 'assistant', content: [{ toolUse: { toolUseId: 'tu-1' } }] }, stopReason: 'tool_use' };
const USE = { toolUseId: 'tu-1', name: 'create_order', input: { sku: 'pao' } };

/** A tool whose calls are recorded, with what the store held at the moment of each call. */
function toolOf(sideEffects: boolean, store: MemoryCheckpoints, answer: ToolCallResult = { outcome: 'ok', content: { orderId: 'o-1' } }) {
  const calls: { request: ToolCallRequest; storedAtCall: ModelRound[] | undefined }[] = [];
  const tool: ConsumerTool = {
    name: 'create_order',
    description: 'd',
    inputSchema: { type: 'object' },
    sideEffects,
    validate: (input) => ((input as { sku?: string }).sku ? [] : ['/sku is required']),
    call: async (request) => (calls.push({ request, storedAtCall: store.saves.at(-1) }), answer),
  };
  return { tool, calls };
}

function roundsOf(store: MemoryCheckpoints, stillLatest: () => Promise<boolean> = async () => true) {
  return new TurnToolRounds({ store, clock: systemClock, context: CONTEXT, run: '0:', stillLatest, deadline: Date.now() + 60_000 });
}

test('a tool with side effects: the intent is persisted before the call, the result before the model reads it, under the turn’s key', async () => {
  const store = new MemoryCheckpoints();
  const { tool, calls } = toolOf(true, store);
  const results = await roundsOf(store).run(ROUND, [USE], [tool]);

  expect(results).toEqual([{ outcome: 'ok', content: { orderId: 'o-1' } }]);
  expect(calls).toHaveLength(1);
  expect(calls[0].storedAtCall).toEqual([{ ...ROUND, calls: [{ toolUseId: 'tu-1', name: 'create_order', sideEffects: true }] }]);
  expect(calls[0].request.idempotencyKey).toBe(idempotencyKeyOf(CONTEXT, 'tu-1'));
  expect(store.saves.at(-1)![0].calls[0]).toMatchObject({ toolUseId: 'tu-1', result: { outcome: 'ok', content: { orderId: 'o-1' } } });
});

test('a turn no longer the latest never calls a tool with side effects, and writes nothing', async () => {
  const store = new MemoryCheckpoints();
  const { tool, calls } = toolOf(true, store);
  expect(await roundsOf(store, async () => false).run(ROUND, [USE], [tool])).toBe('superseded');
  expect(calls).toEqual([]);
  expect(store.saves).toEqual([]);
});

test('a failed read of the marker fails the call instead of letting it run unchecked', async () => {
  const store = new MemoryCheckpoints();
  const { tool, calls } = toolOf(true, store);
  await expect(roundsOf(store, () => Promise.reject(new Error('throttled'))).run(ROUND, [USE], [tool])).rejects.toThrow('throttled');
  expect(calls).toEqual([]);
});

test('a retry replays a persisted result without calling, and calls an intent left without one again under the same key', async () => {
  const persisted: ModelRound[] = [{ ...ROUND, calls: [{ toolUseId: 'tu-1', name: 'create_order', sideEffects: true, result: { outcome: 'ok', content: { orderId: 'o-first' } } }] }];
  const replayStore = new MemoryCheckpoints(persisted);
  const replay = toolOf(true, replayStore);
  const replayRounds = roundsOf(replayStore);
  expect(await replayRounds.resume()).toEqual(persisted);
  expect(await replayRounds.run(ROUND, [USE], [replay.tool], 0)).toEqual([{ outcome: 'ok', content: { orderId: 'o-first' } }]);
  expect(replay.calls).toEqual([]);
  expect(replayRounds.calls[0]).toMatchObject({ replayed: true });

  const intentStore = new MemoryCheckpoints([{ ...ROUND, calls: [{ toolUseId: 'tu-1', name: 'create_order', sideEffects: true }] }]);
  const recall = toolOf(true, intentStore);
  const recallRounds = roundsOf(intentStore);
  await recallRounds.resume();
  await recallRounds.run(ROUND, [USE], [recall.tool], 0);
  expect(recall.calls.map((call) => call.request.idempotencyKey)).toEqual([idempotencyKeyOf(CONTEXT, 'tu-1')]);
  expect(recallRounds.calls[0]).toMatchObject({ recalled: true, result: { outcome: 'ok' } });
});

test('a read-only tool is simply called: no latest check, no key, nothing persisted', async () => {
  const store = new MemoryCheckpoints();
  const { tool, calls } = toolOf(false, store);
  let checks = 0;
  await roundsOf(store, async () => (checks++, true)).run(ROUND, [USE], [tool]);
  expect(calls).toHaveLength(1);
  expect(calls[0].request).not.toHaveProperty('idempotencyKey');
  expect(checks).toBe(0);
  expect(store.saves).toEqual([]);
});

test('an input the schema refuses is answered to the model without a call', async () => {
  const store = new MemoryCheckpoints();
  const { tool, calls } = toolOf(true, store);
  expect(await roundsOf(store).run(ROUND, [{ ...USE, input: {} }], [tool])).toEqual([{ outcome: 'invalid_input', content: { error: 'invalid_input', problems: ['/sku is required'] } }]);
  expect(calls).toEqual([]);
});

test('an outcome the table retries fails the turn retryably, and leaves the intent for the retry', async () => {
  const store = new MemoryCheckpoints();
  const { tool } = toolOf(true, store, { outcome: 'function_error', content: { error: 'function_error' } });
  const failure = await roundsOf(store).run(ROUND, [USE], [tool]).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(AgentInvocationError);
  expect((failure as AgentInvocationError).retryable).toBe(true);
  expect(store.saves.at(-1)![0].calls).toEqual([{ toolUseId: 'tu-1', name: 'create_order', sideEffects: true }]);
});
