import type { DeliveryStatus, LlmUsage, Message, MessageDirection, MessageRole } from '../../../domain/message';
import { RECEIPT_STATUSES } from '../../../domain/delivery-receipt';
import type { MetaPricing } from '../../../domain/meta-fee';
import { parseInteractiveReply } from '../../../domain/interactive-reply';
import { isoMicros } from '../../../domain/timestamps';
import type { Item } from '../dynamo-kit';
import { ENTITY_TYPE, EntityType, llmMessageIndexKey, messageKey, shardedLlmMessageIndexKey } from '../keys';
import { ItemReader, optionalIso, withUnknownAttributes } from './item-reader';
import { mediaToMap, storedMediaFromMap } from './media-codec';

export const MessageAttribute = {
  customerId: 'phone_number',
  llm: 'llm',
  deliveryStatus: 'delivery_status',
  providerMessageId: 'provider_message_id',
  providerMessageIds: 'provider_message_ids',
  sentAt: 'sent_at',
  supersededAt: 'superseded_at',
  quarantinedAt: 'quarantined_at',
  failureNoticeFor: 'failure_notice_for',
  failureReason: 'failure_reason',
  sessionId: 'session_id',
  receiptStatus: 'receipt_status',
  receiptAt: 'receipt_at',
  deliveryFailureCode: 'delivery_failure_code',
  metaPricing: 'meta_pricing',
  unsentAt: 'unsent_at',
  media: 'media',
  quotedMessageId: 'quoted_message_id',
  reactionEmoji: 'reaction_emoji',
  reactionAt: 'reaction_at',
  editedAt: 'edited_at',
  revokedAt: 'revoked_at',
  knowledgeSources: 'knowledge_sources',
  choiceId: 'choice_id',
  interactive: 'interactive',
} as const;

const DIRECTIONS: readonly MessageDirection[] = ['inbound', 'outbound'];
const ROLES: readonly MessageRole[] = ['user', 'assistant', 'operator', 'system', 'business_app'];
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending_send', 'sent', 'superseded', 'failed_permanent', 'maybe_sent'];

/** Agent-written messages are indexed by day for the recent-LLM-messages query. */
export const isLlmMessage = (message: Message) => message.role === 'assistant';

/** `shardedIndexKey` writes the day-index key in the sharded layout (see key-layout.ts). */
export function messageToItem(message: Message, shardedIndexKey = false): Item {
  const indexKey = shardedIndexKey ? shardedLlmMessageIndexKey(message.timestamp, message.messageId, message.customerId) : llmMessageIndexKey(message.timestamp, message.messageId);
  return withUnknownAttributes(message, {
    ...messageKey(message.customerId, message.timestamp, message.messageId),
    ...(isLlmMessage(message) ? indexKey : {}),
    [ENTITY_TYPE]: EntityType.message,
    [MessageAttribute.customerId]: message.customerId,
    session_id: message.sessionId,
    message_id: message.messageId,
    direction: message.direction,
    role: message.role,
    text: message.text,
    timestamp: isoMicros(message.timestamp),
    message_type: message.messageType,
    delivery_status: message.deliveryStatus,
    provider_message_id: message.providerMessageId,
    provider_message_ids: message.providerMessageIds,
    sent_at: optionalIso(message.sentAt),
    unsent_at: optionalIso(message.unsentAt),
    receipt_status: message.receipt?.status,
    receipt_at: optionalIso(message.receipt?.at),
    delivery_failure_code: message.receipt?.failureCode,
    meta_pricing: message.metaPricing && metaPricingToMap(message.metaPricing),
    reply_to_message_id: message.replyToMessageId,
    superseded_at: optionalIso(message.supersededAt),
    quarantined_at: optionalIso(message.quarantinedAt),
    failure_reason: message.failureReason,
    operator_phone: message.operatorPhone,
    template_name: message.template?.name,
    template_language: message.template?.language,
    failure_notice_for: message.failureNoticeFor,
    media: message.media && mediaToMap(message.media),
    quoted_message_id: message.quotedMessageId,
    choice_id: message.choiceId,
    interactive: message.interactive,
    reaction_emoji: message.reaction?.emoji,
    reaction_at: optionalIso(message.reaction?.at),
    edited_at: optionalIso(message.editedAt),
    revoked_at: optionalIso(message.revokedAt),
    knowledge_sources: message.knowledgeSources,
    llm: message.llm && {
      model: message.llm.model,
      input_tokens: message.llm.inputTokens,
      output_tokens: message.llm.outputTokens,
      cache_read_input_tokens: message.llm.cacheReadInputTokens,
      cache_write_input_tokens: message.llm.cacheWriteInputTokens,
      latency_ms: message.llm.latencyMs,
      memory_fold: message.llm.memoryFold && { model: message.llm.memoryFold.model, input_tokens: message.llm.memoryFold.inputTokens, output_tokens: message.llm.memoryFold.outputTokens },
    },
  });
}

