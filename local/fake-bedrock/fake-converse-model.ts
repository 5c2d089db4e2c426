import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ContentBlock, ConverseCommandInput, Message, TokenUsage } from '@aws-sdk/client-bedrock-runtime';
import type { ConverseCall } from '../../lambda/core/adapters/agent/bedrock-converse-agent';
import { SESSION_CONTEXT_OPENING, SUMMARY_OPENING } from '../../lambda/core/adapters/agent/bedrock-converse-agent';

export interface FakeConverseModelOptions {
  /** Latency of every round trip, in milliseconds. Default 0. */
  readonly latencyMs?: number;
  /** Awaited before answering (after `latencyMs`), with the 1-based call number: lets a test act mid-call. */
  readonly answerAfter?: (input: ConverseCommandInput, call: number) => Promise<void>;
  /**
   * Tool rounds of a turn before its text reply, each an `update_qualification` of the turn's last
   * message: a number for every turn, or one per turn from its customer messages. Default 1.
   */
  readonly toolRounds?: number | ((turn: readonly string[]) => number);
  /**
   * Tool uses the model makes before anything else, for any tool (a consumer's, the knowledge
   * base's…): asked before each round with the turn's customer messages and the rounds the turn has
   * done; a call is answered as a `tool_use` of that name and input, `undefined` lets the model go on
   * (to `toolRounds`, then its reply). The reply then ends with the results the model read, as
   * ` | resultado: <JSON>` each. Default: none.
   */
  readonly toolCall?: (turn: readonly string[], roundsDone: number) => FakeToolCall | undefined;
  /** Words of filler the reply carries after quoting the turn, for a reply of realistic length. Default 0. */
  readonly replyWords?: number;
  /** The fewest tokens a cache point's prefix must hold to be cached (Claude Sonnet 4: 1,024; Claude 3.5 Haiku: 2,048). Default 1,024. */
  readonly minimumCacheTokens?: number;
  /** How far back from a cache point the model looks for a cached prefix, in content blocks: about 20 for Claude models, 0 for Amazon Nova. Default 20. */
  readonly cacheLookbackBlocks?: number;
}

/** A tool use the fake model is told to make. */
export interface FakeToolCall {
  readonly name: string;
  readonly input: unknown;
}

/** How far back from a cache point a Claude model looks for a cached prefix, in content blocks. */
const CLAUDE_CACHE_LOOKBACK_BLOCKS = 20;
/** The token estimate: one token per four characters of a block's text (or JSON), rounded up. */
const CHARACTERS_PER_TOKEN = 4;

/** A figure of the usage a model reports, summed over calls. */
export interface ModelTotals {
  readonly calls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadInputTokens: number;
  readonly cacheWriteInputTokens: number;
}

/**
 * A Converse stand-in that answers like a model using its tools, and bills like Bedrock: for
 * development, tests and benchmarks, never a network call. A turn takes `toolRounds` tool rounds
 * (an `update_qualification` of the turn's last message) and then replies
 * `Olá! Recebi: <the turn's messages, joined by ' | '>` — the scripted agent's words, so the same
 * assertions read both.
 *
 * Usage is estimated (one token per four characters of each block's text or JSON) and the prompt
 * cache is simulated as Bedrock documents it for Claude models: the request is read as tools, then
 * system, then messages, in content blocks; a cache point caches the prefix before it when that
 * prefix holds at least `minimumCacheTokens`; a later request reads the longest cached prefix that
 * ends at one of its cache points or up to `cacheLookbackBlocks` blocks before one; what lies between that prefix and
 * the last cacheable cache point is written; the rest is input. The cache never expires here (a
 * real one lives five minutes after its last read).
 */
export class FakeConverseModel {
  private readonly cached = new Set<string>();
  private totalsSoFar: ModelTotals = { calls: 0, inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheWriteInputTokens: 0 };

  constructor(private readonly options: FakeConverseModelOptions = {}) {}

  /** Round trips answered and the tokens they reported, since construction. */
  get totals(): ModelTotals {
    return this.totalsSoFar;
  }

  readonly converse: ConverseCall = async (input) => {
    const call = this.totalsSoFar.calls + 1;
    this.totalsSoFar = { ...this.totalsSoFar, calls: call };
    if (this.options.latencyMs) await sleep(this.options.latencyMs);
    await this.options.answerAfter?.(input, call);
    const messages = input.messages ?? [];
    // The turn's customer messages: the last user message with text (the later ones carry tool results).
    const turnStart = messages.map((message) => message.role === 'user' && (message.content ?? []).some((block) => block.text !== undefined)).lastIndexOf(true);
    const roundsDone = messages.slice(turnStart + 1).filter((message) => message.role === 'assistant').length;
    const turn = (messages[turnStart]?.content ?? []).flatMap((block) => (block.text === undefined || block.text.startsWith(SESSION_CONTEXT_OPENING) || block.text.startsWith(SUMMARY_OPENING) ? [] : [block.text]));
    const { toolRounds = 1 } = this.options;
    const asked = this.options.toolCall?.(turn, roundsDone);
    const toolUse = asked !== undefined || roundsDone < (typeof toolRounds === 'number' ? toolRounds : toolRounds(turn));
    const content: ContentBlock[] = toolUse
      ? [{ toolUse: { toolUseId: `tooluse_${call}`, ...(asked ?? { name: 'update_qualification', input: { data: { last_message: (turn.at(-1) ?? '').slice(0, 500) } } }) } as ContentBlock.ToolUseMember['toolUse'] }]
      : [{ text: [`Olá! Recebi: ${turn.join(' | ')}`, ...Array.from({ length: this.options.replyWords ?? 0 }, () => 'palavra'), ...toolResultsRead(messages.slice(turnStart + 1))].join(' ') }];
    const usage = this.bill(input, content);
    this.add(usage);
    return { $metadata: { httpStatusCode: 200 }, output: { message: { role: 'assistant', content } }, stopReason: toolUse ? 'tool_use' : 'end_turn', usage, metrics: { latencyMs: this.options.latencyMs ?? 0 } };
  };

