import { BedrockConverseAgent, bedrockConverse, type ConverseCall } from '../../../../lambda/core/adapters/agent/bedrock-converse-agent';
import { AwsApiError } from '../../../../lambda/core/adapters/aws/signed-aws-post';
import { type Answer, expectValidSignature, jsonAnswer, useLocalAwsApi } from '../../../support/local-aws-api';

// The Bedrock Runtime Converse API (POST /model/{modelId}/converse) served on 127.0.0.1, answering
// with the documented JSON shapes: the output message, stop reason, usage and metrics; errors as
// JSON with `x-amzn-ErrorType`.

const CREDENTIALS = { accessKeyId: 'AKIDLOCALTEST', secretAccessKey: 'local-secret-key' };
const MODEL_ID = 'us.anthropic.claude-sonnet-4-20250514-v1:0';

const api = useLocalAwsApi();

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Answer => jsonAnswer(status, JSON.stringify(body), { 'x-amzn-requestid': 'bedrock-request-1', ...headers });

/** A Converse answer as the API documents it: the assistant's message, why it stopped, tokens and latency. */
const converseAnswer = (content: unknown[], stopReason: string) =>
  json(200, { output: { message: { role: 'assistant', content } }, stopReason, usage: { inputTokens: 812, outputTokens: 41, totalTokens: 853 }, metrics: { latencyMs: 930 } });

const converse = (env: NodeJS.ProcessEnv = {}): ConverseCall => bedrockConverse({ region: 'us-east-1', endpoint: api.baseUrl, credentials: async () => CREDENTIALS, env });
const signal = () => new AbortController().signal;

const input = {
  modelId: MODEL_ID,
  system: [{ text: 'Você é a assistente da GoGenetic.' }],
  messages: [{ role: 'user' as const, content: [{ text: 'Oi' }] }],
  inferenceConfig: { maxTokens: 1024 },
};

it('posts the input without modelId to the model, signed for bedrock, and returns the output with its metadata', async () => {
  api.answers.push(converseAnswer([{ text: 'Olá! Como posso ajudar?' }], 'end_turn'));

  const output = await converse()(input, { abortSignal: signal() });

  expect(output).toEqual({
    output: { message: { role: 'assistant', content: [{ text: 'Olá! Como posso ajudar?' }] } },
    stopReason: 'end_turn',
    usage: { inputTokens: 812, outputTokens: 41, totalTokens: 853 },
    metrics: { latencyMs: 930 },
    $metadata: { httpStatusCode: 200, requestId: 'bedrock-request-1' },
  });
  const [request] = api.received;
  expect(request.path).toBe(`/model/${encodeURIComponent(MODEL_ID)}/converse`);
  expect(request.headers['content-type']).toBe('application/json');
  const { modelId: _modelId, ...body } = input;
  expect(JSON.parse(request.body.toString('utf8'))).toEqual(body);

  await expectValidSignature(request, { service: 'bedrock', region: 'us-east-1', credentials: CREDENTIALS });
});

it('retries throttling (429 ThrottlingException), then returns the answer', async () => {
  api.answers.push(json(429, { message: 'Too many requests, please wait before trying again.' }, { 'x-amzn-ErrorType': 'ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/' }));
  api.answers.push(converseAnswer([{ text: 'Oi' }], 'end_turn'));

  const output = await converse()(input, { abortSignal: signal() });

  expect(output.stopReason).toBe('end_turn');
  expect(api.received).toHaveLength(2);
});

it('raises a validation error (400) at once, named as the SDK names it', async () => {
  api.answers.push(json(400, { message: 'A conversation must start with a user message.' }, { 'x-amzn-ErrorType': 'ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/' }));

  const error = await converse()(input, { abortSignal: signal() }).catch((thrown: unknown) => thrown);

  expect(error).toBeInstanceOf(AwsApiError);
  expect(error).toMatchObject({ name: 'ValidationException', message: 'A conversation must start with a user message.', $metadata: { httpStatusCode: 400 } });
  expect(api.received).toHaveLength(1);
});

it('sends binary members as base64, as the SDK does', async () => {
  api.answers.push(converseAnswer([{ text: 'Recebi a imagem.' }], 'end_turn'));
  const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47]);

  await converse()({ ...input, messages: [{ role: 'user', content: [{ image: { format: 'png', source: { bytes } } }] }] }, { abortSignal: signal() });

  expect(JSON.parse(api.received[0].body.toString('utf8')).messages[0].content[0]).toEqual({ image: { format: 'png', source: { bytes: 'iVBORw==' } } });
});

it('uses the bearer token of AWS_BEARER_TOKEN_BEDROCK instead of SigV4, as the client does', async () => {
  api.answers.push(converseAnswer([{ text: 'Oi' }], 'end_turn'));

  await converse({ AWS_BEARER_TOKEN_BEDROCK: 'bedrock-api-key' })(input, { abortSignal: signal() });

  expect(api.received[0].headers.authorization).toBe('Bearer bedrock-api-key');
});

it('the agent runs a tool-use round trip and api.answers the final text', async () => {
  api.answers.push(converseAnswer([{ toolUse: { toolUseId: 'tool-1', name: 'request_human_handoff', input: { reason: 'O cliente pediu uma pessoa.' } } }], 'tool_use'));
  api.answers.push(converseAnswer([{ text: 'Uma pessoa da equipe vai continuar.' }], 'end_turn'));
  const agent = new BedrockConverseAgent({ modelId: MODEL_ID, converse: converse() });

  const response = await agent.respond({
    systemPrompt: 'Você é a assistente da GoGenetic.',
    history: [{ role: 'customer', text: 'Quero falar com uma pessoa', at: '2026-11-30T12:00:10.000Z' }],
    session: { sessionId: 'session-1', customerId: '5511987654321', state: 'QUALIFYING', qualificationData: {} },
    deadline: Date.now() + 60_000,
    maxIterations: 4,
  });

  expect(response.reply).toBe('Uma pessoa da equipe vai continuar.');
  expect(response.actions).toEqual([{ type: 'request_human_handoff', reason: 'O cliente pediu uma pessoa.' }]);
  expect(api.received).toHaveLength(2);
  const secondRequest = JSON.parse(api.received[1].body.toString('utf8')) as { messages: { role: string; content: Record<string, unknown>[] }[] };
  expect(secondRequest.messages.at(-1)).toMatchObject({ role: 'user', content: [{ toolResult: { toolUseId: 'tool-1' } }] });
});
