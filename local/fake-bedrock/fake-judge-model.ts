import type { ContentBlock } from '@aws-sdk/client-bedrock-runtime';
import type { ConverseCall } from '../../lambda/core/adapters/agent/bedrock-converse-agent';

/**
 * A deterministic stand-in of the evaluation judge's model (bedrock-evaluation-judge.ts), for tests
 * and local runs: a criterion passes when the reply contains every "quoted phrase" of it
 * (case-insensitive), and a criterion without quotes always passes. It answers in the judge's JSON
 * and bills one token per four characters, as the fake Converse model does.
 */
export const fakeJudgeModel: ConverseCall = async (input) => {
  const text = (input.messages ?? []).flatMap((message) => message.content ?? []).flatMap((block) => (block.text === undefined ? [] : [block.text])).join('\n');
  const section = (tag: string) => new RegExp(`<${tag}[^>]*>\\n([\\s\\S]*?)\\n</${tag}>`).exec(text)?.[1] ?? '';
  const reply = section('reply').toLocaleLowerCase();
  const phrases = [...section('criterion').matchAll(/"([^"]+)"/g)].map((match) => match[1]);
  const missing = phrases.filter((phrase) => !reply.includes(phrase.toLocaleLowerCase()));
  const verdict = missing.length === 0 ? { pass: true, reason: 'The reply meets the criterion.' } : { pass: false, reason: `The reply lacks ${missing.map((phrase) => `"${phrase}"`).join(', ')}.` };
  const content: ContentBlock[] = [{ text: JSON.stringify(verdict) }];
  const tokens = (characters: number) => Math.ceil(characters / 4);
  const usage = { inputTokens: tokens(text.length), outputTokens: tokens(JSON.stringify(verdict).length), totalTokens: 0 };
  return { $metadata: { httpStatusCode: 200 }, output: { message: { role: 'assistant', content } }, stopReason: 'end_turn', usage: { ...usage, totalTokens: usage.inputTokens + usage.outputTokens }, metrics: { latencyMs: 0 } };
};