  private bill(input: ConverseCommandInput, answer: ContentBlock[]): TokenUsage {
    const { blocks, cachePoints } = promptBlocks(input);
    const prefixTokens = [0];
    blocks.forEach((block) => prefixTokens.push(prefixTokens.at(-1)! + block.tokens));
    const prefixKey = (end: number) => blocks.slice(0, end).map((block) => block.key).join('\n');
    const minimum = this.options.minimumCacheTokens ?? 1_024;
    const cacheable = cachePoints.filter((end) => prefixTokens[end] >= minimum);
    let read = 0;
    for (const point of cachePoints) {
      for (let end = point; end >= Math.max(1, point - (this.options.cacheLookbackBlocks ?? CLAUDE_CACHE_LOOKBACK_BLOCKS)); end--) {
        if (end > read && this.cached.has(prefixKey(end))) read = end;
      }
    }
    const written = cacheable.filter((end) => end > read);
    written.forEach((end) => this.cached.add(prefixKey(end)));
    const writeEnd = written.at(-1) ?? read;
    const cacheReadInputTokens = prefixTokens[read];
    const cacheWriteInputTokens = prefixTokens[writeEnd] - cacheReadInputTokens;
    const inputTokens = prefixTokens.at(-1)! - cacheReadInputTokens - cacheWriteInputTokens;
    const outputTokens = answer.reduce((sum, block) => sum + tokensOf(block), 0);
    const cachingRequested = cachePoints.length > 0;
    return {
      inputTokens,
      outputTokens,
      totalTokens: inputTokens + outputTokens + cacheReadInputTokens + cacheWriteInputTokens,
      ...(cachingRequested ? { cacheReadInputTokens, cacheWriteInputTokens } : {}),
    };
  }

  private add(usage: TokenUsage): void {
    const reported = { calls: 0, inputTokens: usage.inputTokens ?? 0, outputTokens: usage.outputTokens ?? 0, cacheReadInputTokens: usage.cacheReadInputTokens ?? 0, cacheWriteInputTokens: usage.cacheWriteInputTokens ?? 0 };
    this.totalsSoFar = addTotals(this.totalsSoFar, reported);
  }
}

/** The results the model read in the turn's tool rounds, other than a built-in action's acknowledgement. */
function toolResultsRead(rounds: readonly Message[]): string[] {
  return rounds
    .flatMap((message) => message.content ?? [])
    .flatMap((block) => block.toolResult?.content ?? [])
    .flatMap((content) => (content.json === undefined || JSON.stringify(content.json) === '{"recorded":true}' ? [] : [`| resultado: ${JSON.stringify(content.json)}`]));
}

/** `a` plus `b`, or minus `b` with `sign` -1 (what was used between two readings of {@link FakeConverseModel.totals}). */
export function addTotals(a: ModelTotals, b: ModelTotals, sign: 1 | -1 = 1): ModelTotals {
  return {
    calls: a.calls + sign * b.calls,
    inputTokens: a.inputTokens + sign * b.inputTokens,
    outputTokens: a.outputTokens + sign * b.outputTokens,
    cacheReadInputTokens: a.cacheReadInputTokens + sign * b.cacheReadInputTokens,
    cacheWriteInputTokens: a.cacheWriteInputTokens + sign * b.cacheWriteInputTokens,
  };
}

/** The request as the model reads it — tools, system, then each message's blocks — and where its cache points fall (block counts before them). */
function promptBlocks(input: ConverseCommandInput): { readonly blocks: PromptBlock[]; readonly cachePoints: number[] } {
  const blocks: PromptBlock[] = [];
  const cachePoints: number[] = [];
  const take = (block: object, role?: Message['role']) => {
    if ('cachePoint' in block && block.cachePoint) cachePoints.push(blocks.length);
    else blocks.push({ key: JSON.stringify([role, identityOf(block)]), tokens: tokensOf(block) });
  };
  input.toolConfig?.tools?.forEach((tool) => take(tool));
  input.system?.forEach((block) => take(block));
  input.messages?.forEach((message) => message.content?.forEach((block) => take(block, message.role)));
  return { blocks, cachePoints };
}

interface PromptBlock {
  /** The block and the role of its message: what a cached prefix must match. */
  readonly key: string;
  readonly tokens: number;
}

/**
 * What an image block bills: Claude counts about width × height / 750 tokens of the image as it
 * resizes it, at most about 1,600 for the largest it keeps (1.15 megapixels); a phone photo is that.
 */
const IMAGE_TOKENS = 1_600;

/** What a cached prefix must match of a block: the block itself, an image by its bytes' digest rather than by every byte. */
function identityOf(block: object): object {
  if (!('image' in block) || block.image === undefined) return block;
  const { format, source } = block.image as { format?: string; source?: { bytes?: Uint8Array } };
  return { image: { format, sha256: createHash('sha256').update(source?.bytes ?? new Uint8Array()).digest('hex') } };
}

function tokensOf(block: object): number {
  if ('image' in block && block.image !== undefined) return IMAGE_TOKENS;
  const text = 'text' in block && typeof block.text === 'string' ? block.text : JSON.stringify(block);
  return Math.ceil(text.length / CHARACTERS_PER_TOKEN);
}
