import { agentTools } from '../../../../lambda/core/adapters/agent/agent-actions';
import { LambdaInvokeAgent } from '../../../../lambda/core/adapters/agent/lambda-invoke-agent';
import type { LambdaInvocationResult, LambdaInvoke, LambdaInvokeInput } from '../../../../lambda/core/adapters/lambda/lambda-invoke';
import { AgentInvocationError, type AgentRequest } from '../../../../lambda/core/ports/agent';

const FUNCTION_NAME = 'arn:aws:lambda:us-east-1:123456789012:function:clinic-agent:live';

const request: AgentRequest = {
  systemPrompt: 'Você é a assistente da GoGenetic.',
  history: [
    { role: 'customer', text: 'Oi', at: '2026-11-30T12:00:00.000Z' },
    { role: 'assistant', text: 'Olá! Como posso ajudar?', at: '2026-11-30T12:00:03.000Z' },
    { role: 'customer', text: 'Quero falar com uma pessoa', at: '2026-11-30T12:00:10.000Z' },
  ],
  session: { sessionId: 'session-1', customerId: '5511987654321', state: 'QUALIFYING', qualificationData: {} },
  deadline: Date.now() + 60_000,
  maxIterations: 10,
};

/** The shape `InvokeCommand` resolves with for a synchronous invocation (recorded). */
function invocationResult(payload: string, functionError?: string): LambdaInvocationResult {
  const recorded = {
    $metadata: { httpStatusCode: 200, requestId: '6f1d2c3b-4a5e-4f6a-9b7c-8d9e0f1a2b3c', attempts: 1, totalRetryDelay: 0 },
    StatusCode: 200,
    ExecutedVersion: '7',
    ...(functionError ? { FunctionError: functionError } : {}),
    Payload: new TextEncoder().encode(payload),
  };
  return recorded;
}

function answering(payload: string, functionError?: string): { invoke: LambdaInvoke; inputs: LambdaInvokeInput[] } {
  const inputs: LambdaInvokeInput[] = [];
  return {
    inputs,
    invoke: async (input) => {
      inputs.push(input);
      return invocationResult(payload, functionError);
    },
  };
}

