import type { InboxVersion } from '../../domain/inbox-summary';
import { isoMicros } from '../../domain/timestamps';
import type { Clock } from '../../ports/clock';
import type { DynamoKit } from './dynamo-kit';
import { ENTITY_TYPE, EntityType, inboxVersionKey } from './keys';

/**
 * One small item whose number rises whenever a conversation moves between states (a new one, a
 * handoff, a claim, a release, a close): what changes which tab a row is in. The inbox's list
 * answers carry it in their `ETag`, so a console asking again with `If-None-Match` gets `304` for
 * one read of this item instead of a page of sessions.
 *
 * Not raised by what changes only a row's text — the agent's turns that leave the state as it was,
 * a customer message to the human inbox (the webhook reaches only the customer partitions): the
 * list answers' `ETag` also turns each minute, so such a row is at most a minute behind
 * (operator-http.ts). One item for the deployment is written at the pace of conversations changing
 * hands — people's pace, far below an item's write ceiling. Each operator's unread marks count
 * on the same item (`raiseSeenMarks`), at the pace of that operator opening conversations.
 */
export class DynamoInboxVersion {
  constructor(
    private readonly kit: DynamoKit,
    private readonly clock: Clock,
  ) {}

  /**
   * The current number and `operatorPhone`'s count of marks (0 before the first change).
   * Eventually consistent: a poll that reads it a moment stale sees the change at the next poll.
   */
  async current(operatorPhone: string): Promise<InboxVersion> {
    const item = await this.kit.get({ key: inboxVersionKey() });
    const seenMarks = item?.[seenMarksAttribute(operatorPhone)];
    return { version: typeof item?.version === 'number' ? item.version : 0, seenMarks: typeof seenMarks === 'number' ? seenMarks : 0 };
  }

  /**
   * Counts a change of `operatorPhone`'s unread marks (they opened a conversation the customer
   * wrote to): their lists' `ETag` turns, nobody else's. One attribute per operator, on the item
   * every poll reads anyway; a lost count is bounded like a lost raise.
   */
  async raiseSeenMarks(operatorPhone: string): Promise<void> {
    await this.kit
      .update({
        key: inboxVersionKey(),
        update: 'SET #type = :type ADD #marks :one',
        names: { '#type': ENTITY_TYPE, '#marks': seenMarksAttribute(operatorPhone) },
        values: { ':type': EntityType.inboxVersion, ':one': 1 },
      })
      .catch(() => undefined);
  }

  /**
   * Raises the number after a change was written. A raise that fails does not undo or fail the
   * change (the kit's observer still records the failed call): the list answers' `ETag` also turns
   * each minute, which bounds how long a lost raise keeps a console's inbox behind.
   */
  async raise(): Promise<void> {
    await this.kit
      .update({
        key: inboxVersionKey(),
        update: 'SET #type = :type, #at = :at ADD #version :one',
        names: { '#type': ENTITY_TYPE, '#at': 'updated_at', '#version': 'version' },
        values: { ':type': EntityType.inboxVersion, ':at': isoMicros(this.clock.now()), ':one': 1 },
      })
      .catch(() => undefined);
  }
}

/** The version item's count of one operator's mark changes. */
function seenMarksAttribute(operatorPhone: string): string {
  return `seen_marks_${operatorPhone}`;
}
