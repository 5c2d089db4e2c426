import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDocumentClient } from '../../lambda/core/adapters/dynamodb/dynamo-kit';
import { createDynamoRepositories, type DynamoRepositories } from '../../lambda/core/adapters/dynamodb/dynamo-repositories';
import { createAgentTable } from '../../local/servers/local-resources';
import type { KeyLayout } from '../../lib/contract/key-layout';

/** A table on the run's DynamoDB Local, created from the construct's own definition. */
export interface TestTable {
  readonly name: string;
  drop(): Promise<void>;
}

/** Creates a fresh, uniquely named agent table (one per test file keeps files independent). */
export async function createTestTable(label: string): Promise<TestTable> {
  const client = new DynamoDBClient({});
  const name = `${label}-${randomUUID().slice(0, 8)}`;
  await createAgentTable(client, name);
  return {
    name,
    drop: async () => {
      await client.send(new DeleteTableCommand({ TableName: name }));
      client.destroy();
    },
  };
}

/** Runs `body` on a fresh table of its own (for a test that must not share the file's table), then drops it. */
export async function withTestTable<T>(label: string, body: (table: TestTable) => Promise<T>): Promise<T> {
  const table = await createTestTable(label);
  try {
    return await body(table);
  } finally {
    await table.drop();
  }
}

/**
 * The pipeline table's repositories on a client of their own. What a test seeds for a pipeline's
 * functions to list goes in their key layout (`pipeline.keyLayout`).
 */
export function tableRepositories(tableName: string, keyLayout?: KeyLayout): DynamoRepositories {
  return createDynamoRepositories({ tableName, client: createDocumentClient(), ...(keyLayout && { keyLayout }) });
}
