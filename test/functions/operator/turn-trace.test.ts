// An agent turn's trace over real HTTP: an admin reads it by the message a reply answers (the
// gates it asked, the agent's model round trips and tool calls); an operator may not; a turn
// without one is 404; and what is stored holds no customer text.
import { turnCheckpointKey } from '../../../lambda/core/adapters/dynamodb/keys';
import { FakeConverseModel } from '../../../local/fake-bedrock/fake-converse-model';
import type { LocalPipeline } from '../../../local/runtime/local-pipeline';
import { allItems } from '../../support/inspect';
import { CHECK_STOCK_TOOL } from '../../support/fake-order-service';
import { newCustomer, newOperatorPhone } from '../../support/ids';
import { ConsoleClient, startStaffedPipeline } from '../../support/operator-console-client';

let pipeline: LocalPipeline;
let admin: ConsoleClient;
let operator: ConsoleClient;
const ASKED = 'Tem pão francês hoje?';

beforeAll(async () => {
  const model = new FakeConverseModel({ toolRounds: 0, toolCall: (_turn, roundsDone) => (roundsDone === 0 ? { name: CHECK_STOCK_TOOL.name, input: { sku: 'pao-frances' } } : undefined) });
  const tools = [{ ...CHECK_STOCK_TOOL, handler: async () => ({ result: { inStock: 12 } }) }];
  ({ pipeline, admin, operator } = await startStaffedPipeline(newOperatorPhone(), newOperatorPhone(), { bedrockAgent: { converse: model.converse, tools } }));
});
afterAll(async () => {
  await pipeline.stop();
});

it('gives an admin the trace of the turn a reply answers, refuses an operator, and answers 404 for a turn without one', async () => {
  const customer = newCustomer();
  await pipeline.sendCustomerMessage(customer, ASKED);
  await pipeline.waitForIdle();

  const { body } = await admin.call('GET', `/api/conversations/${customer}`);
  const reply = (body.messages as { role: string; replyTo?: string }[]).find((message) => message.role === 'assistant');
  const asked = (body.messages as { role: string; messageId: string }[]).find((message) => message.role === 'user');
  expect(reply?.replyTo).toBe(asked?.messageId);

  // A wamid may hold '/' or '+': the path carries it URL-encoded, as the console sends it.
  const tracePath = `/api/conversations/${customer}/turns/${encodeURIComponent(reply!.replyTo!)}/trace`;
  const traced = await admin.call('GET', tracePath);
  expect(traced.status).toBe(200);
  expect(traced.body.trace).toMatchObject({
    gates: expect.arrayContaining([{ gate: 'latest', verdict: 'passed' }, { gate: 'budget', verdict: 'passed' }]),
    stopReason: 'completed',
    modelCalls: [expect.objectContaining({ stopReason: 'tool_use', inputTokens: expect.any(Number) }), expect.objectContaining({ stopReason: 'end_turn' })],
    toolCalls: [{ name: 'check_stock', sideEffects: false, outcome: 'ok', durationMs: expect.any(Number) }],
  });

  expect((await operator.call('GET', tracePath)).status).toBe(403);
  const missing = await admin.call('GET', `/api/conversations/${customer}/turns/wamid.never-answered/trace`);
  expect(missing.status).toBe(404);
  expect(missing.body.error).toBe('not_found');

  // Names and figures only: neither the customer's words nor the tool's input or result.
  const key = turnCheckpointKey(customer, reply!.replyTo!);
  const item = (await allItems(pipeline.tableName)).find((candidate) => Object.entries(key).every(([attribute, value]) => candidate[attribute] === value));
  const stored = JSON.stringify(item);
  expect(stored).toContain('check_stock');
  for (const text of ['pão francês', 'pao-frances', 'inStock']) expect(stored).not.toContain(text);
});
