import type { ConsumedCapacityUnits, DynamoCallEvent, DynamoKitObserver, KitOperation } from './dynamo-kit';

export interface OperationUsage {
  /** Remote calls the kit made (each batch retry counts). */
  readonly calls: number;
  /** Attempts including the SDK's own retries. */
  readonly sdkAttempts: number;
  readonly conditionFailures: number;
  readonly errors: number;
  readonly capacity: ConsumedCapacityUnits;
}

export interface UsageSnapshot {
  readonly total: OperationUsage;
  readonly byOperation: Readonly<Partial<Record<KitOperation, OperationUsage>>>;
}

const EMPTY: OperationUsage = { calls: 0, sdkAttempts: 0, conditionFailures: 0, errors: 0, capacity: { total: 0, read: 0, write: 0 } };

function add(usage: OperationUsage, event: DynamoCallEvent): OperationUsage {
  const capacity = event.consumedCapacity ?? EMPTY.capacity;
  return {
    calls: usage.calls + 1,
    sdkAttempts: usage.sdkAttempts + event.attempts,
    conditionFailures: usage.conditionFailures + (event.outcome === 'condition_failed' ? 1 : 0),
    errors: usage.errors + (event.outcome === 'error' ? 1 : 0),
    capacity: { total: usage.capacity.total + capacity.total, read: usage.capacity.read + capacity.read, write: usage.capacity.write + capacity.write },
  };
}

/**
 * Sums remote calls and consumed capacity per kit operation — e.g. snapshot and reset around one
 * inbound message to get "calls and capacity per message".
 */
export class DynamoUsageTally implements DynamoKitObserver {
  private byOperation: Partial<Record<KitOperation, OperationUsage>> = {};
  private total: OperationUsage = EMPTY;

  onRemoteCall(event: DynamoCallEvent): void {
    this.byOperation = { ...this.byOperation, [event.operation]: add(this.byOperation[event.operation] ?? EMPTY, event) };
    this.total = add(this.total, event);
  }

  snapshot(): UsageSnapshot {
    return { total: this.total, byOperation: this.byOperation };
  }

  reset(): void {
    this.byOperation = {};
    this.total = EMPTY;
  }
}
