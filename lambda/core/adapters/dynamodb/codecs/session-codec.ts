import type { CustomerIdKind } from '../../../domain/inbound-turn';
import { type CustomerMessageSummary, searchableNamesOf } from '../../../domain/inbox-summary';
import { customerDisplayName } from '../../../domain/operator';
import { type HumanSendLock, isAgentOwned, type Session, type SessionState, SESSION_STATES } from '../../../domain/session';
import { isoMicros, type IsoTimestamp } from '../../../domain/timestamps';
import type { Item } from '../dynamo-kit';
import { activePointerKey, ENTITY_TYPE, EntityType, GSI1SK, sessionIndexKey, sessionKey } from '../keys';
import { ItemReader, optionalIso, withUnknownAttributes } from './item-reader';

/** Attribute names the session repository's expressions refer to. */
export const SessionAttribute = {
  sessionId: 'session_id',
  state: 'state',
  assignedTo: 'assigned_to',
  currentAgent: 'current_agent',
  humanSendLock: 'human_send_lock',
  handoffRequestedAt: 'handoff_requested_at',
  handoffNotifiedAt: 'handoff_notified_at',
  handoffRenotifiedAt: 'handoff_renotified_at',
  handoffRenotifyCount: 'handoff_renotify_count',
  handoffCustomerRenotifiedAt: 'handoff_customer_renotified_at',
  closedAt: 'closed_at',
  reengagedAt: 'reengaged_at',
  unsupportedNoticeAt: 'unsupported_notice_at',
  handoffReason: 'handoff_reason',
  profileName: 'profile_name',
  lastCustomerPreview: 'last_customer_preview',
  lastCustomerMessageAt: 'last_customer_message_at',
  /** When each operator last opened the conversation: a map by phone. */
  seenBy: 'seen_by',
  /** The names an inbox search finds the session by (see `searchableNamesOf`); written, never read back. */
  searchableNames: 'searchable_names',
  customerId: 'phone_number',
  updatedAt: 'updated_at',
  /** The agent's summary of the older messages and where it ends: a map. */
  memory: 'memory',
} as const;

const CUSTOMER_ID_KINDS: readonly CustomerIdKind[] = ['phone', 'user_id'];

/** `shardedIndexKey` writes the inbox key in the sharded layout (see key-layout.ts). */
export function sessionToItem(session: Session, shardedIndexKey = false): Item {
  return withUnknownAttributes(session, {
    ...sessionKey(session.customerId, session.sessionId),
    ...sessionIndexKey(session, shardedIndexKey),
    [ENTITY_TYPE]: EntityType.session,
    session_id: session.sessionId,
    phone_number: session.customerId,
    customer_id_kind: session.customerIdKind,
    whatsapp_instance: session.businessPhoneNumberId,
    state: session.state,
    // current_agent, segment, intent and cadastral_data come from the seed system's rows and are
    // written back as read (docs/DESIGN.md#attributes-kept-for-the-seed-systems-data).
    current_agent: session.currentAgent,
    segment: session.segment,
    intent: session.intent,
    qualification_data: session.qualificationData,
    cadastral_data: session.cadastralData,
    assigned_to: session.assignedTo,
    human_send_lock: session.humanSendLock && humanSendLockToMap(session.humanSendLock),
    handoff_requested_at: optionalIso(session.handoffRequestedAt),
    handoff_notified_at: optionalIso(session.handoffNotifiedAt),
    handoff_renotified_at: optionalIso(session.handoffRenotifiedAt),
    handoff_renotify_count: session.handoffRenotifyCount,
    handoff_customer_renotified_at: optionalIso(session.handoffCustomerRenotifiedAt),
    handoff_reason: session.handoffReason,
    profile_name: session.profileName,
    last_customer_preview: session.lastCustomerMessage?.preview,
    last_customer_message_at: optionalIso(session.lastCustomerMessage?.at),
    seen_by: session.seenBy && Object.fromEntries(Object.entries(session.seenBy).map(([phone, at]) => [phone, isoMicros(at)])),
    searchable_names: searchableNamesOf(session, customerDisplayName(session)),
    closed_at: optionalIso(session.closedAt),
    reengaged_at: optionalIso(session.reengagedAt),
    unsupported_notice_at: optionalIso(session.unsupportedNoticeAt),
    previous_session_id: session.previousSessionId,
    memory: session.memory && { summary: session.memory.summary, through: isoMicros(session.memory.through), folded_at: isoMicros(session.memory.foldedAt) },
    created_at: isoMicros(session.createdAt),
    updated_at: isoMicros(session.updatedAt),
  });
}

/** Where the idle index holds an agent-owned session, as {@link Session.activityIndexedAt} keeps it: only when that is not its creation. */
export function activityIndexedAtOf(session: Pick<Session, 'state' | 'createdAt'>, indexSortKey: unknown): string | undefined {
  return isAgentOwned(session.state) && typeof indexSortKey === 'string' && indexSortKey !== isoMicros(session.createdAt) ? indexSortKey : undefined;
}

export function humanSendLockToMap(lock: HumanSendLock): Item {
  return { lock_id: lock.lockId, acquired_at: isoMicros(lock.acquiredAt), expires_at: isoMicros(lock.expiresAt) };
}

