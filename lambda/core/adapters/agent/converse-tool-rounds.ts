// Types only: Converse's shapes of tools, tool uses and tool results.
import type { ContentBlock, ConverseCommandOutput, Message, Tool, ToolInputSchema, ToolUseBlock } from '@aws-sdk/client-bedrock-runtime';
import type { ModelCallTrace } from '../../ports/agent-tools';
import type { AgentToolRounds, ConsumerTool, ModelRound } from '../../ports/agent-tools';
import type { TokenUsage } from '../../domain/customer-budget';

type JsonDocument = ToolInputSchema.JsonMember['json'];

/** The consumer's tools as Converse specs, offered beside the built-in ones. */
export function consumerToolSpecs(tools: readonly ConsumerTool[]): Tool[] {
  return tools.map((tool) => ({ toolSpec: { name: tool.name, description: tool.description, inputSchema: { json: tool.inputSchema as unknown as JsonDocument } } }));
}

/** A persisted round as the model's answer again: a retry replays it instead of asking the model. */
export function replayedAnswer(round: ModelRound): ConverseCommandOutput {
  // No usage: the model is not asked again.
  return { $metadata: {}, output: { message: round.message as Message }, stopReason: round.stopReason as ConverseCommandOutput['stopReason'] } as ConverseCommandOutput;
}

/**
 * The tool results of one round, in the order of its tool uses: the pipeline's own tools answered
 * by `answerBuiltIn` (an action recorded, a search made), the consumer's run by the turn (`rounds`, which persists what a retry must replay);
 * `superseded` when the turn became obsolete before a call with side effects.
 */
export async function toolResultsOf(
  message: Message,
  stopReason: string,
  toolUses: readonly ToolUseBlock[],
  consumerTools: readonly ConsumerTool[],
  answerBuiltIn: (toolUse: ToolUseBlock) => ContentBlock | Promise<ContentBlock>,
  rounds: AgentToolRounds | undefined,
  replaying: number | undefined,
): Promise<ContentBlock[] | 'superseded'> {
  const isConsumer = (toolUse: ToolUseBlock) => consumerTools.some((tool) => tool.name === toolUse.name);
  const consumerUses = toolUses.filter(isConsumer).map((toolUse) => ({ toolUseId: toolUse.toolUseId ?? '', name: toolUse.name ?? '', input: toolUse.input }));
  const results = rounds === undefined ? consumerUses.map(() => ({ outcome: 'unavailable' as const, content: { error: 'unavailable' } })) : await rounds.run({ message, stopReason }, consumerUses, consumerTools, replaying);
  if (results === 'superseded') return 'superseded';
  let next = 0;
  const consumerResults = toolUses.map((toolUse) => (isConsumer(toolUse) ? results[next++] : undefined));
  return Promise.all(toolUses.map(async (toolUse, index) => {
    const result = consumerResults[index];
    if (result === undefined) return answerBuiltIn(toolUse);
    const { outcome, content } = result;
    // Converse takes a JSON object as a tool result's document.
    const json = (typeof content === 'object' && content !== null && !Array.isArray(content) ? content : { result: content }) as JsonDocument;
    return { toolResult: { toolUseId: toolUse.toolUseId, content: [{ json }], ...(outcome !== 'ok' && { status: 'error' as const }) } };
  }));
}

/** One round trip as the turn's trace keeps it: its tokens, latency and stop reason (no text). */
export function modelCallTrace(usage: TokenUsage, latencyMs: number, stopReason: string | undefined, replayed: boolean): ModelCallTrace {
  return { ...usage, latencyMs, stopReason: stopReason ?? 'unknown', ...(replayed && { replayed }) };
}
