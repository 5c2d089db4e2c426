import type { InboxSearch, SeenMark } from '../../domain/inbox-summary';
import { type HumanSendLock, type Session, SessionState } from '../../domain/session';
import { isoMicros } from '../../domain/timestamps';
import { humanSendLockToMap, SessionAttribute as S } from './codecs/session-codec';
import type { UpdateRequest } from './dynamo-kit';
import { sessionKey } from './keys';
import { ITEM_EXISTS, type ItemFilter, KEY_NAMES } from './repository-support';

// The session's targeted updates: one marker, or the human send lock, set under a condition on what
// the caller read; never the whole item, so concurrent writers of other attributes keep theirs.

type SessionUpdate = Omit<UpdateRequest, 'returnValues'>;

/** The human send lock taken while the conversation is people's and owned as read, free or this lock's own, or expired. */
export function humanSendLockAcquisition(session: Session, lock: HumanSendLock): SessionUpdate {
  const owner = ownerCondition(session.assignedTo ?? null);
  return {
    key: sessionKey(session.customerId, session.sessionId),
    update: 'SET #lock = :lock',
    condition: `${ITEM_EXISTS} AND #state IN (:awaiting, :active) AND ${owner.condition} AND (attribute_not_exists(#lock) OR #lock.lock_id = :lockId OR #lock.expires_at <= :now)`,
    names: { '#pk': KEY_NAMES['#pk'], '#state': S.state, '#lock': S.humanSendLock, ...owner.names },
    values: {
      ':lock': humanSendLockToMap(lock),
      ':lockId': lock.lockId,
      ':now': isoMicros(lock.acquiredAt),
      ':awaiting': SessionState.AWAITING_HUMAN,
      ':active': SessionState.HUMAN_ACTIVE,
      ...owner.values,
    },
  };
}

/** The lock released by its holder only. */
export function humanSendLockRelease(session: Session, lockId: string): SessionUpdate {
  return {
    key: sessionKey(session.customerId, session.sessionId),
    update: 'REMOVE #lock',
    condition: '#lock.lock_id = :lockId',
    names: { '#lock': S.humanSendLock },
    values: { ':lockId': lockId },
  };
}

/** An operator's open of the conversation: the first mark creates the map; any later one writes its own entry, so two operators opening at once both keep theirs. */
export function seenMarkUpdate(session: Session, mark: SeenMark): SessionUpdate {
  const key = sessionKey(session.customerId, session.sessionId);
  const at = isoMicros(mark.at);
  if (session.seenBy === undefined) {
    return { key, update: 'SET #seen = :marks', condition: `${ITEM_EXISTS} AND attribute_not_exists(#seen)`, names: { '#pk': KEY_NAMES['#pk'], '#seen': S.seenBy }, values: { ':marks': { [mark.operatorPhone]: at } } };
  }
  const names: Record<string, string> = { '#seen': S.seenBy, '#operator': mark.operatorPhone };
  if (mark.dropped !== undefined) names['#dropped'] = mark.dropped;
  const update = `SET #seen.#operator = :at${mark.dropped === undefined ? '' : ' REMOVE #seen.#dropped'}`;
  return { key, update, condition: 'attribute_exists(#seen)', names, values: { ':at': at } };
}

/** People were told of the handoff the session waits in (`undefined`: it records none). */
export function handoffNotifiedUpdate(session: Session, notifiedAt: string): SessionUpdate | undefined {
  const requestedAt = session.handoffRequestedAt;
  if (requestedAt === undefined) return undefined;
  return {
    key: sessionKey(session.customerId, session.sessionId),
    update: 'SET #at = :at',
    condition: `${ITEM_EXISTS} AND #state = :awaiting AND #requested = :requested AND (attribute_not_exists(#at) OR #at < #requested)`,
    names: { '#pk': KEY_NAMES['#pk'], '#state': S.state, '#at': S.handoffNotifiedAt, '#requested': S.handoffRequestedAt },
    values: { ':at': isoMicros(notifiedAt), ':awaiting': SessionState.AWAITING_HUMAN, ':requested': isoMicros(requestedAt) },
  };
}

