// End to end on the local runtime: the Bedrock agent composed from its settings, on the fake
// Converse model told to call the business's `create_order` tool, whose function (a fake order
// service that honours idempotency keys) the fake Lambda serves to the orchestrator's real client.
import { FakeConverseModel, type FakeToolCall } from '../../local/fake-bedrock/fake-converse-model';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { CHECK_STOCK_TOOL, CREATE_ORDER_TOOL, FakeOrderService } from '../support/fake-order-service';
import { newCustomer } from '../support/ids';
import { startTestPipeline } from '../support/pipeline';
import { gate } from '../support/waiting';

let pipeline: LocalPipeline | undefined;
afterEach(async () => {
  await pipeline?.stop();
  pipeline = undefined;
});

/** The model orders two loaves when the turn's last message asks for an order, once per turn. */
const orderWhenAsked =
  (input: object = { sku: 'pao-frances', quantity: 2 }) =>
  (turn: readonly string[], roundsDone: number): FakeToolCall | undefined =>
    roundsDone === 0 && /pedido/i.test(turn.at(-1) ?? '') ? { name: CREATE_ORDER_TOOL.name, input } : undefined;

function repliesTo(customer: string): string[] {
  return pipeline!.fakeWhatsApp.sent().filter((message) => message.recipient === customer).map((message) => message.text ?? '');
}

it('a customer who asks for an order: the tool is called exactly once, with the turn as its context, and the reply tells its result', async () => {
  const orders = new FakeOrderService();
  const model = new FakeConverseModel({ toolRounds: 0, toolCall: orderWhenAsked() });
  pipeline = await startTestPipeline({ bedrockAgent: { converse: model.converse, tools: [{ ...CREATE_ORDER_TOOL, handler: orders.handler }] } });
  const customer = newCustomer();

  const { messageId } = await pipeline.sendCustomerMessage(customer, 'Quero fazer um pedido de 2 pães');
  await pipeline.waitForIdle();

  expect(orders.orders).toEqual([{ orderId: 'order-1', sku: 'pao-frances', quantity: 2 }]);
  expect(orders.events).toHaveLength(1);
  const [event] = orders.events;
  const { session } = await pipeline.conversation(customer);
  expect(event).toMatchObject({ version: '1', tool: 'create_order', input: { sku: 'pao-frances', quantity: 2 }, context: { customerId: customer, sessionId: session!.sessionId, locale: 'pt-BR', messageIds: [messageId] } });
  expect(event.idempotencyKey).toMatch(/^[0-9a-f]{40}$/);
  expect(repliesTo(customer)).toEqual(['Olá! Recebi: Quero fazer um pedido de 2 pães | resultado: {"orderId":"order-1","sku":"pao-frances","quantity":2}']);
  // Two model calls: the tool use, then the reply.
  expect(model.totals.calls).toBe(2);
});

it('an input the schema refuses goes back to the model, and the function is not called', async () => {
  const orders = new FakeOrderService();
  const model = new FakeConverseModel({ toolRounds: 0, toolCall: orderWhenAsked({ sku: 'pao-frances', quantity: 0 }) });
  pipeline = await startTestPipeline({ bedrockAgent: { converse: model.converse, tools: [{ ...CREATE_ORDER_TOOL, handler: orders.handler }] } });
  const customer = newCustomer();

  await pipeline.sendCustomerMessage(customer, 'Um pedido de zero pães');
  await pipeline.waitForIdle();

  expect(orders.events).toEqual([]);
  const [reply] = repliesTo(customer);
  expect(JSON.parse(reply.split(' | resultado: ')[1])).toEqual({ error: 'invalid_input', problems: ['/quantity must be >= 1'] });
});

it('a read-only tool is simply called, without an idempotency key', async () => {
  const stockChecks: unknown[] = [];
  const checkStock = async (event: unknown) => (stockChecks.push(event), { result: { inStock: 12 } });
  const model = new FakeConverseModel({ toolRounds: 0, toolCall: (_turn, roundsDone) => (roundsDone === 0 ? { name: 'check_stock', input: { sku: 'pao-frances' } } : undefined) });
  const tool = { ...CHECK_STOCK_TOOL, handler: checkStock };
  pipeline = await startTestPipeline({ bedrockAgent: { converse: model.converse, tools: [tool] } });
  const customer = newCustomer();

  await pipeline.sendCustomerMessage(customer, 'Tem pão?');
  await pipeline.waitForIdle();

  expect(stockChecks).toHaveLength(1);
  expect(stockChecks[0]).not.toHaveProperty('idempotencyKey');
  expect(repliesTo(customer)).toEqual(['Olá! Recebi: Tem pão? | resultado: {"inStock":12}']);
});