export function messageFromItem(item: Item): Message {
  const read = new ItemReader(item, EntityType.message);
  const llm = read.optionalMap(MessageAttribute.llm);
  const receiptStatus = read.optionalOneOf(MessageAttribute.receiptStatus, RECEIPT_STATUSES);
  const receiptAt = read.optionalTimestamp(MessageAttribute.receiptAt);
  const failureCode = read.optionalNumber(MessageAttribute.deliveryFailureCode);
  const metaPricing = read.optionalMap(MessageAttribute.metaPricing);
  const templateName = read.optionalString('template_name');
  const templateLanguage = read.optionalString('template_language');
  const media = read.optionalMap(MessageAttribute.media);
  const reactionEmoji = read.optionalString(MessageAttribute.reactionEmoji);
  const reactionAt = read.optionalTimestamp(MessageAttribute.reactionAt);
  const interactive = read.optionalMap(MessageAttribute.interactive);
  const parsedInteractive = interactive && parseInteractiveReply(interactive);
  return {
    customerId: read.string(MessageAttribute.customerId),
    sessionId: read.string('session_id'),
    messageId: read.string('message_id'),
    direction: read.oneOf('direction', DIRECTIONS),
    role: read.oneOf('role', ROLES),
    text: read.optionalString('text') ?? '',
    timestamp: read.timestamp('timestamp'),
    messageType: read.optionalString('message_type'),
    deliveryStatus: read.optionalOneOf('delivery_status', DELIVERY_STATUSES),
    providerMessageId: read.optionalString('provider_message_id'),
    providerMessageIds: optionalList(read.stringList(MessageAttribute.providerMessageIds)),
    sentAt: read.optionalTimestamp('sent_at'),
    unsentAt: read.optionalTimestamp(MessageAttribute.unsentAt),
    receipt: receiptStatus && receiptAt ? { status: receiptStatus, at: receiptAt, ...(failureCode !== undefined && { failureCode }) } : undefined,
    replyToMessageId: read.optionalString('reply_to_message_id'),
    supersededAt: read.optionalTimestamp('superseded_at'),
    quarantinedAt: read.optionalTimestamp('quarantined_at'),
    failureReason: read.optionalString('failure_reason'),
    operatorPhone: read.optionalString('operator_phone'),
    template: templateName === undefined || templateLanguage === undefined ? undefined : { name: templateName, language: templateLanguage },
    failureNoticeFor: read.optionalString('failure_notice_for'),
    media: media && storedMediaFromMap(media),
    quotedMessageId: read.optionalString(MessageAttribute.quotedMessageId),
    choiceId: read.optionalString(MessageAttribute.choiceId),
    interactive: parsedInteractive && 'interactive' in parsedInteractive ? parsedInteractive.interactive : undefined,
    reaction: reactionEmoji === undefined || reactionAt === undefined ? undefined : { emoji: reactionEmoji, at: reactionAt },
    editedAt: read.optionalTimestamp(MessageAttribute.editedAt),
    revokedAt: read.optionalTimestamp(MessageAttribute.revokedAt),
    llm: llm && llmUsageFromMap(llm),
    knowledgeSources: optionalList(read.stringList(MessageAttribute.knowledgeSources)),
    metaPricing: metaPricing && metaPricingFromMap(metaPricing),
    ...read.unknownAttributes(),
  };
}

/** The model usage of an agent reply read with only `llm` projected (the usage report's read). */
export function llmUsageOfItem(item: Item): LlmUsage | undefined {
  const llm = new ItemReader(item, EntityType.message).optionalMap(MessageAttribute.llm);
  return llm && llmUsageFromMap(llm);
}

/** Meta's pricing and the customer of a message item a fee read projected (`meta_pricing`, `phone_number`). */
export function metaPricingOfItem(item: Item): { readonly pricing: MetaPricing; readonly customerId: string } | undefined {
  const read = new ItemReader(item, EntityType.message);
  const pricing = read.optionalMap(MessageAttribute.metaPricing);
  return pricing && { pricing: metaPricingFromMap(pricing), customerId: read.string(MessageAttribute.customerId) };
}

function llmUsageFromMap(map: Record<string, unknown>): LlmUsage {
  const read = new ItemReader(map, EntityType.message);
  return {
    model: read.optionalString('model'),
    inputTokens: read.optionalNumber('input_tokens'),
    outputTokens: read.optionalNumber('output_tokens'),
    cacheReadInputTokens: read.optionalNumber('cache_read_input_tokens'),
    cacheWriteInputTokens: read.optionalNumber('cache_write_input_tokens'),
    latencyMs: read.optionalNumber('latency_ms'),
    memoryFold: foldUsageFromMap(read.optionalMap('memory_fold')),
  };
}

function foldUsageFromMap(map: Record<string, unknown> | undefined): LlmUsage['memoryFold'] {
  if (map === undefined) return undefined;
  const read = new ItemReader(map, EntityType.message);
  return { model: read.string('model'), inputTokens: read.number('input_tokens'), outputTokens: read.number('output_tokens') };
}

/** Meta's `pricing` of a message as stored, in Meta's own names. */
export function metaPricingToMap(pricing: MetaPricing): Record<string, unknown> {
  return { billable: pricing.billable, category: pricing.category, type: pricing.type, pricing_model: pricing.pricingModel };
}

function metaPricingFromMap(map: Record<string, unknown>): MetaPricing {
  const read = new ItemReader(map, EntityType.message);
  return { billable: read.boolean('billable'), category: read.string('category'), type: read.optionalString('type'), pricingModel: read.optionalString('pricing_model') };
}

function optionalList(list: string[]): string[] | undefined {
  return list.length === 0 ? undefined : list;
}
