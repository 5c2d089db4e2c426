import { ConditionFailedError, CrmSyncConcurrentUpdateError, type Page, type PageRequest, type SessionChanges, type SessionRepository, type TransitionOptions } from '../../ports/repositories';
import { AGENT_OWNED_STATES, assertLegalTransition, isAgentOwned, type Session, SessionState } from '../../domain/session';
import type { InboxSearch, SeenMark } from '../../domain/inbox-summary';
import { isoMicros } from '../../domain/timestamps';
import { DEFAULT_RETENTION, expiresAt, isExpired, type RetentionPolicy } from '../../domain/privacy';
import type { Clock } from '../../ports/clock';
import { ActivePointerAttribute, activePointerFromItem, activePointerToItem, activityIndexedAtOf, SessionAttribute as S, sessionFromItem, sessionToItem } from './codecs/session-codec';
import { CRM_SYNC_MAX_ATTEMPTS, type DynamoCrmSyncRepository } from './crm-sync-repository';
import type { DynamoKit, TransactAction } from './dynamo-kit';
import { KeyLayout } from '../../../../lib/contract/key-layout';
import { KeyLayoutPolicy } from './key-layout';
import { quietSinceCheck } from './inbound-receipt-repository';
import { activePointerKey, EntityType, GSI1PK, GSI1SK, idleSessionsUntil, sessionIndexKey, sessionKey, sessionStatePartition, shardedSessionStatePartition, TTL } from './keys';
import { DynamoHandoffReport } from './handoff-report-repository';
import { DynamoInboxVersion } from './inbox-version';
import { DynamoMessageRepository } from './message-repository';
import {
  handoffCustomerRenotifiedUpdate,
  handoffNotifiedUpdate,
  handoffRenotifiedUpdate,
  humanSendLockAcquisition,
  humanSendLockRelease,
  inboxFilter,
  ownerCondition,
  reengagementClaim,
  seenMarkUpdate,
} from './session-updates';
import { conditionally, IF_ABSENT, ITEM_EXISTS, KEY_NAMES, queryIndexPartitionsPage, toPage } from './repository-support';

const CHANGE_ATTRIBUTES: Readonly<Record<keyof SessionChanges, string>> = {
  assignedTo: S.assignedTo,
  handoffRequestedAt: S.handoffRequestedAt,
  handoffReason: S.handoffReason,
};

/**
 * Sessions and the ACTIVE pointer under the customer's partition. With a CRM repository, every
 * session write carries the projection intent in the same transaction (retried only when the
 * projection's compare-and-set lost). The turn ledger writes a turn's session with its reply
 * through `putAction`, `pointerAction` and `transactWithCrm`.
 */
export class DynamoSessionRepository implements SessionRepository {
  private readonly keyLayout: KeyLayoutPolicy;
  /** Where a closed session's messages are given its TTL. */
  private readonly messages: DynamoMessageRepository;
  /** Raised by every transition: the inbox rows show the state. */
  private readonly inboxVersion: DynamoInboxVersion;
  /** Where handoffs, claims and first human replies are recorded for the admins' report, by the writes that make them. */
  private readonly handoffReport: DynamoHandoffReport;

  constructor(
    private readonly kit: DynamoKit,
    private readonly clock: Clock,
    private readonly crmSync?: DynamoCrmSyncRepository,
    keyLayout?: KeyLayoutPolicy,
    private readonly retention: RetentionPolicy = DEFAULT_RETENTION,
  ) {
    this.keyLayout = keyLayout ?? new KeyLayoutPolicy(KeyLayout.SEED, kit, clock);
    this.messages = new DynamoMessageRepository(kit, clock, this.keyLayout);
    this.inboxVersion = new DynamoInboxVersion(kit, clock);
    this.handoffReport = new DynamoHandoffReport(kit, clock, retention);
  }

  /**
   * What a write of `session` (previously in `from`; undefined: a new session) adds to the
   * handoff report: the handoff's item when the conversation went from the agent to people, its
   * claim when a person took it from the waiting list. Nothing for any other write.
   */
  handoffReportActions(from: SessionState | undefined, session: Session): TransactAction[] {
    const update =
      session.state === SessionState.AWAITING_HUMAN && (from === undefined || isAgentOwned(from))
        ? this.handoffReport.stepUpdate(session)
        : from === SessionState.AWAITING_HUMAN && session.state === SessionState.HUMAN_ACTIVE
          ? this.handoffReport.stepUpdate(session, { step: 'claimed', at: session.updatedAt })
          : undefined;
    return update === undefined ? [] : [{ update }];
  }

