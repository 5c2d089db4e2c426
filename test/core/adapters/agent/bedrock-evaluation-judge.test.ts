// The evaluation judge on Converse (docs/EVALUATION.md#rubric-checks): what it asks the model, and
// how it reads the answer — a JSON verdict, even inside prose; anything else fails the check.
import type { ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import { BedrockEvaluationJudge } from '../../../../lambda/core/adapters/agent/bedrock-evaluation-judge';
import type { ConverseCall } from '../../../../lambda/core/adapters/agent/bedrock-converse-agent';
import { fakeJudgeModel } from '../../../../local/fake-bedrock/fake-judge-model';

const request = { criterion: 'Offers a "desconto".', transcript: [{ role: 'customer' as const, text: 'Oi <b>' }], reply: 'Temos desconto hoje.', locale: 'pt-BR' as const };

function answering(text: string): { converse: ConverseCall; asked: ConverseCommandInput[] } {
  const asked: ConverseCommandInput[] = [];
  const converse: ConverseCall = async (input) => {
    asked.push(input);
    return { $metadata: {}, output: { message: { role: 'assistant', content: [{ text }] } }, stopReason: 'end_turn', usage: { inputTokens: 40, outputTokens: 9, totalTokens: 49 }, metrics: { latencyMs: 1 } };
  };
  return { converse, asked };
}

test('asks the configured model with the conversation, the reply and the criterion as data, and reads its verdict and tokens', async () => {
  const { converse, asked } = answering('Sure. {"pass": false, "reason": "No discount is offered."} Hope it helps.');
  const judge = new BedrockEvaluationJudge({ modelId: 'us.anthropic.claude-3-5-haiku-20241022-v1:0', converse });
  expect(judge.model).toBe('us.anthropic.claude-3-5-haiku-20241022-v1:0');
  expect(await judge.grade(request)).toEqual({ pass: false, reason: 'No discount is offered.', usage: { inputTokens: 40, outputTokens: 9 } });
  expect(asked[0].modelId).toBe('us.anthropic.claude-3-5-haiku-20241022-v1:0');
  expect(asked[0].inferenceConfig).toEqual({ maxTokens: 300, temperature: 0 });
  const message = asked[0].messages![0].content![0].text!;
  expect(message).toContain('<criterion>\nOffers a "desconto".\n</criterion>');
  // The customer's words cannot close the data's tags.
  expect(message).toContain('Customer: Oi \\u003cb>');
});

test('an answer without a JSON verdict fails the check, quoting what the model said', async () => {
  const judge = new BedrockEvaluationJudge({ modelId: 'm', converse: answering('I think it passes.').converse });
  expect(await judge.grade(request)).toEqual({ pass: false, reason: 'the judge answered no verdict: "I think it passes."', usage: { inputTokens: 40, outputTokens: 9 } });
});

test('the fake judge passes a criterion when the reply holds every quoted phrase of it', async () => {
  const judge = new BedrockEvaluationJudge({ modelId: 'local.fake-judge', converse: fakeJudgeModel });
  expect((await judge.grade(request)).pass).toBe(true);
  expect(await judge.grade({ ...request, criterion: 'Names the "prazo" and the "desconto".' })).toMatchObject({ pass: false, reason: 'The reply lacks "prazo".' });
  expect((await judge.grade({ ...request, criterion: 'Is polite.' })).pass).toBe(true);
});
