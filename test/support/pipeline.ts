import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { startLocalPipeline, type LocalChannel, type LocalPipeline, type LocalPipelineOptions } from '../../local/runtime/local-pipeline';

/**
 * A pipeline on the run's shared DynamoDB Local and SQS emulator (started by jest's global setup),
 * with its own table and queues: every call gets a fresh environment name.
 */
export function startTestPipeline(options: Omit<LocalPipelineOptions, 'dynamoDbEndpoint' | 'sqsEndpoint' | 'environment'> = {}): Promise<LocalPipeline> {
  const dynamoDbEndpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB;
  const sqsEndpoint = process.env.AWS_ENDPOINT_URL_SQS;
  if (!dynamoDbEndpoint || !sqsEndpoint) throw new Error('The jest global setup did not start the local servers');
  return startLocalPipeline({
    dynamoDbEndpoint,
    sqsEndpoint,
    environment: `e2e${randomBytes(4).toString('hex')}`,
    logLevel: 'SILENT',
    ...options,
  });
}

/** Every channel the end-to-end suites run over: one parameterised suite, never a copy per channel. */
export const CHANNELS: readonly LocalChannel[] = ['cloud-api', 'end-user-messaging'];

/** A customer id in WhatsApp's shape (digits only), distinct per call. */
export function newCustomer(): string {
  return `55119${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
}

/** The parts of a scripted-agent reply: the customer messages it answered and its message count. */
export function parseScriptedReply(text: string): { readonly answered: string[]; readonly count: number } {
  const match = /^Olá! Recebi: ([\s\S]*) \(mensagem (\d+)\)$/.exec(text);
  if (!match) throw new Error(`Not a scripted-agent reply: ${text}`);
  return { answered: match[1].split(' | '), count: Number(match[2]) };
}

/** Waits for the next message on a queue (long polls until `timeoutMs`). */
export async function receiveOne(client: SQSClient, queueUrl: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { Messages: messages = [] } = await client.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 1, MessageSystemAttributeNames: ['All'] }),
    );
    if (messages.length > 0) return messages[0];
  }
  throw new Error(`No message on ${queueUrl} within ${timeoutMs} ms`);
}

/** A promise with its resolver, to hold an agent call until the test lets it go. */
export function gate(): { readonly opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** Polls `condition` until it holds; fails with a clear message after `timeoutMs`. */
export async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs: number, what = 'the condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}