  /** A closed session expires `conversationRetention` after its close (TTL cleans up; reads check it). */
  private itemOf(session: Session): Record<string, unknown> {
    const item = sessionToItem(session, this.keyLayout.writesShards);
    return session.state === SessionState.CLOSED && session.closedAt ? { ...item, [TTL]: expiresAt(session.closedAt, this.retention.conversationSeconds) } : item;
  }

  /**
   * Gives a closed session's messages the session's TTL. A separate step after the close: if it is
   * lost, the messages stay until the customer is erased, and the history reads already hide them
   * once the session is gone.
   */
  async expireHistory(session: Session): Promise<void> {
    if (session.state !== SessionState.CLOSED || !session.closedAt) return;
    await this.messages.expireSession(session.customerId, session.sessionId, expiresAt(session.closedAt, this.retention.conversationSeconds));
  }

  private now(): string {
    return isoMicros(this.clock.now());
  }

  async getActive(customerId: string): Promise<Session | undefined> {
    const pointerItem = await this.kit.get({ key: activePointerKey(customerId), consistentRead: true });
    if (!pointerItem) return undefined;
    const session = await this.get(customerId, activePointerFromItem(pointerItem).sessionId);
    if (!session || !this.crmSync) return session;
    const crm = await this.crmSync.get(session.sessionId);
    return crm ? { ...session, crm: { status: crm.status, contactId: crm.contactId, dealId: crm.dealId } } : session;
  }

  async get(customerId: string, sessionId: string): Promise<Session | undefined> {
    const item = await this.kit.get({ key: sessionKey(customerId, sessionId), consistentRead: true });
    return item && !isExpired(item[TTL], this.clock.now()) ? sessionFromItem(item) : undefined;
  }

  async put(session: Session): Promise<void> {
    await this.transactWithCrm([session], () => [
      { put: { item: this.itemOf(session) } },
      { put: { item: activePointerToItem(session.customerId, session.sessionId, this.now(), session.state) } },
    ]);
  }

  async transitionState(session: Session, expectedState: SessionState, newState: SessionState, options: TransitionOptions = {}): Promise<Session> {
    assertLegalTransition(expectedState, newState);
    const now = this.now();
    const names: Record<string, string> = { '#pk': KEY_NAMES['#pk'], '#state': S.state, '#gsi1pk': GSI1PK, '#gsi1sk': GSI1SK, '#updated': S.updatedAt };
    // A hand back to the agent is activity: the idle timeout counts from it, not from the last turn before the handoff.
    const indexKey = sessionIndexKey({ ...session, state: newState, updatedAt: now }, this.keyLayout.writesShards);
    const values: Record<string, unknown> = { ':expected': expectedState, ':new': newState, ':gsi1pk': indexKey[GSI1PK], ':gsi1sk': indexKey[GSI1SK], ':now': now };
    const sets = ['#state = :new', '#gsi1pk = :gsi1pk', '#gsi1sk = :gsi1sk', '#updated = :now'];
    const removes: string[] = [];
    const conditions = [ITEM_EXISTS, '#state = :expected'];
    const activityIndexedAt = activityIndexedAtOf({ state: newState, createdAt: session.createdAt }, indexKey[GSI1SK]);
    let updated: Session = { ...session, state: newState, updatedAt: now, activityIndexedAt };

    if (newState === SessionState.CLOSED) {
      names['#closed'] = S.closedAt;
      names['#ttl'] = TTL;
      values[':ttl'] = expiresAt(now, this.retention.conversationSeconds);
      sets.push('#closed = :now', '#ttl = :ttl');
      updated = { ...updated, closedAt: now };
    }
    for (const [field, value] of Object.entries(options.changes ?? {}) as [keyof SessionChanges, string | null | undefined][]) {
      if (value === undefined) continue;
      const placeholder = `#${field}`;
      names[placeholder] = CHANGE_ATTRIBUTES[field];
      if (value === null) {
        removes.push(placeholder);
        updated = { ...updated, [field]: undefined };
      } else {
        const stored = field === 'handoffRequestedAt' ? isoMicros(value) : value;
        values[`:${field}`] = stored;
        sets.push(`${placeholder} = :${field}`);
        updated = { ...updated, [field]: stored };
      }
    }
    if (options.expectedAssignedTo !== undefined) {
      const owner = ownerCondition(options.expectedAssignedTo);
      Object.assign(names, owner.names);
      Object.assign(values, owner.values);
      conditions.push(owner.condition);
    }
    if (options.requireNoLiveHumanSendLockAt !== undefined) {
      names['#lock'] = S.humanSendLock;
      values[':lockAt'] = isoMicros(options.requireNoLiveHumanSendLockAt);
      conditions.push('(attribute_not_exists(#lock) OR #lock.expires_at <= :lockAt)');
    }

    const { idleSince } = options;
    if (idleSince !== undefined) {
      values[':idleSince'] = isoMicros(idleSince);
      conditions.push('#updated <= :idleSince');
    }

    const update = {
      key: sessionKey(session.customerId, session.sessionId),
      update: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
      condition: conditions.join(' AND '),
      names,
      values,
    };
    const report = this.handoffReportActions(expectedState, updated);
    if (!this.crmSync && idleSince === undefined) {
      const stored = sessionFromItem((await this.kit.update({ ...update, returnValues: 'ALL_NEW' }))!);
      await this.syncPointerState(stored);
      await Promise.all([this.expireHistory(stored), this.inboxVersion.raise(), ...report.map((action) => this.recordApart(action))]);
      return stored;
    }

    // The projection and the idle check are derived from the caller's snapshot, so the snapshot must be what is stored.
    names['#snapshot'] = S.updatedAt;
    values[':snapshot'] = isoMicros(session.updatedAt);
    update.condition = `${update.condition} AND #snapshot = :snapshot`;
    await this.transactWithCrm([updated], () => [{ update }, ...(idleSince === undefined ? [] : [quietSinceCheck(session.customerId, idleSince)]), ...report]);
    await this.syncPointerState(updated);
    await Promise.all([this.expireHistory(updated), this.inboxVersion.raise()]);
    return updated;
  }

