import type { UtcDay } from '../../domain/agent-usage';
import type { DailyHandoffTimelines, HandoffTimeline } from '../../domain/handoff-report';
import { DEFAULT_RETENTION, expiresAt, type RetentionPolicy } from '../../domain/privacy';
import type { Session } from '../../domain/session';
import { isoMicros } from '../../domain/timestamps';
import type { Clock } from '../../ports/clock';
import type { HandoffReportRepository, UsageReadBound } from '../../ports/repositories';
import type { DynamoKit, Item, TransactAction } from './dynamo-kit';
import { ENTITY_TYPE, EntityType, handoffReportKey, handoffReportPartition, PK, TTL } from './keys';

/** The steps of a handoff its item records, as attributes. */
const HandoffAttribute = {
  requestedAt: 'requested_at',
  claimedAt: 'claimed_at',
  firstReplyAt: 'first_reply_at',
} as const;

/** A step after the handoff itself. */
export type HandoffStep = 'claimed' | 'firstReply';
const STEP_ATTRIBUTE: Readonly<Record<HandoffStep, string>> = { claimed: HandoffAttribute.claimedAt, firstReply: HandoffAttribute.firstReplyAt };

type HandoffUpdate = Extract<TransactAction, { readonly update: unknown }>['update'];

/**
 * The per-day handoff items (keys.ts, `REPORT#HANDOFF#{day}`). Their writes are actions the
 * session repository and the turn ledger add to the writes they make anyway; each is an upsert
 * that records a step once (`if_not_exists`), so a retried claim or a second reply keeps the first
 * time, and a handoff written before these items existed gets a whole item at its claim. They
 * live as long as a conversation (the conversation retention, from the handoff).
 */
export class DynamoHandoffReport implements HandoffReportRepository {
  constructor(
    private readonly kit: DynamoKit,
    private readonly clock: Clock,
    private readonly retention: RetentionPolicy = DEFAULT_RETENTION,
  ) {}

  /** The write that records `session`'s handoff, and `step` at `at` when given; undefined for a session without a handoff time. */
  stepUpdate(session: Pick<Session, 'sessionId' | 'handoffRequestedAt'>, step?: { readonly step: HandoffStep; readonly at: string }): HandoffUpdate | undefined {
    const requestedAt = session.handoffRequestedAt;
    if (requestedAt === undefined) return undefined;
    const sets = ['#type = :type', '#requested = if_not_exists(#requested, :requested)', '#ttl = if_not_exists(#ttl, :ttl)'];
    const names: Record<string, string> = { '#type': ENTITY_TYPE, '#requested': HandoffAttribute.requestedAt, '#ttl': TTL };
    const values: Record<string, unknown> = { ':type': EntityType.handoffReport, ':requested': isoMicros(requestedAt), ':ttl': expiresAt(requestedAt, this.retention.conversationSeconds) };
    if (step !== undefined) {
      sets.push('#step = if_not_exists(#step, :at)');
      names['#step'] = STEP_ATTRIBUTE[step.step];
      values[':at'] = isoMicros(step.at);
    }
    return { key: handoffReportKey(requestedAt, session.sessionId), update: `SET ${sets.join(', ')}`, names, values };
  }

  /** The same write on its own, for a session write that cannot carry it in a transaction. */
  async recordStep(session: Pick<Session, 'sessionId' | 'handoffRequestedAt'>, step?: { readonly step: HandoffStep; readonly at: string }): Promise<void> {
    const update = this.stepUpdate(session, step);
    if (update !== undefined) await this.kit.update(update);
  }

  /** Deletes the session's handoff item (an evaluation's session, which no report may count). */
  async forget(session: Pick<Session, 'sessionId' | 'handoffRequestedAt'>): Promise<void> {
    if (session.handoffRequestedAt !== undefined) await this.kit.delete({ key: handoffReportKey(session.handoffRequestedAt, session.sessionId) });
  }

  /** Each day one Query of its partition, pages read in turn, the days in parallel; items past their TTL are left out. */
  async timelinesByDay(days: readonly UtcDay[], bound: UsageReadBound): Promise<DailyHandoffTimelines[]> {
    const now = Math.floor(this.clock.now().getTime() / 1000);
    return Promise.all(
      days.map(async (day) => {
        const timelines: HandoffTimeline[] = [];
        const request = {
          keyCondition: '#pk = :partition',
          filter: '#type = :type AND (attribute_not_exists(#ttl) OR #ttl > :now)',
          projection: '#requested, #claimed, #replied',
          names: { '#pk': PK, '#type': ENTITY_TYPE, '#ttl': TTL, '#requested': HandoffAttribute.requestedAt, '#claimed': HandoffAttribute.claimedAt, '#replied': HandoffAttribute.firstReplyAt },
          values: { ':partition': handoffReportPartition(`${day}T00:00:00Z`), ':type': EntityType.handoffReport, ':now': now },
          limit: bound.pageSize,
        };
        const { complete } = await this.kit.queryEach([request], { maxPages: bound.pagesPerPartition, onItems: (items) => timelines.push(...items.map(timelineOf)) });
        return { day, timelines, complete };
      }),
    );
  }
}

function timelineOf(item: Item): HandoffTimeline {
  const optional = (attribute: string) => (typeof item[attribute] === 'string' ? (item[attribute] as string) : undefined);
  const claimedAt = optional(HandoffAttribute.claimedAt);
  const firstReplyAt = optional(HandoffAttribute.firstReplyAt);
  return { requestedAt: String(item[HandoffAttribute.requestedAt]), ...(claimedAt === undefined ? {} : { claimedAt }), ...(firstReplyAt === undefined ? {} : { firstReplyAt }) };
}
