// End to end on the local runtime with the Bedrock adapter on the fake Converse model: a customer
// message that arrives while the agent is in its tool loop stops the obsolete turn before its next
// model call, and the newer turn answers everything once.
import { BedrockConverseAgent } from '../../lambda/core/adapters/agent/bedrock-converse-agent';
import { FakeConverseModel } from '../../local/fake-bedrock/fake-converse-model';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { newCustomer } from '../support/ids';
import { startTestPipeline } from '../support/pipeline';
import { gate } from '../support/waiting';

let pipeline: LocalPipeline | undefined;
afterEach(async () => {
  await pipeline?.stop();
  pipeline = undefined;
});

it('a message during the tool loop: the held turn makes no second model call, and one reply answers both', async () => {
  const firstCallStarted = gate();
  const releaseFirstCall = gate();
  const model = new FakeConverseModel({
    toolRounds: 1,
    answerAfter: async (_input, call) => {
      if (call !== 1) return;
      firstCallStarted.open();
      await releaseFirstCall.opened;
    },
  });
  const agent = new BedrockConverseAgent({ modelId: 'us.anthropic.claude-sonnet-4-20250514-v1:0', converse: model.converse, promptCaching: { tools: true } });
  pipeline = await startTestPipeline({ agent });
  const customer = newCustomer();

  await pipeline.sendCustomerMessage(customer, 'Olá');
  await firstCallStarted.opened;
  // The model is in its first round (a tool call) when the customer writes again.
  expect((await pipeline.sendCustomerMessage(customer, 'Quero fazer um exame')).status).toBe(200);
  releaseFirstCall.open();
  await pipeline.waitForIdle();

  // 1 round of the obsolete turn (its tool round's answer is dropped) + 2 of the newer one.
  expect(model.totals.calls).toBe(3);
  const replies = pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === customer).map((message) => message.text);
  expect(replies).toEqual(['Olá! Recebi: Olá | Quero fazer um exame']);
  const { session, history } = await pipeline.conversation(customer);
  expect(history.map((message) => [message.role, message.text])).toEqual([
    ['user', 'Olá'],
    ['user', 'Quero fazer um exame'],
    ['assistant', 'Olá! Recebi: Olá | Quero fazer um exame'],
  ]);
  // Only the newer turn's tool call was applied.
  expect(session?.qualificationData).toEqual({ last_message: 'Quero fazer um exame' });
  // The stored reply carries the cache figures the model reported, for the usage report.
  expect(history[2].llm).toMatchObject({ cacheReadInputTokens: expect.any(Number), cacheWriteInputTokens: expect.any(Number) });
});
