import { RECEIPT_RETENTION_SECONDS } from '../../domain/inbound-receipt';
import type { ModelRound, TurnCheckpointStore, TurnTrace } from '../../ports/agent-tools';
import type { Clock } from '../../ports/clock';
import type { DynamoKit } from './dynamo-kit';
import { ENTITY_TYPE, EntityType, TTL, turnCheckpointKey } from './keys';

/** Each agent run of the turn in an attribute of its own, so a stage's save never rewrites another's. */
const runAttribute = (run: string) => `rounds#${run}`;
/** The turn's trace: an attribute of its own, beside the rounds it summarises. */
const TRACE = 'trace';

/**
 * The turn's checkpoint: per agent run, its model rounds and consumer tool calls as JSON (the
 * model's messages are the adapter's own shapes, kept exactly). One item per turn in the customer's
 * inbound partition, kept as long as the receipts a retry or a redrive can still drain.
 */
export class DynamoTurnCheckpointRepository implements TurnCheckpointStore {
  constructor(
    private readonly kit: DynamoKit,
    private readonly clock: Clock,
  ) {}

  async load(customerId: string, turnId: string, run: string): Promise<readonly ModelRound[]> {
    const item = await this.kit.get({ key: turnCheckpointKey(customerId, turnId), consistentRead: true });
    const stored = item?.[runAttribute(run)];
    return typeof stored === 'string' ? (JSON.parse(stored) as ModelRound[]) : [];
  }

  save(customerId: string, turnId: string, run: string, rounds: readonly ModelRound[]): Promise<void> {
    return this.set(customerId, turnId, runAttribute(run), rounds);
  }

  saveTrace(customerId: string, turnId: string, trace: TurnTrace): Promise<void> {
    return this.set(customerId, turnId, TRACE, trace);
  }

  async loadTrace(customerId: string, turnId: string): Promise<TurnTrace | undefined> {
    const item = await this.kit.get({ key: turnCheckpointKey(customerId, turnId) });
    const stored = item?.[TRACE];
    return typeof stored === 'string' ? (JSON.parse(stored) as TurnTrace) : undefined;
  }

  /** One attribute of the turn's item, as JSON (the model's messages keep their exact shapes), and the item's TTL moved on. */
  private async set(customerId: string, turnId: string, attribute: string, value: unknown): Promise<void> {
    await this.kit.update({
      key: turnCheckpointKey(customerId, turnId),
      update: 'SET #entity = :entity, #ttl = :ttl, #attribute = :value',
      names: { '#entity': ENTITY_TYPE, '#ttl': TTL, '#attribute': attribute },
      values: { ':entity': EntityType.turnCheckpoint, ':ttl': Math.floor(this.clock.now().getTime() / 1000) + RECEIPT_RETENTION_SECONDS, ':value': JSON.stringify(value) },
    });
  }
}
