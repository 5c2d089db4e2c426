import type { CompletedInbound, LatestInbound } from '../../domain/inbound-receipt';
import { pendingSendMessage, type Message } from '../../domain/message';
import { MESSAGING_CONSENT_PURPOSE, messagingWithdrawn } from '../../domain/privacy';
import { assertLegalTransition } from '../../domain/session';
import { isoMicros } from '../../domain/timestamps';
import { ConditionFailedError, type PendingWork, type SendGuard, type TurnCompletion, type TurnLedger, type TurnResult, type TurnStart } from '../../ports/repositories';
import type { Clock } from '../../ports/clock';
import { DynamoInboxVersion } from './inbox-version';
import type { DynamoKit, Item, TransactAction } from './dynamo-kit';
import { consentStateFromItem } from './codecs/admin-codec';
import { latestInboundFromItem } from './codecs/inbound-codec';
import { messageFromItem } from './codecs/message-codec';
import { activePointerFromItem, sessionFromItem } from './codecs/session-codec';
import { completedUpdate, deadLetteredUpdate, failureNoticeClaim, latestGuardAction, pendingFromReceipts, pendingReceiptKeys } from './inbound-receipt-repository';
import { activePointerKey, consentStateKey, latestInboundKey, messageKey, messageKeyFromRef, PK, SK, sessionKey, type TableKey } from './keys';
import { DynamoMessageRepository } from './message-repository';
import { deliveryUpdate, quarantineUpdate } from './message-updates';
import { PendingList } from './pending-list';
import { DynamoSessionRepository } from './session-repository';

/** The repositories whose items a turn writes together: each builds its own items' writes, the ledger joins them. */
export interface TurnLedgerEntities {
  readonly sessions: DynamoSessionRepository;
  readonly messages: DynamoMessageRepository;
}

/**
 * A turn's reads and transactions across the customer's entities (docs/DESIGN.md#a-normal-turn-step-by-step).
 * Each read is one consistent BatchGetItem: the items live in a few partitions of the customer
 * (inbound, session, the customer's own), and none of a read's keys depends on another's answer.
 * Each write is one transaction (per 49 messages when it settles them) built from the entities'
 * own writes: the receipts and the marker (inbound-receipt-repository.ts, pending-list.ts), the
 * session and its pointer (session-repository.ts), the reply (message-repository.ts).
 */
export class DynamoTurnLedger implements TurnLedger {
  private readonly pendingList: PendingList;

  /** `entities` default to the repositories' own defaults (the seed key layout, no CRM projection). */
  constructor(
    private readonly kit: DynamoKit,
    private readonly clock: Clock,
    private readonly entities: TurnLedgerEntities = { sessions: new DynamoSessionRepository(kit, clock), messages: new DynamoMessageRepository(kit, clock) },
  ) {
    this.pendingList = new PendingList(kit, clock);
  }

  async readMarker(customerId: string): Promise<TurnStart> {
    const found = await this.read([latestInboundKey(customerId), activePointerKey(customerId)]);
    const marker = found(latestInboundKey(customerId));
    const pointerItem = found(activePointerKey(customerId));
    const pointer = pointerItem && activePointerFromItem(pointerItem);
    return {
      ...(marker ? { latest: latestInboundFromItem(marker) } : {}),
      ...(pointer ? { activeSessionId: pointer.sessionId, ...(pointer.sessionState ? { activeSessionState: pointer.sessionState } : {}) } : {}),
    };
  }

  async readPending(latest: LatestInbound, sessionId: string | undefined): Promise<PendingWork> {
    const { customerId, outbox } = latest;
    const session = sessionId === undefined ? undefined : sessionKey(customerId, sessionId);
    const reply = outbox && messageKeyFromRef(outbox.ref);
    const consent = messagingConsentKey(customerId);
    const receipts = pendingReceiptKeys(latest);
    const items = await this.kit.batchGet([...receipts, ...(session ? [session] : []), ...(reply ? [reply] : []), consent], { consistentRead: true });
    const found = (key: TableKey | undefined) => key && items.find(matches(key));
    const sessionItem = found(session);
    const replyItem = found(reply);
    return {
      pending: pendingFromReceipts(latest, items),
      ...(sessionItem ? { session: sessionFromItem(sessionItem) } : {}),
      ...(replyItem ? { outboxReply: messageFromItem(replyItem) } : {}),
      optedOut: optedOut(found(consent)),
    };
  }

