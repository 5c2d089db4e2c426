import { LambdaTool, resultOf, TOOL_RESULT_MAX_CHARACTERS } from '../../../../lambda/core/adapters/agent/lambda-tool';
import type { LambdaInvoke } from '../../../../lambda/core/adapters/lambda/lambda-invoke';
import { TOOL_OUTCOME_TELLS_MODEL } from '../../../../lambda/core/ports/agent-tools';

const SCHEMA = { type: 'object', properties: { sku: { type: 'string' }, quantity: { type: 'integer', minimum: 1 } }, required: ['sku', 'quantity'], additionalProperties: false };
const CONTEXT = { customerId: '5511999990000', sessionId: 's', locale: 'pt-BR', messageIds: ['wamid.1'] };

function toolWith(invoke: LambdaInvoke): LambdaTool {
  return new LambdaTool({ name: 'create_order', description: 'd', inputSchema: SCHEMA, sideEffects: true, functionName: 'orders', timeoutMs: 5_000, invoke });
}

const answering = (payload: unknown, functionError?: string): LambdaInvoke => async () => ({ StatusCode: 200, Payload: new TextEncoder().encode(JSON.stringify(payload)), ...(functionError && { FunctionError: functionError }) });
const failingWith = (name: string): LambdaInvoke => () => Promise.reject(Object.assign(new Error(name), { name }));

test('the input is checked against the schema, with problems the model can act on', () => {
  const tool = toolWith(answering({}));
  expect(tool.validate({ sku: 'pao', quantity: 2 })).toEqual([]);
  expect(tool.validate({ sku: 'pao', quantity: 0, color: 'red' })).toEqual(['the input must NOT have additional properties', '/quantity must be >= 1']);
});

test('the event is contract version 1 with the key and the turn’s context', async () => {
  let sent: unknown;
  const tool = toolWith(async (input) => ((sent = JSON.parse(new TextDecoder().decode(input.Payload))), { StatusCode: 200, Payload: new TextEncoder().encode('{"result":{"ok":true}}') }));
  await tool.call({ input: { sku: 'pao', quantity: 1 }, context: CONTEXT, toolUseId: 'tu-1', idempotencyKey: 'k', deadline: Date.now() + 10_000 });
  expect(sent).toEqual({ version: '1', tool: 'create_order', input: { sku: 'pao', quantity: 1 }, toolUseId: 'tu-1', idempotencyKey: 'k', context: CONTEXT, deadline: expect.any(Number) });
});

test.each([
  ['a result', answering({ result: { orderId: 'o-1' } }), { outcome: 'ok', content: { orderId: 'o-1' } }],
  ['a refusal', answering({ error: { message: 'out of stock' } }), { outcome: 'refused', content: { error: 'refused', message: 'out of stock' } }],
  ['an answer outside the contract', answering({ order: 1 }), { outcome: 'malformed_result', content: { error: 'malformed_result' } }],
  ['a raised error', answering({ errorType: 'Error', errorMessage: 'boom' }, 'Unhandled'), { outcome: 'function_error', content: { error: 'function_error' } }],
  ['a throttle', failingWith('TooManyRequestsException'), { outcome: 'invocation_failed', content: { error: 'invocation_failed' } }],
  ['a missing function', failingWith('ResourceNotFoundException'), { outcome: 'unavailable', content: { error: 'unavailable' } }],
  ['a refused invocation', failingWith('AccessDeniedException'), { outcome: 'unavailable', content: { error: 'unavailable' } }],
])('%s is classified by the one table', async (_case, invoke, expected) => {
  expect(await toolWith(invoke).call({ input: {}, context: CONTEXT, toolUseId: 'tu', deadline: Date.now() + 10_000 })).toEqual(expected);
});

test('the table: what the model is told, and what the turn retries', () => {
  expect(Object.entries(TOOL_OUTCOME_TELLS_MODEL).filter(([, told]) => !told).map(([outcome]) => outcome)).toEqual(['function_error', 'invocation_failed']);
});

test('a result over the bound is withheld from the model, which is told the call ran', () => {
  const big = JSON.stringify({ result: { text: 'x'.repeat(TOOL_RESULT_MAX_CHARACTERS) } });
  expect(resultOf(big)).toEqual({ outcome: 'result_too_large', content: expect.objectContaining({ error: 'result_too_large', ran: true }) });
  expect(resultOf(JSON.stringify({ result: 'x'.repeat(TOOL_RESULT_MAX_CHARACTERS - 2) })).outcome).toBe('ok');
});
