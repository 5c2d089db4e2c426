import type { InboundReceipt, LatestInbound } from '../../../domain/inbound-receipt';
import type { CustomerIdKind, InboundTurn } from '../../../domain/inbound-turn';
import { LEGACY_BUFFER_LIFETIME_SECONDS, type LegacyDebounceBuffer, type LegacyPendingReply } from '../../../domain/legacy-debounce';
import { SESSION_STATES } from '../../../domain/session';
import { addMilliseconds, epochSeconds, isoMicros } from '../../../domain/timestamps';
import type { Item } from '../dynamo-kit';
import { legacyBufferKey, ENTITY_TYPE, EntityType, inboundReceiptKey, legacyPendingReplyKey, TTL } from '../keys';
import { ItemReader, optionalIso, withUnknownAttributes } from './item-reader';
import { inboundMediaFromMap, mediaToMap } from './media-codec';

/** Attribute names of the receipt and the latest-inbound marker used in expressions. */
export const InboundAttribute = {
  agentRoutedAt: 'agent_routed_at',
  humanRoutedAt: 'human_routed_at',
  syncClaimedAt: 'sync_claimed_at',
  dispatchedAt: 'dispatched_at',
  completedAt: 'completed_at',
  deadLetteredAt: 'dead_lettered_at',
  failureNoticeId: 'failure_notice_id',
  historyTimestamp: 'history_timestamp',
  phoneNumber: 'phone_number',
  latestMessageId: 'latest_message_id',
  pendingMessageIds: 'pending_message_ids',
  invalidatedAt: 'invalidated_at',
  committedMessageId: 'committed_message_id',
  committedAt: 'committed_at',
  outboxMessageSk: 'outbox_message_sk',
  outboxReplyTo: 'outbox_reply_to',
  historyWatermark: 'history_watermark',
  updatedAt: 'updated_at',
  firstMessageAt: 'first_message_at',
} as const;

const CUSTOMER_ID_KINDS: readonly CustomerIdKind[] = ['phone', 'user_id'];

/** A new receipt: the turn's normalised fields only (never the raw webhook body). */
export function receiptToItem(receipt: InboundReceipt): Item {
  const { turn } = receipt;
  return withUnknownAttributes(receipt, {
    ...inboundReceiptKey(turn.customerId, turn.messageId),
    [ENTITY_TYPE]: EntityType.inboundReceipt,
    phone_number: turn.customerId,
    customer_id_kind: turn.customerIdKind,
    message_id: turn.messageId,
    provider_timestamp: isoMicros(turn.providerTimestamp),
    received_at: isoMicros(turn.receivedAt),
    message_type: turn.messageType,
    text: turn.text,
    media: turn.media && mediaToMap(turn.media),
    quoted_message_id: turn.quotedMessageId,
    choice_id: turn.choiceId,
    edit_of: turn.editOf,
    unsupported: turn.unsupported,
    phone_number_id: turn.businessPhoneNumberId,
    display_phone_number: turn.displayPhoneNumber,
    profile_name: turn.profileName,
    registered_at: isoMicros(receipt.registeredAt),
    [TTL]: receipt.expiresAtEpochSeconds,
    agent_routed_at: optionalIso(receipt.agentRoutedAt),
    human_routed_at: optionalIso(receipt.humanRoutedAt),
    // The seed system's claim; honoured, never set (docs/DESIGN.md#attributes-kept-for-the-seed-systems-data).
    sync_claimed_at: optionalIso(receipt.syncClaimedAt),
    dispatched_at: optionalIso(receipt.dispatchedAt),
    completed_at: optionalIso(receipt.completedAt),
    dead_lettered_at: optionalIso(receipt.deadLetteredAt),
    history_timestamp: optionalIso(receipt.historyTimestamp),
  });
}

export function receiptFromItem(item: Item): InboundReceipt {
  const read = new ItemReader(item, EntityType.inboundReceipt);
  const media = read.optionalMap('media');
  const quotedMessageId = read.optionalString('quoted_message_id');
  const editOf = read.optionalString('edit_of');
  const choiceId = read.optionalString('choice_id');
  const turn: InboundTurn = {
    customerId: read.string('phone_number'),
    customerIdKind: read.optionalOneOf('customer_id_kind', CUSTOMER_ID_KINDS) ?? 'phone',
    messageId: read.string('message_id'),
    providerTimestamp: read.timestamp('provider_timestamp'),
    receivedAt: read.timestamp('received_at'),
    messageType: read.optionalString('message_type') ?? 'text',
    text: read.optionalString('text') ?? '',
    ...(media === undefined ? {} : { media: inboundMediaFromMap(media, EntityType.inboundReceipt) }),
    ...(quotedMessageId === undefined ? {} : { quotedMessageId }),
    ...(editOf === undefined ? {} : { editOf }),
    ...(choiceId === undefined ? {} : { choiceId }),
    ...(read.raw('unsupported') === true ? { unsupported: true } : {}),
    businessPhoneNumberId: read.optionalString('phone_number_id') ?? '',
    displayPhoneNumber: read.optionalString('display_phone_number'),
    profileName: read.optionalString('profile_name'),
  };
  return {
    turn,
    registeredAt: read.timestamp('registered_at'),
    expiresAtEpochSeconds: read.number(TTL),
    agentRoutedAt: read.optionalTimestamp('agent_routed_at'),
    humanRoutedAt: read.optionalTimestamp('human_routed_at'),
    syncClaimedAt: read.optionalTimestamp('sync_claimed_at'),
    dispatchedAt: read.optionalTimestamp('dispatched_at'),
    completedAt: read.optionalTimestamp('completed_at'),
    deadLetteredAt: read.optionalTimestamp('dead_lettered_at'),
    historyTimestamp: read.optionalTimestamp('history_timestamp'),
    ...read.unknownAttributes(),
  };
}