  /**
   * A report write the session's own update could not carry (it returns the stored session, which a
   * transaction cannot), alongside the pointer's and the inbox's: a lost one leaves one handoff's
   * figures behind, never the transition undone or failed.
   */
  private async recordApart(action: TransactAction): Promise<void> {
    if ('update' in action) await this.kit.update(action.update).catch(() => undefined);
  }

  /**
   * Copies the new state onto the ACTIVE pointer when it points at this session. A separate write:
   * a transition must also succeed for a session that is no longer the active one. If it is lost
   * (a crash in between), the hint is stale only until the next session write, and both readers
   * recover: the webhook falls back to reading the session, the orchestrator re-checks it.
   */
  private async syncPointerState(session: Session): Promise<void> {
    try {
      await this.kit.update({
        key: activePointerKey(session.customerId),
        update: 'SET #state = :state',
        condition: '#sessionId = :sessionId',
        names: { '#state': ActivePointerAttribute.sessionState, '#sessionId': ActivePointerAttribute.sessionId },
        values: { ':state': session.state, ':sessionId': session.sessionId },
      });
    } catch (error) {
      if (!(error instanceof ConditionFailedError)) throw error;
    }
  }

  /** The put of `session` in a transaction of several entities: exclusive without `expectedState`, else conditioned on the stored state. */
  putAction(session: Session, expectedState: SessionState | undefined): TransactAction {
    return {
      put:
        expectedState === undefined
          ? { item: this.itemOf(session), ...IF_ABSENT }
          : { item: this.itemOf(session), condition: '#state = :expected', names: { '#state': S.state }, values: { ':expected': expectedState } },
    };
  }

  /**
   * The ACTIVE pointer naming `session` (and its state), in a transaction of several entities: only
   * while the pointer names `expectedActiveSessionId`, or — when that is `undefined` — while there is
   * no pointer or it names this session already.
   */
  pointerAction(session: Session, expectedActiveSessionId: string | undefined): TransactAction {
    const item = activePointerToItem(session.customerId, session.sessionId, this.now(), session.state);
    return {
      put:
        expectedActiveSessionId === undefined
          ? { item, condition: 'attribute_not_exists(#pk) OR #sessionId = :sessionId', names: { '#pk': KEY_NAMES['#pk'], '#sessionId': S.sessionId }, values: { ':sessionId': session.sessionId } }
          : { item, condition: '#sessionId = :expectedActive', names: { '#sessionId': S.sessionId }, values: { ':expectedActive': expectedActiveSessionId } },
    };
  }

