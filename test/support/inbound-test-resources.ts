import { randomUUID } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { physicalNames } from '../../lib/contract';
import { createTurnQueues } from '../../local/servers/local-resources';
import { createTestTable, type TestTable } from './dynamo-table';
import { allItems, queueDepth } from './inspect';

export interface InboundTestResources {
  /** The current test's table. */
  readonly table: TestTable;
  /** The current test's turn queue. */
  readonly queueUrl: string;
  /** Every line the current test wrote to stdout and stderr (the function's logs). */
  readonly logged: readonly string[];
  /** The table is empty and nothing was dispatched. */
  expectNothingWritten(): Promise<void>;
}

/**
 * For the tests of an inbound function (the webhook, the End User Messaging inbound): a fresh table
 * and turn queue per test, and its logs captured. Call it at the top of the file, before the hooks
 * that build the handler on them.
 */
export function useInboundTestResources(prefix: string, sqs: SQSClient): InboundTestResources {
  let current: { table: TestTable; queueUrl: string } | undefined;
  const logged: string[] = [];
  const resources = () => {
    if (current === undefined) throw new Error('The inbound test resources exist only while a test runs');
    return current;
  };

  beforeEach(async () => {
    const table = await createTestTable(prefix);
    const { turnQueueUrl } = await createTurnQueues(sqs, physicalNames(prefix, randomUUID().slice(0, 8)));
    current = { table, queueUrl: turnQueueUrl };
    logged.length = 0;
    for (const stream of [process.stdout, process.stderr]) {
      jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
        logged.push(chunk.toString());
        return true;
      });
    }
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    await current?.table.drop();
    current = undefined;
  });

  return {
    get table() {
      return resources().table;
    },
    get queueUrl() {
      return resources().queueUrl;
    },
    logged,
    async expectNothingWritten() {
      expect(await allItems(resources().table.name)).toEqual([]);
      expect(await queueDepth(resources().queueUrl)).toBe(0);
    },
  };
}
