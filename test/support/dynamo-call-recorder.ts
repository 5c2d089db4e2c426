import type { DynamoCallEvent, DynamoKitObserver } from '../../lambda/core/adapters/dynamodb/dynamo-kit';

/** Records every remote call a kit makes. */
export class CallRecorder implements DynamoKitObserver {
  readonly calls: DynamoCallEvent[] = [];

  onRemoteCall(event: DynamoCallEvent): void {
    this.calls.push(event);
  }

  reset(): void {
    this.calls.length = 0;
  }

  operations(): string[] {
    return this.calls.map((call) => call.operation);
  }
}