async function failure(agent: LambdaInvokeAgent): Promise<AgentInvocationError> {
  const error = await agent.respond(request).catch((thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(AgentInvocationError);
  return error as AgentInvocationError;
}

it('invokes the function synchronously with contract v1 and maps its reply and actions', async () => {
  const { invoke, inputs } = answering(
    JSON.stringify({
      reply: 'Claro! Uma pessoa da equipe vai continuar.',
      actions: [
        { type: 'update_qualification', data: { contact_preference: 'pessoa' } },
        { type: 'record_out_of_portfolio_demand', requestedService: 'teste de ancestralidade', estimatedSegment: 'individual', notes: 'pediu preço' },
        { type: 'request_human_handoff', reason: 'O cliente pediu uma pessoa.' },
        { type: 'close_session', reason: 'Atendimento transferido.' },
      ],
    }),
  );

  const response = await new LambdaInvokeAgent({ functionName: FUNCTION_NAME, invoke }).respond(request);

  expect(inputs).toHaveLength(1);
  expect(inputs[0]).toMatchObject({ FunctionName: FUNCTION_NAME, InvocationType: 'RequestResponse' });
  expect(JSON.parse(new TextDecoder().decode(inputs[0].Payload as Uint8Array))).toEqual({
    version: '1',
    systemPrompt: request.systemPrompt,
    history: request.history,
    session: request.session,
    deadline: request.deadline,
  });
  expect(response).toEqual({
    reply: 'Claro! Uma pessoa da equipe vai continuar.',
    actions: [
      { type: 'update_qualification', data: { contact_preference: 'pessoa' } },
      { type: 'record_out_of_portfolio_demand', requestedService: 'teste de ancestralidade', estimatedSegment: 'individual', notes: 'pediu preço' },
      { type: 'request_human_handoff', reason: 'O cliente pediu uma pessoa.' },
      { type: 'close_session', reason: 'Atendimento transferido.' },
    ],
    iterations: 1,
    stopReason: 'completed',
  });
});

it('accepts a reply without actions', async () => {
  const { invoke } = answering('{"reply":"Olá!"}');

  await expect(new LambdaInvokeAgent({ functionName: FUNCTION_NAME, invoke }).respond(request)).resolves.toMatchObject({ reply: 'Olá!', actions: [] });
});

it('as a stage, accepts a handover to another stage and what the agent learned; anything else breaks the contract', async () => {
  const actions = [
    { type: 'update_cadastral_data', data: { name: 'Ana', email: 'ana@exemplo.com' } },
    { type: 'set_segment', segment: 'clínica' },
    { type: 'set_intent', intent: 'orçamento' },
    { type: 'handover_to_agent', agent: 'cadastro', reason: 'dados' },
  ];
  const { invoke } = answering(JSON.stringify({ reply: 'Vou te passar.', actions }));
  const stage = new LambdaInvokeAgent({ functionName: FUNCTION_NAME, invoke, tools: agentTools(['cadastro']) });

  await expect(stage.respond(request)).resolves.toMatchObject({ reply: 'Vou te passar.', actions });
  const alone = await failure(new LambdaInvokeAgent({ functionName: FUNCTION_NAME, invoke }));
  expect(alone.message).toContain('actions[3]: unknown action "handover_to_agent"');
  const { invoke: elsewhere } = answering('{"reply":"x","actions":[{"type":"handover_to_agent","agent":"vendas","reason":"r"}]}');
  expect((await failure(new LambdaInvokeAgent({ functionName: FUNCTION_NAME, invoke: elsewhere, tools: agentTools(['cadastro']) }))).message).toContain('actions[0]: agent must match ^(cadastro)$');
});

it("reports the function's own error with its type and message", async () => {
  const { invoke } = answering(
    JSON.stringify({
      errorType: 'TypeError',
      errorMessage: "Cannot read properties of undefined (reading 'state')",
      trace: ["TypeError: Cannot read properties of undefined (reading 'state')", '    at Runtime.handler (file:///var/task/index.mjs:12:30)'],
    }),
    'Unhandled',
  );

  const error = await failure(new LambdaInvokeAgent({ functionName: FUNCTION_NAME, invoke }));

  expect(error.reason).toBe('function_error');
  expect(error.message).toBe(`Agent function ${FUNCTION_NAME} raised TypeError: Cannot read properties of undefined (reading 'state')`);
});

it('takes the token usage the function reports, for the customer budget and the metrics', async () => {
  const { invoke } = answering('{"reply":"Oi","usage":{"inputTokens":1200,"outputTokens":80}}');
  expect(await new LambdaInvokeAgent({ functionName: FUNCTION_NAME, invoke }).respond(request)).toEqual({
    reply: 'Oi',
    actions: [],
    iterations: 1,
    stopReason: 'completed',
    usage: { inputTokens: 1200, outputTokens: 80 },
  });
});

it('takes the choices the function offers under its reply', async () => {
  const { invoke } = answering('{"reply":"Qual coleta?","interactive":{"kind":"buttons","buttons":[{"id":"sangue","title":"Sangue"}]}}');
  expect(await new LambdaInvokeAgent({ functionName: FUNCTION_NAME, invoke }).respond(request)).toMatchObject({
    reply: 'Qual coleta?',
    interactive: { kind: 'buttons', buttons: [{ id: 'sangue', title: 'Sangue' }] },
  });
});

it.each([
  { problem: 'a payload that is not JSON', payload: 'Task timed out', expected: 'the response must be a JSON object' },
  { problem: 'a JSON array', payload: '[]', expected: 'the response must be a JSON object' },
  { problem: 'a missing reply', payload: '{"actions":[]}', expected: 'reply must be a non-empty string' },
  { problem: 'a blank reply', payload: '{"reply":"  "}', expected: 'reply must be a non-empty string' },
  { problem: 'an unknown key', payload: '{"reply":"Oi","handoff":true}', expected: 'unknown key "handoff"' },
  { problem: 'actions that are not an array', payload: '{"reply":"Oi","actions":{}}', expected: 'actions must be an array' },
  { problem: 'choices of an unknown kind', payload: '{"reply":"Oi","interactive":{"kind":"carousel"}}', expected: 'interactive: kind must be one of buttons, list, cta_url' },
  { problem: 'a button without an id', payload: '{"reply":"Oi","interactive":{"kind":"buttons","buttons":[{"title":"Sim"}]}}', expected: 'interactive: buttons[0].id must be a non-empty string' },
  { problem: 'usage that is not token counts', payload: '{"reply":"Oi","usage":{"inputTokens":-1,"outputTokens":2}}', expected: 'usage must be an object of exactly inputTokens and outputTokens' },
  { problem: 'usage with an extra field', payload: '{"reply":"Oi","usage":{"inputTokens":1,"outputTokens":2,"cost":3}}', expected: 'usage must be an object of exactly inputTokens and outputTokens' },
  { problem: 'an action that is not an object', payload: '{"reply":"Oi","actions":["close_session"]}', expected: 'actions[0] must be an object' },
  { problem: 'an unknown action type', payload: '{"reply":"Oi","actions":[{"type":"send_email"}]}', expected: 'actions[0]: unknown action "send_email"' },
  {
    problem: 'an action missing a field',
    payload: '{"reply":"Oi","actions":[{"type":"close_session"}]}',
    expected: 'actions[0]: reason is required',
  },
  {
    problem: 'an action with a misspelled field',
    payload: '{"reply":"Oi","actions":[{"type":"request_human_handoff","reason":"x","urgent":true}]}',
    expected: 'actions[0]: urgent is not allowed',
  },
  {
    problem: 'an action with an inherited member name as a field',
    payload: '{"reply":"Oi","actions":[{"type":"close_session","reason":"x","toString":{"a":1}}]}',
    expected: 'actions[0]: toString is not allowed',
  },
  {
    problem: 'an action with a prototype key',
    payload: '{"reply":"Oi","actions":[{"type":"close_session","reason":"x","__proto__":{"b":1}}]}',
    expected: 'actions[0]: __proto__ is not allowed',
  },
  {
    problem: 'qualification data under a prototype key',
    payload: '{"reply":"Oi","actions":[{"type":"update_qualification","data":{"constructor":"x"}}]}',
    expected: 'actions[0]: data."constructor" is not an allowed name',
  },
  {
    problem: 'qualification data that is not text',
    payload: '{"reply":"Oi","actions":[{"type":"update_qualification","data":{"sample_count":12}}]}',
    expected: 'actions[0]: data.sample_count must be a string',
  },
  {
    problem: 'empty qualification data',
    payload: '{"reply":"Oi","actions":[{"type":"update_qualification","data":{}}]}',
    expected: 'actions[0]: data needs at least 1 entries',
  },
])('rejects $problem as a contract violation', async ({ payload, expected }) => {
  const { invoke } = answering(payload);

  const error = await failure(new LambdaInvokeAgent({ functionName: FUNCTION_NAME, invoke }));

  expect(error.reason).toBe('malformed_response');
  expect(error.retryable).toBe(false);
  expect(error.message).toContain(`broke contract v1: `);
  expect(error.message).toContain(expected);
});

it('wraps an invocation error (the function could not be called)', async () => {
  const missing = Object.assign(new Error('Function not found: clinic-agent'), { name: 'ResourceNotFoundException' });
  const invoke: LambdaInvoke = () => Promise.reject(missing);

  const error = await failure(new LambdaInvokeAgent({ functionName: FUNCTION_NAME, invoke }));

  expect(error).toMatchObject({ reason: 'invocation_failed', cause: missing });
});

it('stops waiting at the deadline and answers the fallback text', async () => {
  const hanging: LambdaInvoke = (_input, { abortSignal }) =>
    new Promise((_resolve, reject) => abortSignal.addEventListener('abort', () => reject(abortSignal.reason)));

  const response = await new LambdaInvokeAgent({ functionName: FUNCTION_NAME, invoke: hanging, fallbackReply: 'Um momento.' }).respond({
    ...request,
    deadline: Date.now() + 20,
  });

  expect(response).toEqual({ reply: 'Um momento.', actions: [], iterations: 0, stopReason: 'deadline' });
});

it('does not invoke at all when the deadline has passed (injected clock)', async () => {
  const { invoke, inputs } = answering('{"reply":"Olá!"}');

  const response = await new LambdaInvokeAgent({ functionName: FUNCTION_NAME, invoke, now: () => request.deadline }).respond(request);

  expect(inputs).toHaveLength(0);
  expect(response.stopReason).toBe('deadline');
});
