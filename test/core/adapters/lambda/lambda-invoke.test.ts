import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LambdaInvokeAgent } from '../../../../lambda/core/adapters/agent/lambda-invoke-agent';
import { LambdaCrmClient } from '../../../../lambda/core/adapters/crm/lambda-crm-client';
import { AwsApiError, serviceEndpoint } from '../../../../lambda/core/adapters/aws/signed-aws-post';
import { lambdaInvoke, type LambdaInvoke } from '../../../../lambda/core/adapters/lambda/lambda-invoke';
import { AgentInvocationError } from '../../../../lambda/core/ports/agent';
import { PENDING_CRM_REQUEST } from '../../../support/crm-world';
import { type Answer, expectValidSignature, jsonAnswer, useLocalAwsApi } from '../../../support/local-aws-api';

// The Lambda Invoke API (POST /2015-03-31/functions/{FunctionName}/invocations) served on 127.0.0.1,
// answering as the service documents: the payload with status 200, `X-Amz-Function-Error` when the
// function raised, and errors as JSON with `x-amzn-ErrorType`.

const CREDENTIALS = { accessKeyId: 'AKIDLOCALTEST', secretAccessKey: 'local-secret-key' };
const FUNCTION_ARN = 'arn:aws:lambda:us-east-1:123456789012:function:clinic-agent:live';

const api = useLocalAwsApi();

const payload = jsonAnswer;

const apiError = (status: number, type: string, message: string): Answer =>
  payload(status, JSON.stringify({ Type: 'User', message }), { 'x-amzn-ErrorType': `${type}:http://internal.amazon.com/coral/com.amazonaws.awsgirgamesh/` });

function invoker(): LambdaInvoke {
  return lambdaInvoke({ region: 'us-east-1', endpoint: api.baseUrl, credentials: async () => CREDENTIALS });
}

const encode = (text: string) => new TextEncoder().encode(text);
const decode = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);
const call = (invoke: LambdaInvoke, text = '{"hello":"world"}') => invoke({ FunctionName: FUNCTION_ARN, Payload: encode(text) }, { abortSignal: new AbortController().signal });


it('posts the payload to the function, signed for lambda, and returns status and payload', async () => {
  api.answers.push(payload(200, '{"reply":"Olá"}', { 'x-amz-executed-version': '7' }));

  const result = await call(invoker());

  expect(result).toEqual({ StatusCode: 200, Payload: encode('{"reply":"Olá"}') });
  expect(api.received).toHaveLength(1);
  const [request] = api.received;
  expect(request.method).toBe('POST');
  expect(request.path).toBe(`/2015-03-31/functions/${encodeURIComponent(FUNCTION_ARN)}/invocations`);
  expect(request.headers['x-amz-invocation-type']).toBe('RequestResponse');
  expect(request.body.toString('utf8')).toBe('{"hello":"world"}');
  await expectValidSignature(request, { service: 'lambda', region: 'us-east-1', credentials: CREDENTIALS });
});

it('returns the function error from X-Amz-Function-Error with its payload, without retrying', async () => {
  api.answers.push(payload(200, '{"errorType":"TypeError","errorMessage":"boom"}', { 'X-Amz-Function-Error': 'Unhandled' }));

  const result = await call(invoker());

  expect(result.StatusCode).toBe(200);
  expect(result.FunctionError).toBe('Unhandled');
  expect(JSON.parse(decode(result.Payload))).toEqual({ errorType: 'TypeError', errorMessage: 'boom' });
  expect(api.received).toHaveLength(1);
});

it('retries throttling (429 TooManyRequestsException) and returns the later answer', async () => {
  api.answers.push(apiError(429, 'TooManyRequestsException', 'Rate Exceeded.'), payload(200, '"ok"'));

  const result = await call(invoker());

  expect(decode(result.Payload)).toBe('"ok"');
  expect(api.received).toHaveLength(2);
});

it('retries 5xx up to the attempts allowed, then raises the error named by x-amzn-ErrorType', async () => {
  api.answers.push(...[1, 2, 3].map(() => apiError(500, 'ServiceException', 'Internal failure')));

  const error = await call(invoker()).catch((thrown: unknown) => thrown);

  expect(error).toBeInstanceOf(AwsApiError);
  expect(error).toMatchObject({ name: 'ServiceException', message: 'Internal failure', $metadata: { httpStatusCode: 500 } });
  expect(api.received).toHaveLength(3);
});

