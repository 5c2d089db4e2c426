import { createHash } from 'node:crypto';
import { AgentInvocationError } from '../ports/agent';
import { type AgentToolRounds, type ConsumerTool, type ModelRound, TOOL_OUTCOME_TELLS_MODEL, type ToolCallRecord, type ToolCallResult, type ToolTurnContext, type ToolUse, type TurnCheckpointStore } from '../ports/agent-tools';
import type { Clock } from '../ports/clock';

/** What a turn's tool rounds need besides the store: the turn, its latest-message probe and its clock. */
export interface TurnToolRoundsOptions {
  readonly store: Pick<TurnCheckpointStore, 'load' | 'save'>;
  readonly clock: Clock;
  readonly context: ToolTurnContext;
  /** One agent run of the turn: the single agent's, or a stage's (`<handover count>:<stage>`). */
  readonly run: string;
  /**
   * A consistent read of the marker under the persist guard's rule: `false` when a newer message
   * arrived. Asked right before every call with side effects; a failed read fails the call (and the
   * turn, which is retried), never lets it run unchecked.
   */
  readonly stillLatest: () => Promise<boolean>;
  /** Epoch milliseconds by which every call must have returned. */
  readonly deadline: number;
}

/**
 * The turn's side of the agent's consumer tool calls (docs/DESIGN.md#consumer-tools): a tool
 * without side effects is simply called; a tool with side effects is called only after the turn
 * checked it is still the latest, with an intent persisted before the call (the model's rounds so
 * far, so a retry resumes from them instead of asking the model again, whose tool-use ids would
 * differ) and its result persisted before the model reads it. On a retry the persisted rounds are
 * replayed: a stored result is the model's answer again (`replayed`), an intent without a result is
 * called again under the same idempotency key (`recalled`), which the consumer's function honours.
 */
export class TurnToolRounds implements AgentToolRounds {
  private readonly rounds: Array<ModelRound & { readonly calls: ToolCallRecord[] }> = [];
  private resumed: readonly ModelRound[] = [];
  /** Every consumer tool call of this run, in order: the turn's report and trace read them. */
  readonly calls: ToolCallRecord[] = [];

  constructor(private readonly options: TurnToolRoundsOptions) {}

  async resume(): Promise<readonly ModelRound[]> {
    const { store, context, run } = this.options;
    this.resumed = await store.load(context.customerId, turnIdOf(context), run);
    return this.resumed;
  }

  async run(round: { readonly message: unknown; readonly stopReason: string }, uses: readonly ToolUse[], tools: readonly ConsumerTool[], replaying?: number): Promise<readonly ToolCallResult[] | 'superseded'> {
    const stored = replaying === undefined ? undefined : this.resumed[replaying];
    const calls: ToolCallRecord[] = [];
    this.rounds.push({ message: round.message, stopReason: round.stopReason, calls });
    const results: ToolCallResult[] = [];
    for (const use of uses) {
      const tool = tools.find((candidate) => candidate.name === use.name)!;
      const earlier = stored?.calls.find((call) => call.toolUseId === use.toolUseId);
      const record = await this.callOnce(tool, use, earlier, calls);
      if (record === 'superseded') return 'superseded';
      this.calls.push(record);
      results.push(record.result!);
    }
    return results;
  }

  /**
   * One call under the rules above, recorded in its round's `calls` (persisted with the rounds when
   * the tool has side effects: the intent before the call, the result after it).
   */
  private async callOnce(tool: ConsumerTool, use: ToolUse, earlier: ToolCallRecord | undefined, calls: ToolCallRecord[]): Promise<ToolCallRecord | 'superseded'> {
    const base = { toolUseId: use.toolUseId, name: use.name, sideEffects: tool.sideEffects };
    const record = (made: ToolCallRecord) => (calls.push(made), made);
    if (earlier?.result !== undefined) return record({ ...base, result: earlier.result, replayed: true });
    const problems = tool.validate(use.input);
    if (problems.length > 0) return record({ ...base, result: { outcome: 'invalid_input', content: { error: 'invalid_input', problems } }, durationMs: 0 });
    if (!tool.sideEffects) return record(await this.timed(base, tool, use));

    if (!(await this.options.stillLatest())) return 'superseded';
    // The intent: every round so far, this call without a result. A crash after the call leaves it for the retry.
    calls.push(base);
    await this.persist();
    const made = { ...(await this.timed(base, tool, use, idempotencyKeyOf(this.options.context, use.toolUseId))), ...(earlier !== undefined && { recalled: true }) };
    calls[calls.length - 1] = made;
    await this.persist();
    return made;
  }

  /** The call, timed; an outcome the model is not told fails the turn, which a retry repeats (under the same key). */
  private async timed(base: Omit<ToolCallRecord, 'result'>, tool: ConsumerTool, use: ToolUse, idempotencyKey?: string): Promise<ToolCallRecord> {
    const started = this.options.clock.now().getTime();
    const result = await tool.call({ input: use.input, context: this.options.context, toolUseId: use.toolUseId, deadline: this.options.deadline, ...(idempotencyKey !== undefined && { idempotencyKey }) });
    if (!TOOL_OUTCOME_TELLS_MODEL[result.outcome]) {
      throw new AgentInvocationError(result.outcome === 'function_error' ? 'function_error' : 'invocation_failed', `Tool ${tool.name} failed (${result.outcome}); the turn is retried`);
    }
    return { ...base, result, durationMs: this.options.clock.now().getTime() - started };
  }

  private persist(): Promise<void> {
    const { store, context, run } = this.options;
    return store.save(context.customerId, turnIdOf(context), run, this.rounds);
  }
}

/** The turn's id: the newest customer message it answers. */
function turnIdOf(context: ToolTurnContext): string {
  return context.messageIds[context.messageIds.length - 1];
}

/**
 * The key the consumer's function deduplicates on: the turn (its newest message) and the model's
 * tool-use id, hashed so it carries no message id the function could misread, and stable across
 * every attempt of the turn because the round that asked for the tool is persisted and replayed.
 */
export function idempotencyKeyOf(context: ToolTurnContext, toolUseId: string): string {
  return createHash('sha256').update(`${context.customerId}\n${turnIdOf(context)}\n${toolUseId}`, 'utf8').digest('hex').slice(0, 40);
}
