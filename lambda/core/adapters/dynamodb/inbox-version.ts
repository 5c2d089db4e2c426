import type { InboxVersion } from '../../domain/inbox-summary';
import { isHumanOwned, SessionState } from '../../domain/session';
import { isoMicros } from '../../domain/timestamps';
import type { Clock } from '../../ports/clock';
import type { DynamoKit, Item } from './dynamo-kit';
import { agentActivityKey, agentActivityKeys, ENTITY_TYPE, EntityType, inboxVersionKey, PK, SK } from './keys';

/**
 * What the inbox's list answers carry in their `ETag`, so a console asking again with
 * `If-None-Match` gets `304` for one small read instead of a page of sessions. Every write that
 * changes or removes a row raises what the lists showing that row compare:
 *
 * - **the inbox's version**, one item: a conversation moving between states (a new handoff, a
 *   claim, a release, a close — the idle sweep's too), a customer's message to the human inbox, a
 *   turn that hands the conversation to people or closes it, an erasure. People's pace: the writes
 *   of conversations people have, or that change hands, far below an item's write ceiling. Each
 *   operator's unread marks count on the same item (`raiseSeenMarks`), at the pace of that operator
 *   opening conversations.
 * - **the agent's activity**, one item per write shard: every other turn (a new conversation, the
 *   customer's next message to the agent, a name learned) changes a row only an admin's lists of the
 *   agent's conversations (`NEW`, `QUALIFYING`) show, at the agent's pace — up to 1,000 turns a
 *   second, which one item could not take. Those lists compare both.
 *
 * A raise follows its write and never fails it (the kit's observer still records a failed call): a
 * lost raise leaves lists that show the row behind until the next raise.
 */
export class DynamoInboxVersion {
  constructor(
    private readonly kit: DynamoKit,
    private readonly clock: Clock,
  ) {}

  /**
   * The current number and `operatorPhone`'s count of marks (0 before the first change); with
   * `agentLanes`, also the agent's activity (the inbox's item and the shards in one BatchGetItem).
   * Eventually consistent: a poll that reads it a moment stale sees the change at the next poll.
   */
  async current(operatorPhone: string, options: { readonly agentLanes?: boolean } = {}): Promise<InboxVersion> {
    if (!options.agentLanes) return versionOf(await this.kit.get({ key: inboxVersionKey() }), operatorPhone);
    const items = await this.kit.batchGet([inboxVersionKey(), ...agentActivityKeys()]);
    const [inbox] = items.filter((item) => item[PK] === inboxVersionKey()[PK] && item[SK] === inboxVersionKey()[SK]);
    const agentActivity = items.filter((item) => item[ENTITY_TYPE] === EntityType.agentActivity).reduce((sum, item) => sum + numberOf(item.version), 0);
    return { ...versionOf(inbox, operatorPhone), agentActivity };
  }

  /**
   * Counts a change of `operatorPhone`'s unread marks (they opened a conversation the customer
   * wrote to): their lists' `ETag` turns, nobody else's. One attribute per operator, on the item
   * every poll reads anyway; a lost count is bounded like a lost raise.
   */
  async raiseSeenMarks(operatorPhone: string): Promise<void> {
    await this.add(inboxVersionKey(), EntityType.inboxVersion, seenMarksAttribute(operatorPhone));
  }

  /** Raises the inbox's number after a change of a row people's lists show was written. */
  async raise(): Promise<void> {
    await this.add(inboxVersionKey(), EntityType.inboxVersion, 'version');
  }

  /**
   * After a turn wrote the customer's session, once in `from` (undefined: a new session), now in
   * `to`: the inbox's number when either state is people's or closed (the row moves between lanes, or
   * people's lists show it), else the agent's activity on the customer's shard.
   */
  async raiseAfterTurn(customerId: string, from: SessionState | undefined, to: SessionState): Promise<void> {
    const peoples = [from, to].some((state) => state !== undefined && (isHumanOwned(state) || state === SessionState.CLOSED));
    await (peoples ? this.raise() : this.add(agentActivityKey(customerId), EntityType.agentActivity, 'version'));
  }

  private async add(key: ReturnType<typeof inboxVersionKey>, type: EntityType, counter: string): Promise<void> {
    await this.kit
      .update({
        key,
        update: 'SET #type = :type, #at = :at ADD #counter :one',
        names: { '#type': ENTITY_TYPE, '#at': 'updated_at', '#counter': counter },
        values: { ':type': type, ':at': isoMicros(this.clock.now()), ':one': 1 },
      })
      .catch(() => undefined);
  }
}

function versionOf(item: Item | undefined, operatorPhone: string): InboxVersion {
  return { version: numberOf(item?.version), seenMarks: numberOf(item?.[seenMarksAttribute(operatorPhone)]) };
}

function numberOf(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

/** The version item's count of one operator's mark changes. */
function seenMarksAttribute(operatorPhone: string): string {
  return `seen_marks_${operatorPhone}`;
}