  /**
   * Runs the transaction with each session's CRM intent appended. Only a lost compare-and-set on
   * the projection (a failure confined to the appended actions) is retried, with a fresh intent;
   * a failed session condition is thrown to the caller at once.
   */
  async transactWithCrm(sessions: readonly Session[], actions: () => TransactAction[]): Promise<void> {
    if (!this.crmSync) {
      await this.kit.transact(actions());
      return;
    }
    for (let attempt = 1; attempt <= CRM_SYNC_MAX_ATTEMPTS; attempt++) {
      const base = actions();
      const intents = (await Promise.all(sessions.map((session) => this.crmSync!.prepare(session)))).flatMap((intent) => (intent ? this.crmSync!.intentActions(intent) : []));
      try {
        await this.kit.transact([...base, ...intents]);
        return;
      } catch (error) {
        const onlyCrmLost = error instanceof ConditionFailedError && error.reasons.length > 0 && error.reasons.every((reason) => reason.index >= base.length);
        if (!onlyCrmLost) throw error;
      }
    }
    throw new CrmSyncConcurrentUpdateError(sessions[0].sessionId);
  }

  /** Oldest first (see {@link sessionIndexKey}), over the seed partition and/or every write shard of the state (see key-layout.ts). */
  async listByState(state: SessionState, page?: PageRequest, options: { readonly assignedTo?: string; readonly search?: InboxSearch } = {}): Promise<Page<Session>> {
    const partitions = await this.keyLayout.partitionsToRead(sessionStatePartition(state), (shard) => shardedSessionStatePartition(state, shard));
    const where = inboxFilter(options);
    return toPage(await queryIndexPartitionsPage(this.kit, { partitions, entityType: EntityType.session, where }, page), sessionFromItem);
  }

  async listIdle(state: SessionState, idleSince: string, page?: PageRequest): Promise<Page<Session>> {
    if (!isAgentOwned(state)) throw new RangeError(`Only the agent's states (${AGENT_OWNED_STATES.join(', ')}) are listed by last activity, not ${state}`);
    const partitions = await this.keyLayout.partitionsToRead(sessionStatePartition(state), (shard) => shardedSessionStatePartition(state, shard));
    return toPage(await queryIndexPartitionsPage(this.kit, { partitions, entityType: EntityType.session, sortKeyAtMost: idleSessionsUntil(idleSince) }, page), sessionFromItem);
  }

  acquireHumanSendLock(session: Session, lockId: string, now: string, expiresAt: string): Promise<boolean> {
    return conditionally(() => this.kit.update(humanSendLockAcquisition(session, { lockId, acquiredAt: now, expiresAt })));
  }

  /** With `repliedAt`, one transaction with the handoff report's first reply: the same one request as the release alone. */
  releaseHumanSendLock(session: Session, lockId: string, repliedAt?: string): Promise<boolean> {
    const release = humanSendLockRelease(session, lockId);
    const firstReply = repliedAt === undefined ? undefined : this.handoffReport.stepUpdate(session, { step: 'firstReply', at: repliedAt });
    return conditionally(() => (firstReply === undefined ? this.kit.update(release) : this.kit.transact([{ update: release }, { update: firstReply }])));
  }

  markSeen(session: Session, mark: SeenMark): Promise<boolean> {
    return conditionally(() => this.kit.update(seenMarkUpdate(session, mark)));
  }

  markHandoffNotified(session: Session, notifiedAt: string): Promise<boolean> {
    const update = handoffNotifiedUpdate(session, notifiedAt);
    return update === undefined ? Promise.resolve(false) : conditionally(() => this.kit.update(update));
  }

  markHandoffRenotified(session: Session, notifiedAt: string, options: { readonly expectedCount?: number } = {}): Promise<boolean> {
    return conditionally(() => this.kit.update(handoffRenotifiedUpdate(session, notifiedAt, options)));
  }

  markHandoffCustomerRenotified(session: Session, notifiedAt: string, options: { readonly oncePerHandoff?: boolean } = {}): Promise<boolean> {
    return conditionally(() => this.kit.update(handoffCustomerRenotifiedUpdate(session, notifiedAt, options)));
  }

  claimReengagement(session: Session, reengagedAt: string): Promise<boolean> {
    return conditionally(() => this.kit.update(reengagementClaim(session, reengagedAt)));
  }
}