export function sessionFromItem(item: Item): Session {
  const read = new ItemReader(item, EntityType.session);
  const lock = read.optionalMap(SessionAttribute.humanSendLock);
  const state = read.oneOf('state', SESSION_STATES);
  const createdAt = read.timestamp('created_at');
  const activityIndexedAt = activityIndexedAtOf({ state, createdAt }, item[GSI1SK]);
  // Derived from the names at every write: taken here so that it is never carried back as an unknown attribute.
  read.optionalString(SessionAttribute.searchableNames);
  return {
    sessionId: read.string('session_id'),
    customerId: read.string('phone_number'),
    customerIdKind: read.optionalOneOf('customer_id_kind', CUSTOMER_ID_KINDS),
    businessPhoneNumberId: read.optionalString('whatsapp_instance'),
    state,
    currentAgent: read.optionalString('current_agent'),
    segment: read.optionalString('segment'),
    intent: read.optionalString('intent'),
    qualificationData: read.map('qualification_data'),
    cadastralData: read.map('cadastral_data'),
    assignedTo: read.optionalString('assigned_to'),
    humanSendLock: lock && humanSendLockFromMap(lock),
    handoffRequestedAt: read.optionalTimestamp('handoff_requested_at'),
    handoffNotifiedAt: read.optionalTimestamp('handoff_notified_at'),
    handoffRenotifiedAt: read.optionalTimestamp('handoff_renotified_at'),
    handoffRenotifyCount: read.number('handoff_renotify_count', 0),
    handoffCustomerRenotifiedAt: read.optionalTimestamp('handoff_customer_renotified_at'),
    handoffReason: read.optionalString('handoff_reason'),
    profileName: read.optionalString('profile_name'),
    lastCustomerMessage: lastCustomerMessageOf(read),
    seenBy: seenByOf(read),
    closedAt: read.optionalTimestamp('closed_at'),
    reengagedAt: read.optionalTimestamp('reengaged_at'),
    unsupportedNoticeAt: read.optionalTimestamp(SessionAttribute.unsupportedNoticeAt),
    previousSessionId: read.optionalString('previous_session_id'),
    ...memoryOf(read),
    ...(activityIndexedAt === undefined ? {} : { activityIndexedAt }),
    createdAt,
    updatedAt: read.timestamp('updated_at'),
    ...read.unknownAttributes(),
  };
}

function memoryOf(read: ItemReader): Pick<Session, 'memory'> {
  const map = read.optionalMap(SessionAttribute.memory);
  if (map === undefined) return {};
  const memory = new ItemReader(map, EntityType.session);
  return { memory: { summary: memory.string('summary'), through: memory.timestamp('through'), foldedAt: memory.timestamp('folded_at') } };
}

function lastCustomerMessageOf(read: ItemReader): CustomerMessageSummary | undefined {
  const preview = read.optionalString(SessionAttribute.lastCustomerPreview);
  const at = read.optionalTimestamp(SessionAttribute.lastCustomerMessageAt);
  return preview === undefined || at === undefined ? undefined : { preview, at };
}

function seenByOf(read: ItemReader): Record<string, IsoTimestamp> | undefined {
  const map = read.optionalMap(SessionAttribute.seenBy);
  if (map === undefined) return undefined;
  const marks = new ItemReader(map, EntityType.session);
  return Object.fromEntries(Object.keys(map).map((phone) => [phone, marks.timestamp(phone)]));
}

function humanSendLockFromMap(map: Record<string, unknown>): HumanSendLock {
  const read = new ItemReader(map, EntityType.session);
  return { lockId: read.string('lock_id'), acquiredAt: read.timestamp('acquired_at'), expiresAt: read.timestamp('expires_at') };
}

/**
 * The ACTIVE pointer: which session of a customer is the current one, and that session's state as
 * last written with it. The state copy is a routing hint for the webhook (one conditional check in
 * the registering transaction instead of two reads); the session item stays the truth, and the
 * orchestrator re-checks it before answering.
 */
export interface ActivePointer {
  readonly sessionId: string;
  readonly updatedAt: string;
  /** The state hint; absent on a bare pointer switch (or a state this version does not know). */
  readonly sessionState?: SessionState;
}

/** Attribute names of the pointer that other repositories' conditions refer to. */
export const ActivePointerAttribute = {
  sessionId: 'session_id',
  sessionState: 'session_state',
} as const;

/** Without `state` (a bare pointer switch) the webhook falls back to reading the session. */
export function activePointerToItem(customerId: string, sessionId: string, updatedAt: string, state?: SessionState): Item {
  return {
    ...activePointerKey(customerId),
    [ENTITY_TYPE]: EntityType.activePointer,
    [ActivePointerAttribute.sessionId]: sessionId,
    [ActivePointerAttribute.sessionState]: state,
    updated_at: isoMicros(updatedAt),
  };
}

export function activePointerFromItem(item: Item): ActivePointer {
  const read = new ItemReader(item, EntityType.activePointer);
  const state = read.optionalString(ActivePointerAttribute.sessionState);
  const sessionState = SESSION_STATES.find((known) => known === state);
  return { sessionId: read.string(ActivePointerAttribute.sessionId), updatedAt: read.timestamp('updated_at'), ...(sessionState ? { sessionState } : {}) };
}