  async persistResult(result: TurnResult): Promise<boolean> {
    const { sessions, messages } = this.entities;
    const { session, expectedState, reply } = result;
    // The state machine first: an illegal result is a bug, not a lost race.
    if (expectedState !== undefined && expectedState !== session.state) assertLegalTransition(expectedState, session.state);
    const outbound = reply && pendingSendMessage(session, reply);
    const actions = (): TransactAction[] => [
      sessions.putAction(session, expectedState),
      sessions.pointerAction(session, result.expectedActiveSessionId),
      ...(outbound ? [messages.putAction(outbound)] : []),
      latestGuardAction(session.customerId, result.expectedLatestMessageId, outbound),
      // A handoff is recorded for the admins' report in the turn's own transaction.
      ...sessions.handoffReportActions(expectedState, session),
    ];
    try {
      await sessions.transactWithCrm([session], actions);
      // Every turn changes its conversation's inbox row (the customer's last message at least).
      await Promise.all([sessions.expireHistory(session), new DynamoInboxVersion(this.kit, this.clock).raiseAfterTurn(session.customerId, expectedState, session.state)]);
      return true;
    } catch (error) {
      if (error instanceof ConditionFailedError) return false;
      throw error;
    }
  }

  async readSendGuard(customerId: string, sessionId: string): Promise<SendGuard> {
    const consent = messagingConsentKey(customerId);
    const found = await this.read([latestInboundKey(customerId), sessionKey(customerId, sessionId), consent]);
    const marker = found(latestInboundKey(customerId));
    const session = found(sessionKey(customerId, sessionId));
    return {
      ...(marker ? { latest: latestInboundFromItem(marker) } : {}),
      ...(session ? { session: sessionFromItem(session) } : {}),
      optedOut: optedOut(found(consent)),
    };
  }

  complete({ customerId, answered, latest, outbox, delivery }: TurnCompletion): Promise<void> {
    const now = this.now();
    return this.pendingList.settle(customerId, answered, (turn) => [completedUpdate(turn, now)], {
      latest,
      outboxSortKey: outbox?.sortKey,
      alongside: outbox && delivery ? [deliveryUpdate(outbox, delivery)] : [],
    });
  }

  park(turns: readonly CompletedInbound[]): Promise<void> {
    if (turns.length === 0) return Promise.resolve();
    const now = this.now();
    // Parked messages keep their place in the history, so the watermark moves past them as well.
    // Their history entries are hidden from the agent in the same transaction: a message must never
    // be hidden while still pending (a later turn would complete it unseen), nor parked but shown.
    // A message parked before its turn appended it has no entry yet: the entry's condition then
    // fails and its update is left out.
    return this.pendingList.settle(turns[0].customerId, turns, (turn) => [
      deadLetteredUpdate(turn, now),
      ...(turn.historyTimestamp ? [quarantineUpdate(messageKey(turn.customerId, turn.historyTimestamp, turn.messageId), now)] : []),
    ]);
  }

  async claimFailureNotice(newest: CompletedInbound, notice: Message): Promise<boolean> {
    const { messages } = this.entities;
    try {
      await this.kit.transact([{ update: failureNoticeClaim(newest, notice.messageId) }, messages.putAction(notice)]);
      return true;
    } catch (error) {
      if (error instanceof ConditionFailedError) return false;
      throw error;
    }
  }

  private now(): string {
    return isoMicros(this.clock.now());
  }

  private async read(keys: TableKey[]): Promise<(key: TableKey) => Item | undefined> {
    const items = await this.kit.batchGet(keys, { consistentRead: true });
    return (key) => items.find(matches(key));
  }
}

const messagingConsentKey = (customerId: string) => consentStateKey(customerId, MESSAGING_CONSENT_PURPOSE);

const optedOut = (consentState: Item | undefined) => messagingWithdrawn(consentState && consentStateFromItem(consentState));

function matches(key: TableKey): (item: Item) => boolean {
  return (item) => item[PK] === key[PK] && item[SK] === key[SK];
}
