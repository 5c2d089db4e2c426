/**
 * The data-access kit: the ONE module that talks to DynamoDB. Repositories build keys (keys.ts) and
 * expressions and call these operations; nothing else calls DynamoDB.
 *
 * - One client per process (dynamodb-documents.ts: DynamoDB's JSON API without the SDK's clients; `removeUndefinedValues`; `convertClassInstanceToMap`: a map keyed `constructor` is data), created on first use.
 * - `queryPage` takes and returns an opaque, tamper-evident cursor; there is no Scan.
 * - `batchGet`/`batchWrite` retry `Unprocessed*` with exponential backoff and full jitter, up to a
 *   bound, then throw {@link UnprocessedItemsError} naming what remained.
 * - A failed condition becomes {@link ConditionFailedError} (with a transaction's per-action
 *   reasons). Every other failure — throttling, unavailability, access denied, transaction
 *   conflicts, a missing table — is rethrown unchanged: it is never reported as success.
 * - ReturnValues stays NONE unless the caller asks for the item.
 * - An optional {@link DynamoKitObserver} sees every remote call with its consumed capacity.
 */
import { randomBytes } from 'node:crypto';
import { type AwsCallOptions } from '../aws/signed-aws-post';
import { ConditionFailedError } from '../../ports/repositories';
import { type DynamoDocuments, SignedDynamoDocuments } from './dynamodb-documents';
import { translateError, UnprocessedItemsError } from './dynamo-errors';
import type {
  BatchWriteRequest,
  ConsumedCapacityUnits,
  DeleteRequest,
  DynamoCallEvent,
  DynamoKitObserver,
  GetRequest,
  Item,
  ItemKey,
  KitOperation,
  PutRequest,
  FanOutPage,
  QueryPageResult,
  QueryRequest,
  TransactAction,
  UpdateRequest,
} from './dynamo-kit-requests';
import { stableStringify } from '../../domain/stable-json';
import { mergeFanOutPage } from './fan-out-merge';
import { PageCursors, type ShardPosition, START } from './page-cursor';

export * from './dynamo-kit-requests';
export type { DocumentOperation, DocumentOperations, DynamoDocuments } from './dynamodb-documents';
export { isTransactionConflict } from './dynamo-errors';

