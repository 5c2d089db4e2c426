import { LambdaCrmClient } from '../../../../lambda/core/adapters/crm/lambda-crm-client';
import type { LambdaInvocationResult, LambdaInvoke } from '../../../../lambda/core/adapters/lambda/lambda-invoke';
import { PENDING_CRM_REQUEST } from '../../../support/crm-world';

const request = PENDING_CRM_REQUEST;

const answering = (result: LambdaInvocationResult): LambdaInvoke => async () => result;
const payload = (value: unknown) => ({ StatusCode: 200, Payload: Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)) });
const failing = (name: string): LambdaInvoke => async () => {
  throw Object.assign(new Error('injected'), { name });
};

test('invokes the function with the contract version 1 event', async () => {
  let event: unknown;
  const client = new LambdaCrmClient('crm-writer', async (input) => {
    event = JSON.parse(Buffer.from(input.Payload as Uint8Array).toString('utf8'));
    expect(input.FunctionName).toBe('crm-writer');
    return payload({ status: 'accepted', contactId: 'c', dealId: 'd' });
  });
  expect(await client.send(request, { timeoutMs: 1_000 })).toEqual({ kind: 'accepted', contactId: 'c', dealId: 'd' });
  expect(event).toEqual({ version: '1', idempotencyKey: 's-1:r-1', sessionId: 's-1', customerId: '5511912345678', revision: 'r-1', contact: { customerId: '5511912345678' }, deal: { stage: 'qualifying' } });
});

test.each([
  ['retry', answering(payload({ status: 'retry', reason: 'rate limit' })), { kind: 'retryable', reason: 'crm_function_retry: rate limit' }],
  ['refused', answering(payload({ status: 'refused', reason: 'bad email' })), { kind: 'refused', reason: 'crm_function_refused: bad email' }],
  ['accepted without ids', answering(payload({ status: 'accepted', dealId: 'd' })), { kind: 'unknown', reason: 'crm_answer_without_ids (function)' }],
  ['an answer outside the contract', answering(payload({ ok: true })), { kind: 'unknown', reason: 'crm_function_answer_outside_contract' }],
  ['not JSON', answering(payload('{')), { kind: 'unknown', reason: 'crm_function_answer_not_json' }],
  ['an error the function threw', answering({ StatusCode: 200, FunctionError: 'Unhandled' }), { kind: 'unknown', reason: 'crm_function_error: Unhandled' }],
  ['throttled before it ran', failing('TooManyRequestsException'), { kind: 'retryable', reason: 'crm_function_not_invoked: TooManyRequestsException' }],
  ['a service error (it may have run)', failing('ServiceException'), { kind: 'unknown', reason: 'crm_invoke_failed: ServiceException' }],
])('%s', async (_label, invoke, outcome) => {
  expect(await new LambdaCrmClient('crm-writer', invoke).send(request, { timeoutMs: 1_000 })).toEqual(outcome);
});

test('a function still running at the timeout leaves the outcome unknown', async () => {
  const slow: LambdaInvoke = (_input, { abortSignal }) =>
    new Promise((_resolve, reject) => abortSignal.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' }))));
  expect(await new LambdaCrmClient('crm-writer', slow).send(request, { timeoutMs: 50 })).toEqual({ kind: 'unknown', reason: 'crm_timeout after 50 ms' });
});