it('raises a client error (404 ResourceNotFoundException) at once', async () => {
  api.answers.push(apiError(404, 'ResourceNotFoundException', 'Function not found: clinic-agent'));

  await expect(call(invoker())).rejects.toMatchObject({ name: 'ResourceNotFoundException', message: 'Function not found: clinic-agent', $metadata: { httpStatusCode: 404 } });
  expect(api.received).toHaveLength(1);
});

it('names an error without x-amzn-ErrorType from the body, and one without either by its status', async () => {
  api.answers.push(payload(400, JSON.stringify({ __type: 'com.amazonaws.lambda#InvalidRequestContentException', message: 'Could not parse request body' })), payload(403, '<html>denied</html>'));

  await expect(call(invoker())).rejects.toMatchObject({ name: 'InvalidRequestContentException', message: 'Could not parse request body' });
  await expect(call(invoker())).rejects.toMatchObject({ name: 'UnknownError', message: expect.stringMatching(/invocations answered HTTP 403$/) });
});

it('retries a refused connection, then raises it', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const invoke = lambdaInvoke({ region: 'us-east-1', endpoint: `http://127.0.0.1:${port}`, credentials: async () => CREDENTIALS, maxAttempts: 2 });

  const error = (await call(invoke).catch((thrown: unknown) => thrown)) as Error;

  expect((error.cause as { code?: string }).code).toBe('ECONNREFUSED');
});

it('stops waiting when the caller aborts, without retrying', async () => {
  const abort = new AbortController();
  const pending = invoker()({ FunctionName: 'slow', Payload: encode('{}') }, { abortSignal: abort.signal });
  await new Promise((resolve) => setTimeout(resolve, 50));
  abort.abort();

  await expect(pending).rejects.toThrow();
  expect(api.received).toHaveLength(1);
});

it('takes the endpoint from AWS_ENDPOINT_URL_LAMBDA and fails the call, not the composition, without a region', async () => {
  api.answers.push(payload(200, '"ok"'));
  const fromEnvironment = lambdaInvoke({ env: { AWS_REGION: 'us-east-1', AWS_ENDPOINT_URL_LAMBDA: api.baseUrl }, credentials: async () => CREDENTIALS });
  expect(decode((await call(fromEnvironment)).Payload)).toBe('"ok"');

  await expect(call(lambdaInvoke({ env: {}, credentials: async () => CREDENTIALS }))).rejects.toThrow('set AWS_REGION');
});

it("builds the region's endpoint as the Lambda client does", () => {
  expect(serviceEndpoint('lambda', 'us-east-1', {})).toBe('https://lambda.us-east-1.amazonaws.com');
  expect(serviceEndpoint('lambda', 'cn-north-1', {})).toBe('https://lambda.cn-north-1.amazonaws.com.cn');
  expect(serviceEndpoint('lambda', 'us-gov-west-1', { AWS_USE_FIPS_ENDPOINT: 'true' })).toBe('https://lambda-fips.us-gov-west-1.amazonaws.com');
  expect(serviceEndpoint('lambda', 'eu-west-1', { AWS_USE_DUALSTACK_ENDPOINT: 'true' })).toBe('https://lambda.eu-west-1.api.aws');
});

describe('through the adapters that invoke functions', () => {
  it('the agent maps a function error to function_error', async () => {
    api.answers.push(payload(200, '{"errorType":"Error","errorMessage":"model down"}', { 'X-Amz-Function-Error': 'Unhandled' }));
    const agent = new LambdaInvokeAgent({ functionName: FUNCTION_ARN, invoke: invoker() });

    const error = await agent
      .respond({ systemPrompt: '', history: [], session: { sessionId: 's', customerId: 'c', state: 'QUALIFYING', qualificationData: {} }, deadline: Date.now() + 10_000, maxIterations: 1 })
      .catch((thrown: unknown) => thrown);

    expect(error).toBeInstanceOf(AgentInvocationError);
    expect(error).toMatchObject({ reason: 'function_error', message: expect.stringContaining('Error: model down') });
  });

  it('the CRM client reads a function that was never invoked (404) as retryable', async () => {
    api.answers.push(apiError(404, 'ResourceNotFoundException', 'Function not found'));
    const crm = new LambdaCrmClient(FUNCTION_ARN, invoker());



    const outcome = await crm.send(PENDING_CRM_REQUEST, { timeoutMs: 5_000 });

    expect(outcome).toEqual({ kind: 'retryable', reason: 'crm_function_not_invoked: ResourceNotFoundException' });
  });
});
