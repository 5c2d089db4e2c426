/**
 * The data-access kit: the ONE module that talks to DynamoDB. Repositories build keys (keys.ts) and
 * expressions and call these operations; nothing else imports the AWS SDK's DynamoDB clients.
 *
 * - One DynamoDBDocumentClient per process (`removeUndefinedValues`), created on first use.
 * - `queryPage` takes and returns an opaque, tamper-evident cursor; there is no Scan.
 * - `batchGet`/`batchWrite` retry `Unprocessed*` with exponential backoff and full jitter, up to a
 *   bound, then throw {@link UnprocessedItemsError} naming what remained.
 * - A failed condition becomes {@link ConditionFailedError} (with a transaction's per-action
 *   reasons). Every other failure — throttling, unavailability, access denied, transaction
 *   conflicts, a missing table — is rethrown unchanged: it is never reported as success.
 * - ReturnValues stays NONE unless the caller asks for the item.
 * - An optional {@link DynamoKitObserver} sees every remote call with its consumed capacity.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { type CancellationReason, ConditionFailedError, InvalidCursorError, UnprocessedItemsError } from '../../domain/errors';
import { stableStringify } from '../../domain/stable-json';

/** A stored item (attribute name → value), as the document client marshals it. */
export type Item = Record<string, unknown>;
/** The primary key of an item (PK and SK). */
export type ItemKey = Readonly<Record<string, string>>;

/** Expression attribute names (`#x` → name) and values (`:x` → value). */
interface ExpressionParameters {
  readonly names?: Readonly<Record<string, string>>;
  readonly values?: Readonly<Item>;
}

export interface GetRequest {
  readonly key: ItemKey;
  readonly consistentRead?: boolean;
}

export interface QueryRequest extends ExpressionParameters {
  /** Query GSI1 instead of the table. */
  readonly indexName?: string;
  readonly keyCondition: string;
  readonly filter?: string;
  readonly limit?: number;
  /** A cursor returned by a previous page of the SAME query. */
  readonly cursor?: string;
  readonly consistentRead?: boolean;
  /** Sort key descending (ScanIndexForward=false). */
  readonly newestFirst?: boolean;
  readonly projection?: string;
}

export interface QueryPageResult {
  readonly items: Item[];
  /** Present while more pages may exist. */
  readonly cursor?: string;
}

export interface PutRequest extends ExpressionParameters {
  readonly item: Item;
  readonly condition?: string;
}

export type ReturnedValues = 'ALL_NEW' | 'ALL_OLD' | 'UPDATED_NEW' | 'UPDATED_OLD';

export interface UpdateRequest extends ExpressionParameters {
  readonly key: ItemKey;
  readonly update: string;
  readonly condition?: string;
  /** Only when the caller uses the returned item. */
  readonly returnValues?: ReturnedValues;
}

export interface DeleteRequest extends ExpressionParameters {
  readonly key: ItemKey;
  readonly condition?: string;
  /** Return the deleted item (the caller uses it). */
  readonly returnDeleted?: boolean;
}

export interface ConditionCheckRequest extends ExpressionParameters {
  readonly key: ItemKey;
  readonly condition: string;
}

/** One action of a write transaction; exactly one member is set. */
export type TransactAction =
  | { readonly put: PutRequest }
  | { readonly update: Omit<UpdateRequest, 'returnValues'> }
  | { readonly delete: Omit<DeleteRequest, 'returnDeleted'> }
  | { readonly conditionCheck: ConditionCheckRequest };

/** One request of a batch write. */
export type BatchWriteRequest = { readonly put: Item } | { readonly delete: ItemKey };

export type KitOperation = 'get' | 'queryPage' | 'put' | 'update' | 'delete' | 'transact' | 'batchGet' | 'batchWrite';

/** Capacity DynamoDB reported for one remote call (summed over the table and its indexes). */
export interface ConsumedCapacityUnits {
  readonly total: number;
  readonly read: number;
  readonly write: number;
}

