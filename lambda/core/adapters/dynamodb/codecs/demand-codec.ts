import type { OutOfPortfolioDemand } from '../../../domain/demand';
import { isoMicros } from '../../../domain/timestamps';
import type { Item } from '../dynamo-kit';
import { demandKey, ENTITY_TYPE, EntityType, TTL } from '../keys';
import { ItemReader, withUnknownAttributes } from './item-reader';

export function demandToItem(demand: OutOfPortfolioDemand): Item {
  return withUnknownAttributes(demand, {
    ...demandKey(demand.recordedAt, demand.demandId),
    [ENTITY_TYPE]: EntityType.demand,
    demand_id: demand.demandId,
    source_message_id: demand.sourceMessageId,
    phone_number: demand.customerId,
    session_id: demand.sessionId,
    requested_service: demand.requestedService,
    original_message: demand.originalMessage,
    estimated_segment: demand.estimatedSegment,
    whatsapp_instance: demand.businessPhoneNumberId,
    recorded_at: isoMicros(demand.recordedAt),
  });
}

export function demandFromItem(item: Item): OutOfPortfolioDemand {
  const read = new ItemReader(item, EntityType.demand);
  // The repository derives the expiry from recorded_at and the retention on every write (and
  // checks it on read); reading it here keeps it out of the unknown bag.
  read.raw(TTL);
  return {
    demandId: read.string('demand_id'),
    sourceMessageId: read.string('source_message_id'),
    customerId: read.string('phone_number'),
    sessionId: read.optionalString('session_id'),
    requestedService: read.string('requested_service'),
    originalMessage: read.optionalString('original_message') ?? '',
    estimatedSegment: read.optionalString('estimated_segment'),
    businessPhoneNumberId: read.optionalString('whatsapp_instance'),
    recordedAt: read.timestamp('recorded_at'),
    ...read.unknownAttributes(),
  };
}
