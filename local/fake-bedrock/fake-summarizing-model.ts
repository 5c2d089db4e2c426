import type { ConverseCommandInput, ConverseCommandOutput } from '@aws-sdk/client-bedrock-runtime';
import type { ConverseCall } from '../../lambda/core/adapters/agent/bedrock-converse-agent';

export interface FakeSummarizingModelOptions {
  /** Words of filler each summary carries after saying what it folded, for a summary of realistic length. Default 0. */
  readonly summaryWords?: number;
  /** Every call fails as a throttled model would. Default false. */
  readonly fail?: boolean;
}

/**
 * A Converse stand-in for the model that writes the memory's summaries: it answers
 * `Resumo <call>: <n> mensagens.` (n: the messages it was given to fold) and bills like the fake
 * Converse model, one token per four characters. For tests and benchmarks; never a network call.
 */
export class FakeSummarizingModel {
  /** Every request, in order. */
  readonly asked: ConverseCommandInput[] = [];
  /** Tokens billed by every call. */
  readonly totals = { inputTokens: 0, outputTokens: 0 };

  constructor(private readonly options: FakeSummarizingModelOptions = {}) {}

  readonly converse: ConverseCall = async (input) => {
    this.asked.push(input);
    if (this.options.fail) throw Object.assign(new Error('Too many requests, please wait before trying again.'), { name: 'ThrottlingException' });
    const request = JSON.stringify(input.system) + JSON.stringify(input.messages);
    const given = input.messages?.[0]?.content?.[0]?.text ?? '';
    const folded = (given.match(/^(Customer|Assistant) \(/gm) ?? []).length;
    const text = [`Resumo ${this.asked.length}: ${folded} mensagens.`, ...Array.from({ length: this.options.summaryWords ?? 0 }, () => 'palavra')].join(' ');
    const usage = { inputTokens: Math.ceil(request.length / 4), outputTokens: Math.ceil(text.length / 4) };
    this.totals.inputTokens += usage.inputTokens;
    this.totals.outputTokens += usage.outputTokens;
    return { $metadata: { httpStatusCode: 200 }, output: { message: { role: 'assistant', content: [{ text }] } }, stopReason: 'end_turn', usage: { ...usage, totalTokens: usage.inputTokens + usage.outputTokens } } as ConverseCommandOutput;
  };
}