/** One remote call the kit made (a batch retry is its own call). */
export interface DynamoCallEvent {
  readonly operation: KitOperation;
  readonly tableName: string;
  /** Attempts the SDK made for this call (its own retries of throttling and network errors). */
  readonly attempts: number;
  readonly outcome: 'ok' | 'condition_failed' | 'error';
  readonly errorName?: string;
  /** Present when the kit asks for ReturnConsumedCapacity and the call succeeded. */
  readonly consumedCapacity?: ConsumedCapacityUnits;
  readonly durationMs: number;
}

/**
 * Sees every remote call: how a benchmark counts calls and consumed capacity per inbound message.
 * Must not throw (an observer failure is swallowed so it cannot change a data outcome).
 */
export interface DynamoKitObserver {
  onRemoteCall(event: DynamoCallEvent): void;
}

export interface BatchRetryPolicy {
  /** Total calls per chunk, the first included. */
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export interface DynamoKitOptions {
  readonly tableName: string;
  /** Defaults to the process-wide client (see {@link sharedDocumentClient}). */
  readonly client?: DynamoDBDocumentClient;
  /**
   * Key of the cursor MAC. Defaults to a key derived from the table name, which is stable across
   * Lambda instances (a random per-process key would break paging across instances) and rejects
   * edited, truncated or foreign cursors; configure a secret to also resist deliberate forgery.
   */
  readonly cursorSecret?: string | Uint8Array;
  readonly observer?: DynamoKitObserver;
  /** Capacity detail requested when an observer is set (default TOTAL). */
  readonly consumedCapacity?: 'TOTAL' | 'INDEXES';
  readonly batchRetry?: Partial<BatchRetryPolicy>;
}

const DEFAULT_BATCH_RETRY: BatchRetryPolicy = { maxAttempts: 8, baseDelayMs: 50, maxDelayMs: 2_000 };
const BATCH_GET_CHUNK = 100;
const BATCH_WRITE_CHUNK = 25;
const CURSOR_MAC_BYTES = 16;

/**
 * A document client with the kit's marshalling options. `instrument` sees the underlying client
 * first, so middleware it adds (e.g. X-Ray capture) applies to every document-client call.
 */
export function createDocumentClient(config: DynamoDBClientConfig = {}, instrument: (client: DynamoDBClient) => DynamoDBClient = (client) => client): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(instrument(new DynamoDBClient(config)), {
    marshallOptions: { removeUndefinedValues: true },
  });
}

let processClient: DynamoDBDocumentClient | undefined;

/** The process-wide client, created on first use (so importing the kit costs nothing). */
export function sharedDocumentClient(): DynamoDBDocumentClient {
  processClient ??= createDocumentClient();
  return processClient;
}

/** A transaction was cancelled because another transaction touched the same item (retryable). */
export function isTransactionConflict(error: unknown): boolean {
  const name = (error as { name?: string } | undefined)?.name;
  if (name === 'TransactionConflictException') return true;
  if (name !== 'TransactionCanceledException') return false;
  return cancellationReasons(error).some((reason) => reason.code === 'TransactionConflict');
}

function cancellationReasons(error: unknown): CancellationReason[] {
  const raw = (error as { CancellationReasons?: { Code?: string; Message?: string }[] }).CancellationReasons ?? [];
  return raw
    .map((reason, index) => ({ index, code: reason.Code ?? 'None', ...(reason.Message ? { message: reason.Message } : {}) }))
    .filter((reason) => reason.code !== 'None');
}

