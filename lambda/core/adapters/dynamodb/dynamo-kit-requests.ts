/** The requests the kit takes and the events it reports: plain data, no AWS SDK types. */

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

/** How the pages of {@link DynamoKit.queryFanOut} are cut and ordered. */
export interface FanOutPage {
  readonly limit: number;
  /** A cursor returned by a previous page of the SAME fan-out. */
  readonly cursor?: string;
  readonly newestFirst?: boolean;
  /** The attribute the queries are sorted on (the table's or the index's sort key). */
  readonly sortAttribute: string;
  /** The attributes of an item's key in the queried table or index (an ExclusiveStartKey). */
  readonly keyAttributes: readonly string[];
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
