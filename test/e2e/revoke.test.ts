// A message the customer deleted (Meta's `revoke`) end to end on the local runtime: signed Meta POSTs
// → webhook Function URL → DynamoDB Local + SQS FIFO emulator → orchestrator event source → scripted
// agent → fake Graph API. Deleted before its turn, it is never read by the agent and nothing at all
// is sent; deleted after the answer, it is marked in the history and nothing more is sent.
import { ScriptedAgent } from '../../lambda/core/adapters/agent/scripted-agent';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { newCustomer } from '../support/ids';
import { repliesTo } from '../support/media-bucket';
import { startTestPipeline } from '../support/pipeline';
import { gate, waitUntil } from '../support/waiting';

const revoke = (originalMessageId: string) => ({ type: 'revoke', revoke: { original_message_id: originalMessageId } });

let pipeline: LocalPipeline | undefined;
afterEach(async () => {
  await pipeline?.stop();
  pipeline = undefined;
});

it('a message deleted before its turn: the agent never reads it and the fake Graph API receives no message at all', async () => {
  const heldCallStarted = gate();
  const releaseHeldCall = gate();
  const agent = new ScriptedAgent({
    respondAfter: async (request) => {
      if (request.session.customerId !== occupant) return;
      heldCallStarted.open();
      await releaseHeldCall.opened;
    },
  });
  // One invocation at a time: while another customer's turn is held, the deleting customer's turn
  // cannot start, so the revoke is registered before it runs.
  pipeline = await startTestPipeline({ agent, maxConcurrency: 1 });
  const occupant = newCustomer();
  const customer = newCustomer();
  await pipeline.sendCustomerMessage(occupant, 'Olá');
  await heldCallStarted.opened;

  const original = await pipeline.sendCustomerMessage(customer, 'Meu cartão é 4111 1111 1111 1111');
  expect(original.status).toBe(200);
  expect((await pipeline.sendCustomerContent(customer, revoke(original.messageId))).status).toBe(200);
  releaseHeldCall.open();
  await waitUntil(() => repliesTo(pipeline!, occupant).length === 1, 20_000, 'the held turn answered');
  await pipeline.waitForIdle();

  expect(agent.requests.filter((request) => request.session.customerId === customer)).toEqual([]);
  expect(pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === customer)).toEqual([]);
  expect((await pipeline.conversation(customer)).history).toEqual([]);
});

it('a message deleted after the answer is marked deleted without its text, and nothing more is sent', async () => {
  const agent = new ScriptedAgent();
  pipeline = await startTestPipeline({ agent });
  const customer = newCustomer();
  const original = await pipeline.sendCustomerMessage(customer, 'Meu CPF é 123.456.789-00');
  await waitUntil(() => repliesTo(pipeline!, customer).length === 1, 20_000, 'the first answer');
  await pipeline.waitForIdle();
  const callsBefore = agent.calls;

  expect((await pipeline.sendCustomerContent(customer, revoke(original.messageId))).status).toBe(200);
  await pipeline.waitForIdle();

  expect(repliesTo(pipeline, customer)).toHaveLength(1);
  expect(agent.calls).toBe(callsBefore);
  const { history } = await pipeline.conversation(customer);
  expect(history.find((message) => message.messageId === original.messageId)).toMatchObject({ text: '', revokedAt: expect.any(String) });
});