/** Maps a failed condition to ConditionFailedError; everything else passes through unchanged. */
function translateError(error: unknown): unknown {
  const name = (error as { name?: string } | undefined)?.name;
  if (name === 'ConditionalCheckFailedException') {
    return new ConditionFailedError('The condition of the write did not hold', [], { cause: error });
  }
  if (name === 'TransactionCanceledException') {
    const reasons = cancellationReasons(error);
    if (reasons.some((reason) => reason.code === 'ConditionalCheckFailed')) {
      return new ConditionFailedError(`Transaction cancelled: ${reasons.map((reason) => `#${reason.index} ${reason.code}`).join(', ')}`, reasons, { cause: error });
    }
  }
  return error;
}

function sumCapacity(reported: unknown): ConsumedCapacityUnits | undefined {
  if (reported === undefined) return undefined;
  const entries = (Array.isArray(reported) ? reported : [reported]) as { CapacityUnits?: number; ReadCapacityUnits?: number; WriteCapacityUnits?: number }[];
  return entries.reduce<ConsumedCapacityUnits>(
    (sum, entry) => ({
      total: sum.total + (entry.CapacityUnits ?? 0),
      read: sum.read + (entry.ReadCapacityUnits ?? 0),
      write: sum.write + (entry.WriteCapacityUnits ?? 0),
    }),
    { total: 0, read: 0, write: 0 },
  );
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class DynamoKit {
  readonly tableName: string;
  private readonly cursorKey: Buffer;
  private readonly retry: BatchRetryPolicy;

  constructor(private readonly options: DynamoKitOptions) {
    if (!options.tableName) throw new TypeError('DynamoKit needs a table name');
    this.tableName = options.tableName;
    this.cursorKey = options.cursorSecret
      ? Buffer.from(options.cursorSecret)
      : createHash('sha256').update(`agent-table-cursor\0${options.tableName}`).digest();
    this.retry = { ...DEFAULT_BATCH_RETRY, ...options.batchRetry };
  }

  private get client(): DynamoDBDocumentClient {
    return this.options.client ?? sharedDocumentClient();
  }

  private get capacityMode(): 'TOTAL' | 'INDEXES' | undefined {
    return this.options.observer ? (this.options.consumedCapacity ?? 'TOTAL') : undefined;
  }

  async get(request: GetRequest): Promise<Item | undefined> {
    const output = await this.call('get', () => this.client.send(new GetCommand({
      TableName: this.tableName,
      Key: request.key,
      ConsistentRead: request.consistentRead,
      ReturnConsumedCapacity: this.capacityMode,
    })));
    return output.Item;
  }

  async queryPage(request: QueryRequest): Promise<QueryPageResult> {
    const scope = this.cursorScope(request);
    // Verified before any remote call: a bad cursor costs nothing and is not a DynamoDB error.
    const exclusiveStartKey = request.cursor === undefined ? undefined : this.decodeCursor(request.cursor, scope);
    const output = await this.call('queryPage', () => this.client.send(new QueryCommand({
      TableName: this.tableName,
      IndexName: request.indexName,
      KeyConditionExpression: request.keyCondition,
      FilterExpression: request.filter,
      ProjectionExpression: request.projection,
      ExpressionAttributeNames: request.names,
      ExpressionAttributeValues: request.values,
      Limit: request.limit,
      ConsistentRead: request.consistentRead,
      ScanIndexForward: request.newestFirst ? false : undefined,
      ExclusiveStartKey: exclusiveStartKey,
      ReturnConsumedCapacity: this.capacityMode,
    })));
    const items = output.Items ?? [];
    return output.LastEvaluatedKey ? { items, cursor: this.encodeCursor(output.LastEvaluatedKey, scope) } : { items };
  }

  async put(request: PutRequest): Promise<void> {
    await this.call('put', () => this.client.send(new PutCommand({ TableName: this.tableName, ...this.putInput(request), ReturnConsumedCapacity: this.capacityMode })));
  }

  /** Returns the item only when `returnValues` asks for it. */
  async update(request: UpdateRequest): Promise<Item | undefined> {
    const output = await this.call('update', () => this.client.send(new UpdateCommand({
      TableName: this.tableName,
      ...this.updateInput(request),
      ReturnValues: request.returnValues,
      ReturnConsumedCapacity: this.capacityMode,
    })));
    return output.Attributes;
  }

  /** Returns the deleted item only when `returnDeleted` is set. */
  async delete(request: DeleteRequest): Promise<Item | undefined> {
    const output = await this.call('delete', () => this.client.send(new DeleteCommand({
      TableName: this.tableName,
      ...this.deleteInput(request),
      ReturnValues: request.returnDeleted ? 'ALL_OLD' : undefined,
      ReturnConsumedCapacity: this.capacityMode,
    })));
    return output.Attributes;
  }

  /** All actions succeed or none does; a failed condition throws ConditionFailedError with its index. */
  async transact(actions: readonly TransactAction[]): Promise<void> {
    await this.call('transact', () => this.client.send(new TransactWriteCommand({
      TransactItems: actions.map((action) => {
        if ('put' in action) return { Put: { TableName: this.tableName, ...this.putInput(action.put) } };
        if ('update' in action) return { Update: { TableName: this.tableName, ...this.updateInput(action.update) } };
        if ('delete' in action) return { Delete: { TableName: this.tableName, ...this.deleteInput(action.delete) } };
        const check = action.conditionCheck;
        return {
          ConditionCheck: {
            TableName: this.tableName,
            Key: check.key,
            ConditionExpression: check.condition,
            ExpressionAttributeNames: check.names,
            ExpressionAttributeValues: check.values,
          },
        };
      }),
      ReturnConsumedCapacity: this.capacityMode,
    })));
  }

  /** Items for the keys that exist, in no particular order. Duplicate keys are read once. */
  async batchGet(keys: readonly ItemKey[], options: { readonly consistentRead?: boolean } = {}): Promise<Item[]> {
    const unique = [...new Map(keys.map((key) => [stableStringify(key), key])).values()];
    const found: Item[] = [];
    for (let start = 0; start < unique.length; start += BATCH_GET_CHUNK) {
      let pending: Item[] = unique.slice(start, start + BATCH_GET_CHUNK);
      await this.withUnprocessedRetry('batchGet', async () => {
        const output = await this.call('batchGet', () => this.client.send(new BatchGetCommand({
          RequestItems: { [this.tableName]: { Keys: pending, ConsistentRead: options.consistentRead } },
          ReturnConsumedCapacity: this.capacityMode,
        })));
        found.push(...(output.Responses?.[this.tableName] ?? []));
        pending = output.UnprocessedKeys?.[this.tableName]?.Keys ?? [];
        return pending;
      });
    }
    return found;
  }

  /** Writes in chunks of 25; throws UnprocessedItemsError if DynamoDB keeps refusing some. */
  async batchWrite(requests: readonly BatchWriteRequest[]): Promise<void> {
    for (let start = 0; start < requests.length; start += BATCH_WRITE_CHUNK) {
      let pending = requests.slice(start, start + BATCH_WRITE_CHUNK).map((request) =>
        'put' in request ? { PutRequest: { Item: request.put } } : { DeleteRequest: { Key: request.delete } },
      );
      await this.withUnprocessedRetry('batchWrite', async () => {
        const output = await this.call('batchWrite', () => this.client.send(new BatchWriteCommand({
          RequestItems: { [this.tableName]: pending },
          ReturnConsumedCapacity: this.capacityMode,
        })));
        pending = (output.UnprocessedItems?.[this.tableName] ?? []).map((request) =>
          request.PutRequest ? { PutRequest: { Item: request.PutRequest.Item! } } : { DeleteRequest: { Key: request.DeleteRequest!.Key! } },
        );
        return pending;
      });
    }
  }

  /** Runs `attempt` (which returns what is still unprocessed) until nothing remains or the bound. */
  private async withUnprocessedRetry(operation: 'batchGet' | 'batchWrite', attempt: () => Promise<readonly Item[]>): Promise<void> {
    for (let attemptNumber = 1; ; attemptNumber++) {
      const remaining = await attempt();
      if (remaining.length === 0) return;
      if (attemptNumber >= this.retry.maxAttempts) throw new UnprocessedItemsError(operation, remaining, attemptNumber);
      const ceiling = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attemptNumber - 1));
      await sleep(Math.random() * ceiling);
    }
  }

  private putInput(request: PutRequest) {
    return {
      Item: request.item,
      ConditionExpression: request.condition,
      ExpressionAttributeNames: request.names,
      ExpressionAttributeValues: request.values,
    };
  }

  private updateInput(request: Omit<UpdateRequest, 'returnValues'>) {
    return {
      Key: request.key,
      UpdateExpression: request.update,
      ConditionExpression: request.condition,
      ExpressionAttributeNames: request.names,
      ExpressionAttributeValues: request.values,
    };
  }

  private deleteInput(request: Omit<DeleteRequest, 'returnDeleted'>) {
    return {
      Key: request.key,
      ConditionExpression: request.condition,
      ExpressionAttributeNames: request.names,
      ExpressionAttributeValues: request.values,
    };
  }

  private async call<Output extends { readonly $metadata: { readonly attempts?: number }; readonly ConsumedCapacity?: unknown }>(
    operation: KitOperation,
    send: () => Promise<Output>,
  ): Promise<Output> {
    const started = performance.now();
    try {
      const output = await send();
      this.observe({ operation, outcome: 'ok', attempts: output.$metadata.attempts ?? 1, consumedCapacity: sumCapacity(output.ConsumedCapacity), started });
      return output;
    } catch (error) {
      const translated = translateError(error);
      this.observe({
        operation,
        outcome: translated instanceof ConditionFailedError ? 'condition_failed' : 'error',
        errorName: (error as { name?: string }).name,
        attempts: (error as { $metadata?: { attempts?: number } }).$metadata?.attempts ?? 1,
        started,
      });
      throw translated;
    }
  }

  private observe(event: Omit<DynamoCallEvent, 'tableName' | 'durationMs'> & { readonly started: number }): void {
    const observer = this.options.observer;
    if (!observer) return;
    const { started, ...rest } = event;
    try {
      observer.onRemoteCall({ ...rest, tableName: this.tableName, durationMs: performance.now() - started });
    } catch {
      // An observer is instrumentation; it must never change the outcome of a data operation.
    }
  }

  /** Binds a cursor to the query that issued it: another query's cursor does not verify. */
  private cursorScope(request: QueryRequest): string {
    const { cursor: _cursor, limit: _limit, ...shape } = request;
    return stableStringify(shape);
  }

  private mac(scope: string, payload: string): Buffer {
    return createHmac('sha256', this.cursorKey).update(`${this.tableName}\0${scope}\0${payload}`).digest().subarray(0, CURSOR_MAC_BYTES);
  }

  private encodeCursor(lastEvaluatedKey: Item, scope: string): string {
    const payload = Buffer.from(JSON.stringify(lastEvaluatedKey)).toString('base64url');
    return `${payload}.${this.mac(scope, payload).toString('base64url')}`;
  }

  private decodeCursor(cursor: string, scope: string): Item {
    const [payload, signature, ...rest] = cursor.split('.');
    if (!payload || !signature || rest.length > 0) throw new InvalidCursorError('not a cursor issued by this table');
    const presented = Buffer.from(signature, 'base64url');
    const expected = this.mac(scope, payload);
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
      throw new InvalidCursorError('signature mismatch (altered, or issued for another query or table)');
    }
    try {
      const key: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      if (key === null || typeof key !== 'object' || Array.isArray(key)) throw new Error('not an object');
      return key as Item;
    } catch {
      throw new InvalidCursorError('unreadable payload');
    }
  }
}
