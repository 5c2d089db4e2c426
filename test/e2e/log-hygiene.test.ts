// What the functions log while they serve customers, captured at DEBUG level over the whole local
// pipeline (answers, an agent failure retried to the dead-letter queue, opt-out and back): no line
// may carry a customer's text or full phone number, nor what the business's tools were given or answered.
import { ScriptedAgent } from '../../lambda/core/adapters/agent/scripted-agent';
import { FakeConverseModel } from '../../local/fake-bedrock/fake-converse-model';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { CREATE_ORDER_TOOL, FakeOrderService } from '../support/fake-order-service';
import { newCustomer } from '../support/ids';
import { startTestPipeline } from '../support/pipeline';
import { waitUntil } from '../support/waiting';

let pipeline: LocalPipeline | undefined;
let toolPipeline: LocalPipeline | undefined;
const captured: string[] = [];
const writes = [process.stdout, process.stderr].map((stream) => {
  const original = stream.write.bind(stream);
  return { stream, original };
});

beforeAll(() => {
  for (const { stream, original } of writes) {
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      captured.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write;
  }
});
afterAll(async () => {
  for (const { stream, original } of writes) stream.write = original;
  await pipeline?.stop();
  await toolPipeline?.stop();
});

test('no log line carries a customer text or a full phone number', async () => {
  pipeline = await startTestPipeline({ agent: new ScriptedAgent(), logLevel: 'DEBUG', queue: { visibilityTimeoutSeconds: 2 } });
  const customers = [newCustomer(), newCustomer()];
  const texts = [`Meu exame BRCA1 deu positivo ${customers[0]!.slice(-6)}`, 'PARAR', 'Voltar', `Resultado #falha sigiloso ${customers[1]!.slice(-6)}`];
  await pipeline.sendCustomerMessage(customers[0]!, texts[0]!);
  await waitUntil(() => pipeline!.fakeWhatsApp.sent().length >= 1, 10_000, 'the first reply');
  await pipeline.sendCustomerMessage(customers[0]!, texts[1]!);
  await pipeline.sendCustomerMessage(customers[0]!, texts[2]!);
  await pipeline.sendCustomerMessage(customers[1]!, texts[3]!);
  await pipeline.waitForIdle();

  const logged = captured.join('');
  // The capture works: the pipeline did log (at DEBUG), including the failing turn.
  expect(logged.length).toBeGreaterThan(1000);
  for (const secret of [...customers, texts[0]!, texts[3]!, 'BRCA1 deu positivo', 'sigiloso']) expect({ secret, found: logged.includes(secret) }).toEqual({ secret, found: false });
});

test("a turn that calls the business's tool logs its name and outcome, never the tool's input or result", async () => {
  const orders = new FakeOrderService();
  const model = new FakeConverseModel({ toolRounds: 0, toolCall: (_turn, roundsDone) => (roundsDone === 0 ? { name: CREATE_ORDER_TOOL.name, input: { sku: 'sku-sigiloso-42', quantity: 3 } } : undefined) });
  toolPipeline = await startTestPipeline({ logLevel: 'DEBUG', bedrockAgent: { converse: model.converse, tools: [{ ...CREATE_ORDER_TOOL, handler: orders.handler }] } });
  const customer = newCustomer();
  const from = captured.length;
  await toolPipeline.sendCustomerMessage(customer, 'Quero 3 unidades do remédio controlado');
  await toolPipeline.waitForIdle();

  expect(orders.orders).toHaveLength(1);
  const logged = captured.slice(from).join('');
  // The capture works: the turn was logged with its tool call's name.
  expect(logged).toContain('create_order');
  for (const secret of [customer, 'remédio controlado', 'sku-sigiloso-42', orders.orders[0]!.orderId]) expect({ secret, found: logged.includes(secret) }).toEqual({ secret, found: false });
});
