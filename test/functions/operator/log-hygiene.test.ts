// What the operator function logs when a call fails on our side: the error's name and codes, never
// its message, stack or SDK fields — an AWS SDK error may quote the request it failed on.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@aws-lambda-powertools/logger';
import type { FunctionUrlServer } from '../../../local/runtime/function-url-server';
import { newOperatorPhone } from '../../support/ids';
import { ConsoleClient } from '../../support/operator-console-client';
import { operatorSettings, startOperatorInstance } from '../../support/operator-instances';

const quoted = newOperatorPhone();
const captured: string[] = [];
let dynamoDb: Server;
let instance: FunctionUrlServer;

beforeAll(async () => {
  // A DynamoDB endpoint that refuses every request with an error quoting a phone number.
  dynamoDb = createServer((request, response) => {
    request.resume();
    response.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
    response.end(JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#ValidationException', message: `One or more parameter values were invalid: ${quoted}` }));
  });
  await new Promise<void>((resolve) => dynamoDb.listen(0, '127.0.0.1', resolve));
  const logger = new Logger({ serviceName: 'operator-test', logLevel: 'DEBUG' });
  // Powertools prints each entry as one JSON line through its own console: capture that.
  const printer = (logger as unknown as { console: Console }).console;
  for (const method of ['info', 'warn', 'error', 'debug', 'log'] as const) {
    jest.spyOn(printer, method).mockImplementation((...line: unknown[]) => void captured.push(String(line[0])));
  }
  instance = await startOperatorInstance(operatorSettings('unreachable', [newOperatorPhone()]), {
    logger,
    dynamoDbEndpoint: `http://127.0.0.1:${(dynamoDb.address() as AddressInfo).port}`,
  });
});
afterAll(async () => {
  await instance.close();
  await new Promise((resolve) => dynamoDb.close(resolve));
});

it('logs a failed call with the error name and code only', async () => {
  const answer = await new ConsoleClient(instance.url.replace(/\/$/, '')).signIn('A'.repeat(43));
  expect(answer.status).toBe(500);
  expect(answer.body).toEqual({ error: 'internal_error', message: 'Something went wrong; try again' });

  const failures = captured.map((line) => JSON.parse(line)).filter((entry) => entry.message === 'operator_request_failed');
  expect(failures).toHaveLength(1);
  expect(failures[0].error).toEqual({ errorName: 'ValidationException', errorCode: 'aws_api_error', httpStatus: 400 });
  const logged = captured.join('\n');
  expect(logged).not.toContain(quoted);
  expect(logged).not.toContain('parameter values were invalid');
  expect(logged).not.toMatch(/"stack"|\$metadata|\$fault/);
});
