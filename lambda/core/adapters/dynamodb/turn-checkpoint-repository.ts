import { RECEIPT_RETENTION_SECONDS } from '../../domain/inbound-receipt';
import type { ModelRound, TurnCheckpointStore } from '../../ports/agent-tools';
import type { Clock } from '../../ports/clock';
import type { DynamoKit } from './dynamo-kit';
import { ENTITY_TYPE, EntityType, TTL, turnCheckpointKey } from './keys';

/** Each agent run of the turn in an attribute of its own, so a stage's save never rewrites another's. */
const runAttribute = (run: string) => `rounds#${run}`;

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

  async save(customerId: string, turnId: string, run: string, rounds: readonly ModelRound[]): Promise<void> {
    await this.kit.update({
      key: turnCheckpointKey(customerId, turnId),
      update: 'SET #entity = :entity, #ttl = :ttl, #run = :rounds',
      names: { '#entity': ENTITY_TYPE, '#ttl': TTL, '#run': runAttribute(run) },
      values: { ':entity': EntityType.turnCheckpoint, ':ttl': Math.floor(this.clock.now().getTime() / 1000) + RECEIPT_RETENTION_SECONDS, ':rounds': JSON.stringify(rounds) },
    });
  }
}