export interface BatchRetryPolicy {
  /** Total calls per chunk, the first included. */
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export interface DynamoKitOptions {
  readonly tableName: string;
  /** Defaults to the process-wide client (see {@link sharedDocumentClient}). */
  readonly client?: DynamoDocuments;
  /**
   * Key of the cursor MAC: the bytes, or where the kit gets them the first time it signs or checks
   * a cursor — `deploymentCursorKey` (cursor-signing-key.ts), the deployment's own key in the table,
   * for cursors that leave the process and come back to another instance (the operator API).
   * Default: a random key of this process, enough for every list a function pages through itself.
   * Either way a cursor of another deployment, or edited, truncated or foreign, is refused.
   */
  readonly cursorSecret?: string | Uint8Array | CursorKeySource;
  readonly observer?: DynamoKitObserver;
  /** Capacity detail requested when an observer is set (default TOTAL). */
  readonly consumedCapacity?: 'TOTAL' | 'INDEXES';
  readonly batchRetry?: Partial<BatchRetryPolicy>;
}

/** Reads (or creates) the cursor key with the kit that will sign with it. */
export type CursorKeySource = (kit: DynamoKit) => Promise<Uint8Array>;

/** The key of the cursors whose kit was given none: they never leave this process. */
const PROCESS_CURSOR_KEY = randomBytes(32);

const DEFAULT_BATCH_RETRY: BatchRetryPolicy = { maxAttempts: 8, baseDelayMs: 50, maxDelayMs: 2_000 };
const BATCH_GET_CHUNK = 100;
const BATCH_WRITE_CHUNK = 25;

/**
 * A client of the table's API, signed and addressed as `options` say (the SDK's defaults for what
 * they leave out). With tracing on, Powertools' tracer records its requests as `fetch` calls.
 */
export function createDocumentClient(options: AwsCallOptions = {}): DynamoDocuments {
  return new SignedDynamoDocuments(options);
}

let processClient: DynamoDocuments | undefined;

/** The process-wide client, created on first use (so importing the kit costs nothing). */
export function sharedDocumentClient(): DynamoDocuments {
  processClient ??= createDocumentClient();
  return processClient;
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

function conditionInput(request: { readonly condition?: string; readonly names?: Record<string, string>; readonly values?: Record<string, unknown> }) {
  return { ConditionExpression: request.condition, ExpressionAttributeNames: request.names, ExpressionAttributeValues: request.values };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class DynamoKit {
  readonly tableName: string;
  private pageCursors?: Promise<PageCursors>;
  private readonly retry: BatchRetryPolicy;

  constructor(private readonly options: DynamoKitOptions) {
    if (!options.tableName) throw new TypeError('DynamoKit needs a table name');
    this.tableName = options.tableName;
    this.retry = { ...DEFAULT_BATCH_RETRY, ...options.batchRetry };
  }

  /** The cursor signer, its key read once (a failed read is tried again on the next cursor). */
  private cursors(): Promise<PageCursors> {
    this.pageCursors ??= this.cursorKey().then(
      (key) => new PageCursors(this.tableName, key),
      (error: unknown) => {
        this.pageCursors = undefined;
        throw error;
      },
    );
    return this.pageCursors;
  }

  private async cursorKey(): Promise<Buffer> {
    const secret = this.options.cursorSecret;
    if (secret === undefined) return PROCESS_CURSOR_KEY;
    return Buffer.from(typeof secret === 'function' ? await secret(this) : secret);
  }

  private get client(): DynamoDocuments {
    return this.options.client ?? sharedDocumentClient();
  }

  private get capacityMode(): 'TOTAL' | 'INDEXES' | undefined {
    return this.options.observer ? (this.options.consumedCapacity ?? 'TOTAL') : undefined;
  }

  async get(request: GetRequest): Promise<Item | undefined> {
    const output = await this.call('get', () => this.client.call('GetItem', {
      TableName: this.tableName,
      Key: request.key,
      ConsistentRead: request.consistentRead,
      ReturnConsumedCapacity: this.capacityMode,
    }));
    return output.Item;
  }

  async queryPage(request: QueryRequest): Promise<QueryPageResult> {
    const cursors = await this.cursors();
    const scope = cursors.scope(request);
    // Verified before any query: a bad cursor costs no read of the data and is not a DynamoDB error.
    const exclusiveStartKey = request.cursor === undefined ? undefined : cursors.decode(request.cursor, scope);
    const { items, lastEvaluatedKey } = await this.queryFrom(request, exclusiveStartKey);
    return lastEvaluatedKey ? { items, cursor: cursors.encode(lastEvaluatedKey, scope) } : { items };
  }

  /**
   * One page over several queries of one list (its write shards), merged in sort-key order
   * (fan-out-merge.ts); the cursor carries every query's own position, so the next page resumes
   * each exactly after the last item this page took from it.
   */
  async queryFanOut(requests: readonly QueryRequest[], page: FanOutPage): Promise<QueryPageResult> {
    if (requests.length === 0) throw new TypeError('queryFanOut needs at least one query');
    const cursors = await this.cursors();
    const scope = cursors.fanOutScope(requests);
    const starts = page.cursor === undefined ? requests.map((): ShardPosition => START) : cursors.decodePositions(page.cursor, scope, requests.length);
    const { items, positions } = await mergeFanOutPage(requests, page, starts, (request, start) => this.queryFrom(request, start));
    return positions.every((position) => position === null) ? { items } : { items, cursor: cursors.encodePositions(positions, scope) };
  }

  /**
   * Every query read to its end, in parallel and unmerged, at most `maxPages` pages each: for a sum,
   * which needs no order, every item is read once (queryFanOut's merge reads again what a page did
   * not hand out). `onItems` sees each page; `complete` is false when a query had more pages.
   */
  async queryEach(requests: readonly QueryRequest[], options: { readonly maxPages: number; readonly onItems: (items: readonly Item[]) => void }): Promise<{ readonly complete: boolean }> {
    const exhausted = await Promise.all(
      requests.map(async (request) => {
        let start: Item | undefined;
        for (let page = 0; page < options.maxPages; page++) {
          const { items, lastEvaluatedKey } = await this.queryFrom(request, start);
          options.onItems(items);
          if ((start = lastEvaluatedKey) === undefined) return true;
        }
        return false;
      }),
    );
    return { complete: exhausted.every(Boolean) };
  }

  private async queryFrom(request: QueryRequest, exclusiveStartKey: Item | undefined): Promise<{ items: Item[]; lastEvaluatedKey?: Item }> {
    const output = await this.call('queryPage', () => this.client.call('Query', {
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
    }));
    return { items: output.Items ?? [], lastEvaluatedKey: output.LastEvaluatedKey };
  }

  async put(request: PutRequest): Promise<void> {
    await this.call('put', () => this.client.call('PutItem', { TableName: this.tableName, ...this.putInput(request), ReturnConsumedCapacity: this.capacityMode }));
  }

  /** Returns the item only when `returnValues` asks for it. */
  async update(request: UpdateRequest): Promise<Item | undefined> {
    const output = await this.call('update', () => this.client.call('UpdateItem', {
      TableName: this.tableName,
      ...this.updateInput(request),
      ReturnValues: request.returnValues,
      ReturnConsumedCapacity: this.capacityMode,
    }));
    return output.Attributes;
  }

  /** Returns the deleted item only when `returnDeleted` is set. */
  async delete(request: DeleteRequest): Promise<Item | undefined> {
    const output = await this.call('delete', () => this.client.call('DeleteItem', {
      TableName: this.tableName,
      ...this.deleteInput(request),
      ReturnValues: request.returnDeleted ? 'ALL_OLD' : undefined,
      ReturnConsumedCapacity: this.capacityMode,
    }));
    return output.Attributes;
  }

  /** All actions succeed or none does; a failed condition throws ConditionFailedError with its index. */
  async transact(actions: readonly TransactAction[]): Promise<void> {
    await this.call('transact', () => this.client.call('TransactWriteItems', {
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
    }));
  }

  /** Items for the keys that exist, in no particular order. Duplicate keys are read once. */
  async batchGet(keys: readonly ItemKey[], options: { readonly consistentRead?: boolean } = {}): Promise<Item[]> {
    const unique = [...new Map(keys.map((key) => [stableStringify(key), key])).values()];
    const found: Item[] = [];
    for (let start = 0; start < unique.length; start += BATCH_GET_CHUNK) {
      let pending: Item[] = unique.slice(start, start + BATCH_GET_CHUNK);
      await this.withUnprocessedRetry('batchGet', async () => {
        const output = await this.call('batchGet', () => this.client.call('BatchGetItem', {
          RequestItems: { [this.tableName]: { Keys: pending, ConsistentRead: options.consistentRead } },
          ReturnConsumedCapacity: this.capacityMode,
        }));
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
        const output = await this.call('batchWrite', () => this.client.call('BatchWriteItem', {
          RequestItems: { [this.tableName]: pending },
          ReturnConsumedCapacity: this.capacityMode,
        }));
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
    return { Item: request.item, ...conditionInput(request) };
  }

  private updateInput(request: Omit<UpdateRequest, 'returnValues'>) {
    return { Key: request.key, UpdateExpression: request.update, ...conditionInput(request) };
  }

  private deleteInput(request: Omit<DeleteRequest, 'returnDeleted'>) {
    return { Key: request.key, ...conditionInput(request) };
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
}