/** People were reminded, counted; with `expectedCount`, only the reminder that count claims. */
export function handoffRenotifiedUpdate(session: Session, notifiedAt: string, options: { readonly expectedCount?: number }): SessionUpdate {
  const claim = options.expectedCount === undefined ? '' : options.expectedCount === 0 ? ' AND (attribute_not_exists(#count) OR #count = :zero)' : ' AND #count = :expected';
  return {
    key: sessionKey(session.customerId, session.sessionId),
    update: 'SET #at = :at, #count = if_not_exists(#count, :zero) + :one',
    condition: `${ITEM_EXISTS} AND #state = :state${claim}`,
    names: { '#pk': KEY_NAMES['#pk'], '#state': S.state, '#at': S.handoffRenotifiedAt, '#count': S.handoffRenotifyCount },
    values: {
      ':at': isoMicros(notifiedAt),
      ':zero': 0,
      ':one': 1,
      ':state': session.state,
      ...(options.expectedCount ? { ':expected': options.expectedCount } : {}),
    },
  };
}

/** The customer was told they still wait; with `oncePerHandoff`, at most once per handoff. */
export function handoffCustomerRenotifiedUpdate(session: Session, notifiedAt: string, options: { readonly oncePerHandoff?: boolean }): SessionUpdate {
  const once = options.oncePerHandoff ? ' AND attribute_exists(#requested) AND (attribute_not_exists(#at) OR #at < #requested)' : '';
  return {
    key: sessionKey(session.customerId, session.sessionId),
    update: 'SET #at = :at',
    condition: `${ITEM_EXISTS} AND #state = :state${once}`,
    names: { '#pk': KEY_NAMES['#pk'], '#state': S.state, '#at': S.handoffCustomerRenotifiedAt, ...(options.oncePerHandoff ? { '#requested': S.handoffRequestedAt } : {}) },
    values: { ':at': isoMicros(notifiedAt), ':state': session.state },
  };
}

/** The one re-engagement of a quiet conversation, while it is as read. */
export function reengagementClaim(session: Session, reengagedAt: string): SessionUpdate {
  return {
    key: sessionKey(session.customerId, session.sessionId),
    update: 'SET #at = :at',
    condition: `${ITEM_EXISTS} AND #state = :state AND #updated = :updated AND attribute_not_exists(#at)`,
    names: { '#pk': KEY_NAMES['#pk'], '#state': S.state, '#updated': S.updatedAt, '#at': S.reengagedAt },
    values: { ':at': isoMicros(reengagedAt), ':state': session.state, ':updated': isoMicros(session.updatedAt) },
  };
}

/** Which of a state's sessions an inbox list keeps: an operator's own, and those a search finds. */
export function inboxFilter(options: { readonly assignedTo?: string; readonly search?: InboxSearch }): ItemFilter | undefined {
  return allOf([options.assignedTo === undefined ? undefined : ownerCondition(options.assignedTo), options.search === undefined ? undefined : searchCondition(options.search)]);
}

/**
 * A search is a filter on the state's index page: it reads what the page reads and keeps what
 * matches (a phone's first digits; a part of the names, compared as `searchableName` writes them).
 */
function searchCondition(search: InboxSearch): ItemFilter {
  return 'phonePrefix' in search
    ? { condition: 'begins_with(#phone, :search)', names: { '#phone': S.customerId }, values: { ':search': search.phonePrefix } }
    : { condition: 'contains(#names, :search)', names: { '#names': S.searchableNames }, values: { ':search': search.name } };
}

function allOf(filters: readonly (ItemFilter | undefined)[]): ItemFilter | undefined {
  const present = filters.filter((filter): filter is ItemFilter => filter !== undefined);
  // DynamoDB refuses redundant parentheses: a lone filter goes as it is.
  if (present.length <= 1) return present[0];
  return {
    condition: present.map((filter) => `(${filter.condition})`).join(' AND '),
    names: Object.assign({}, ...present.map((filter) => filter.names)),
    values: Object.assign({}, ...present.map((filter) => filter.values)),
  };
}

/** The session is owned by `owner` (`null`: by nobody): the seed's `expected_assigned_to`. */
export function ownerCondition(owner: string | null): ItemFilter {
  return owner === null
    ? { condition: 'attribute_not_exists(#owner)', names: { '#owner': S.assignedTo }, values: {} }
    : { condition: '#owner = :owner', names: { '#owner': S.assignedTo }, values: { ':owner': owner } };
}
