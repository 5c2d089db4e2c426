import { type DeliveryReceipt, receiptStatusesBefore } from '../../domain/delivery-receipt';
import type { DeliveryStatus, OutboundRef } from '../../domain/message';
import { isoMicros, type IsoTimestamp } from '../../domain/timestamps';
import type { ReplyDelivery } from '../../ports/repositories';
import { MessageAttribute as M, metaPricingToMap } from './codecs/message-codec';
import type { UpdateRequest } from './dynamo-kit';
import { ENTITY_TYPE, EntityType, feeIndexKey, GSI1PK, GSI1SK, messageKeyFromRef, type TableKey } from './keys';
import { ITEM_EXISTS, KEY_NAMES } from './repository-support';

// A stored message's changes of status, each one conditional update: the message repository's own
// writes, and the turn ledger's transactions that carry them (completion, parking).

/** Hides a stored message from the agent (`null`: shows it again); its condition fails when the message is not stored. */
export function quarantineUpdate(key: TableKey, quarantinedAt: IsoTimestamp | null): Omit<UpdateRequest, 'returnValues'> {
  return {
    key,
    update: quarantinedAt === null ? 'REMOVE #quarantined' : 'SET #quarantined = :at',
    condition: ITEM_EXISTS,
    names: { '#pk': KEY_NAMES['#pk'], '#quarantined': M.quarantinedAt },
    ...(quarantinedAt === null ? {} : { values: { ':at': isoMicros(quarantinedAt) } }),
  };
}

/**
 * What a status may settle: any message but one WhatsApp refused. A status names a message Meta
 * took, so one recorded `superseded` (the retry after a refused send found it obsolete) was sent
 * after all by an attempt that died before recording it.
 */
const MAYBE_TAKEN_BY_META: readonly DeliveryStatus[] = ['pending_send', 'maybe_sent', 'sent', 'superseded'];

/**
 * A receipt, as one conditional update of the message it names (docs/DESIGN.md#delivery-receipts):
 * only later statuses than the recorded one pass, so duplicates and reordered statuses fail the
 * condition, and only a status of a wamid the message was sent as (any part of a split reply), so
 * a status of another message that carries this one's callback data changes nothing; a message
 * whose send outcome was unknown (no wamid recorded) becomes `sent`, with the wamid and time the
 * send's own answer never recorded. Meta's pricing of the message is kept from the first status
 * recorded with it (Meta repeats it on later ones).
 */
export function receiptUpdate(ref: OutboundRef, receipt: DeliveryReceipt): Omit<UpdateRequest, 'returnValues'> {
  const before = receiptStatusesBefore(receipt.status);
  const values: Record<string, unknown> = {
    ':message': EntityType.message,
    ':outbound': 'outbound',
    ':receipt': receipt.status,
    ':at': isoMicros(receipt.at),
    ':wamid': receipt.providerMessageId,
    ':sent': 'sent',
    ...Object.fromEntries(MAYBE_TAKEN_BY_META.map((status, index) => [`:taken${index}`, status])),
    ...Object.fromEntries(before.map((status, index) => [`:before${index}`, status])),
  };
  const sets = ['#receipt = :receipt', '#receiptAt = :at', '#status = :sent', '#pmid = if_not_exists(#pmid, :wamid)', '#sentAt = if_not_exists(#sentAt, :at)'];
  if (receipt.failureCode !== undefined) {
    sets.push('#code = :code');
    values[':code'] = receipt.failureCode;
  }
  if (receipt.pricing !== undefined) {
    // An agent reply keeps its day index (LLM#); any other message joins the fee index of the day.
    const feeKey = feeIndexKey(receipt.at, ref.customerId, ref.sortKey);
    sets.push('#pricing = if_not_exists(#pricing, :pricing)', '#gsi1pk = if_not_exists(#gsi1pk, :feePk)', '#gsi1sk = if_not_exists(#gsi1sk, :feeSk)');
    values[':pricing'] = metaPricingToMap(receipt.pricing);
    values[':feePk'] = feeKey[GSI1PK];
    values[':feeSk'] = feeKey[GSI1SK];
  }
  const taken = MAYBE_TAKEN_BY_META.map((_, index) => `:taken${index}`).join(', ');
  const later = before.length === 0 ? 'attribute_not_exists(#receipt)' : `(attribute_not_exists(#receipt) OR #receipt IN (${before.map((_, index) => `:before${index}`).join(', ')}))`;
  // A wamid the message was sent as, or none known yet (an unknown outcome this status settles).
  const sameSend = '(attribute_not_exists(#pmid) OR #pmid = :wamid OR contains(#pmids, :wamid))';
  return {
    key: messageKeyFromRef(ref),
    update: `SET ${sets.join(', ')}`,
    condition: `#type = :message AND #direction = :outbound AND #status IN (${taken}) AND ${later} AND ${sameSend}`,
    names: {
      '#type': ENTITY_TYPE,
      '#direction': 'direction',
      '#status': M.deliveryStatus,
      '#receipt': M.receiptStatus,
      '#receiptAt': M.receiptAt,
      '#pmid': M.providerMessageId,
      '#pmids': M.providerMessageIds,
      '#sentAt': M.sentAt,
      ...(receipt.failureCode !== undefined && { '#code': M.deliveryFailureCode }),
      ...(receipt.pricing !== undefined && { '#pricing': M.metaPricing, '#gsi1pk': GSI1PK, '#gsi1sk': GSI1SK }),
    },
    values,
  };
}

/**
 * The only transitions of a reply: out of `pending_send`, once (receipts aside). Also written inside a turn's
 * completion transaction (the turn ledger's `complete`), hence a function of its own.
 */
export function deliveryUpdate(ref: OutboundRef, delivery: ReplyDelivery): Omit<UpdateRequest, 'returnValues'> {
  const fields: Record<string, string | readonly string[]> =
    delivery.status === 'sent'
      ? { [M.providerMessageId]: delivery.providerMessageId, [M.sentAt]: isoMicros(delivery.sentAt), ...(delivery.providerMessageIds.length > 1 && { [M.providerMessageIds]: delivery.providerMessageIds }) }
      : delivery.status === 'superseded' || delivery.status === 'maybe_sent'
        ? { [M.supersededAt]: isoMicros(delivery.at) }
        : { [M.failureReason]: delivery.reason };
  const names: Record<string, string> = { '#status': M.deliveryStatus };
  const values: Record<string, unknown> = { ':status': delivery.status, ':pending': 'pending_send' };
  // A receipt of Meta's may record the send before the sender does: the same send (its wamid), recorded once more.
  const condition = delivery.status === 'sent' ? '#status = :pending OR (#status = :status AND #f0 = :f0)' : '#status = :pending';
  const sets = ['#status = :status'];
  Object.entries(fields).forEach(([name, value], index) => {
    names[`#f${index}`] = name;
    values[`:f${index}`] = value;
    sets.push(`#f${index} = :f${index}`);
  });
  return { key: messageKeyFromRef(ref), update: `SET ${sets.join(', ')}`, condition, names, values };
}