it('a turn a newer message superseded while the model chose the tool calls it zero times; the newer turn answers both', async () => {
  const orders = new FakeOrderService();
  const firstCallStarted = gate();
  const releaseFirstCall = gate();
  const model = new FakeConverseModel({
    toolRounds: 0,
    toolCall: orderWhenAsked(),
    answerAfter: async (_input, call) => {
      if (call !== 1) return;
      firstCallStarted.open();
      await releaseFirstCall.opened;
    },
  });
  pipeline = await startTestPipeline({ bedrockAgent: { converse: model.converse, tools: [{ ...CREATE_ORDER_TOOL, handler: orders.handler }] } });
  const customer = newCustomer();

  await pipeline.sendCustomerMessage(customer, 'Quero fazer um pedido de 2 pães');
  await firstCallStarted.opened;
  // The model is about to answer with the tool use when the customer changes their mind.
  await pipeline.sendCustomerMessage(customer, 'Espera, não quero mais');
  releaseFirstCall.open();
  await pipeline.waitForIdle();

  expect(orders.events).toEqual([]);
  expect(orders.orders).toEqual([]);
  expect(repliesTo(customer)).toEqual(['Olá! Recebi: Quero fazer um pedido de 2 pães | Espera, não quero mais']);
});

/** Queues with a 2 s visibility timeout, so SQS redelivers a failed record quickly. */
const FAST_RETRIES = { visibilityTimeoutSeconds: 2 };

it('a turn that fails after the tool ran replays the persisted result on its retry: no second call, the model is not asked for the tool again', async () => {
  const orders = new FakeOrderService();
  const model = new FakeConverseModel({
    toolRounds: 0,
    toolCall: orderWhenAsked(),
    answerAfter: async (_input, call) => {
      // The round after the tool's result: Bedrock throttles once, and the record is retried.
      if (call === 2) throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    },
  });
  pipeline = await startTestPipeline({ queue: FAST_RETRIES, bedrockAgent: { converse: model.converse, tools: [{ ...CREATE_ORDER_TOOL, handler: orders.handler }] } });
  const customer = newCustomer();

  await pipeline.sendCustomerMessage(customer, 'Quero fazer um pedido de 2 pães');
  await pipeline.waitForIdle(20_000);

  expect(orders.events).toHaveLength(1);
  expect(orders.orders).toHaveLength(1);
  // The tool use, the throttled call, and on the retry only the reply: the tool round was replayed.
  expect(model.totals.calls).toBe(3);
  expect(repliesTo(customer)).toEqual(['Olá! Recebi: Quero fazer um pedido de 2 pães | resultado: {"orderId":"order-1","sku":"pao-frances","quantity":2}']);
});

it('a call whose answer never came (the order was created) is made again under the same key on the retry: one order, the model told that order', async () => {
  const orders = new FakeOrderService();
  let calls = 0;
  // The first call creates the order and answers after the orchestrator stopped waiting.
  const slowOnce = async (event: unknown) => {
    const answer = await orders.handler(event);
    if (++calls === 1) await new Promise((resolve) => setTimeout(resolve, 1_500));
    return answer;
  };
  const model = new FakeConverseModel({ toolRounds: 0, toolCall: orderWhenAsked() });
  pipeline = await startTestPipeline({ queue: FAST_RETRIES, bedrockAgent: { converse: model.converse, tools: [{ ...CREATE_ORDER_TOOL, timeoutMs: 1_000, handler: slowOnce }] } });
  const customer = newCustomer();

  await pipeline.sendCustomerMessage(customer, 'Quero fazer um pedido de 2 pães');
  await pipeline.waitForIdle(20_000);

  expect(orders.events).toHaveLength(2);
  expect(orders.events[1].idempotencyKey).toBe(orders.events[0].idempotencyKey);
  expect(orders.orders).toEqual([{ orderId: 'order-1', sku: 'pao-frances', quantity: 2 }]);
  // The retry resumed from the intent: the model was not asked for the tool again (1 tool use + 1 reply).
  expect(model.totals.calls).toBe(2);
  expect(repliesTo(customer)).toEqual(['Olá! Recebi: Quero fazer um pedido de 2 pães | resultado: {"orderId":"order-1","sku":"pao-frances","quantity":2}']);
});
