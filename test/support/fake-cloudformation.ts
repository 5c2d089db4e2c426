// CloudFormation cannot be reached from the tests: a real HTTP server on 127.0.0.1 that answers
// DescribeStacks in the service's query protocol, with the outputs the test gives per stack.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeCloudFormation {
  /** For AWS_ENDPOINT_URL_CLOUDFORMATION. */
  readonly endpoint: string;
  /** The stack names DescribeStacks was called with, in order. */
  readonly requestedStacks: string[];
  stop(): Promise<void>;
}

/** Serves `stacks` (stack name → output key → value); any other stack is a ValidationError, as on AWS. */
export async function startFakeCloudFormation(stacks: Record<string, Record<string, string>>): Promise<FakeCloudFormation> {
  const requestedStacks: string[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const form = new URLSearchParams(body);
      const stackName = form.get('StackName') ?? '';
      requestedStacks.push(stackName);
      const outputs = form.get('Action') === 'DescribeStacks' && Object.hasOwn(stacks, stackName) ? stacks[stackName] : undefined;
      response.setHeader('content-type', 'text/xml');
      if (!outputs) {
        response.statusCode = 400;
        response.end(
          `<ErrorResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><Error><Type>Sender</Type><Code>ValidationError</Code>` +
            `<Message>Stack with id ${xml(stackName)} does not exist</Message></Error><RequestId>fake</RequestId></ErrorResponse>`,
        );
        return;
      }
      const members = Object.entries(outputs)
        .map(([key, value]) => `<member><OutputKey>${xml(key)}</OutputKey><OutputValue>${xml(value)}</OutputValue></member>`)
        .join('');
      response.end(
        `<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><DescribeStacksResult><Stacks><member>` +
          `<StackName>${xml(stackName)}</StackName><StackId>arn:aws:cloudformation:us-east-1:123456789012:stack/${xml(stackName)}/1</StackId>` +
          `<CreationTime>2026-11-30T00:00:00Z</CreationTime><StackStatus>UPDATE_COMPLETE</StackStatus><Outputs>${members}</Outputs>` +
          `</member></Stacks></DescribeStacksResult><ResponseMetadata><RequestId>fake</RequestId></ResponseMetadata></DescribeStacksResponse>`,
      );
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requestedStacks,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