/** The marker is only ever written by targeted updates, so it has no `toItem`. */
export function latestInboundFromItem(item: Item): LatestInbound {
  const read = new ItemReader(item, EntityType.latestInbound);
  const customerId = read.string(InboundAttribute.phoneNumber);
  const outboxSortKey = read.optionalString(InboundAttribute.outboxMessageSk);
  const outboxReplyTo = read.optionalString(InboundAttribute.outboxReplyTo);
  return {
    customerId,
    latestMessageId: read.optionalString(InboundAttribute.latestMessageId),
    pendingMessageIds: read.stringList(InboundAttribute.pendingMessageIds),
    // The seed system's barrier (honoured) and commit marker (read only): docs/DESIGN.md#attributes-kept-for-the-seed-systems-data.
    invalidatedAt: read.optionalTimestamp(InboundAttribute.invalidatedAt),
    committedMessageId: read.optionalString(InboundAttribute.committedMessageId),
    committedAt: read.optionalTimestamp(InboundAttribute.committedAt),
    outbox: outboxSortKey === undefined ? undefined : { ref: { customerId, sortKey: outboxSortKey }, replyToMessageId: outboxReplyTo ?? '' },
    historyWatermark: read.optionalTimestamp(InboundAttribute.historyWatermark),
    updatedAt: read.optionalTimestamp(InboundAttribute.updatedAt),
    ...read.unknownAttributes(),
  };
}

// The seed system's debounce items, drained and never created by the runtime
// (docs/DESIGN.md#attributes-kept-for-the-seed-systems-data); the tests write them as the seed did.
export function legacyBufferToItem(buffer: LegacyDebounceBuffer): Item {
  const expiresAt = addMilliseconds(buffer.firstMessageAt, LEGACY_BUFFER_LIFETIME_SECONDS * 1000);
  return withUnknownAttributes(buffer, {
    ...legacyBufferKey(buffer.customerId),
    [ENTITY_TYPE]: EntityType.legacyDebounceBuffer,
    phone_number: buffer.customerId,
    message_ids: [...buffer.messageIds],
    texts: [...buffer.texts],
    first_message_at: isoMicros(buffer.firstMessageAt),
    last_message_at: isoMicros(buffer.lastMessageAt),
    whatsapp_instance: buffer.businessPhoneNumberId,
    expires_at: expiresAt,
    [TTL]: epochSeconds(expiresAt),
  });
}

export function legacyBufferFromItem(item: Item): LegacyDebounceBuffer {
  const read = new ItemReader(item, EntityType.legacyDebounceBuffer);
  // Derived from first_message_at on every write; reading them keeps them out of the unknown bag.
  read.raw('expires_at');
  read.raw(TTL);
  return {
    customerId: read.string('phone_number'),
    messageIds: read.stringList('message_ids'),
    texts: read.stringList('texts'),
    firstMessageAt: read.timestamp('first_message_at'),
    lastMessageAt: read.timestamp('last_message_at'),
    businessPhoneNumberId: read.optionalString('whatsapp_instance'),
    ...read.unknownAttributes(),
  };
}

export function legacyPendingReplyToItem(reply: LegacyPendingReply): Item {
  return withUnknownAttributes(reply, {
    ...legacyPendingReplyKey(reply.customerId),
    [ENTITY_TYPE]: EntityType.legacyPendingReply,
    phone_number: reply.customerId,
    text: reply.text,
    session_id: reply.sessionId,
    state: reply.state,
    first_message_id: reply.firstMessageId,
    first_message_at: optionalIso(reply.firstMessageAt),
    created_at: isoMicros(reply.createdAt),
  });
}

export function legacyPendingReplyFromItem(item: Item): LegacyPendingReply {
  const read = new ItemReader(item, EntityType.legacyPendingReply);
  return {
    customerId: read.string('phone_number'),
    text: read.string('text'),
    sessionId: read.string('session_id'),
    state: read.oneOf('state', SESSION_STATES),
    firstMessageId: read.optionalString('first_message_id'),
    firstMessageAt: read.optionalTimestamp('first_message_at'),
    createdAt: read.timestamp('created_at'),
    ...read.unknownAttributes(),
  };
}
