import type { AdminAuditEvent, ConsentRecord, OperationalConfig, VersionedResource } from '../../../domain/admin';
import { isoMicros } from '../../../domain/timestamps';
import type { Item } from '../dynamo-kit';
import { adminAuditKey, adminResourceKey, adminResourceVersionKey, consentKey, consentStateKey, consentTimelineIndexKey, ENTITY_TYPE, EntityType, operationalConfigKey, type TableKey } from '../keys';
import { ItemReader, withUnknownAttributes } from './item-reader';

export const AdminAttribute = {
  version: 'version',
  value: 'value',
  author: 'author',
  updatedAt: 'updated_at',
} as const;

type ResourceEntity = typeof EntityType.adminResource | typeof EntityType.adminResourceVersion;

function resourceAttributes(resource: VersionedResource, key: TableKey, entityType: ResourceEntity): Item {
  return withUnknownAttributes(resource, {
    ...key,
    [ENTITY_TYPE]: entityType,
    resource_type: resource.resourceType,
    resource_id: resource.resourceId,
    version: resource.version,
    content: resource.content,
    description: resource.description,
    active: resource.active,
    author: resource.author,
    created_at: isoMicros(resource.createdAt),
    rolled_back_from: resource.rolledBackFrom,
  });
}

/** The current item of a resource (mirrors its newest version). */
export function currentResourceToItem(resource: VersionedResource): Item {
  return resourceAttributes(resource, adminResourceKey(resource.resourceType, resource.resourceId), EntityType.adminResource);
}

/** One immutable version of a resource. */
export function resourceVersionToItem(resource: VersionedResource): Item {
  return resourceAttributes(resource, adminResourceVersionKey(resource.resourceType, resource.resourceId, resource.version), EntityType.adminResourceVersion);
}

export function resourceFromItem(item: Item, entityType: ResourceEntity): VersionedResource {
  const read = new ItemReader(item, entityType);
  return {
    resourceType: read.string('resource_type'),
    resourceId: read.string('resource_id'),
    version: read.number('version'),
    content: read.optionalString('content') ?? '',
    description: read.optionalString('description'),
    active: read.boolean('active', true),
    author: read.string('author'),
    createdAt: read.timestamp('created_at'),
    rolledBackFrom: read.optionalNumber('rolled_back_from'),
    ...read.unknownAttributes(),
  };
}

export function operationalConfigToItem(config: OperationalConfig): Item {
  return withUnknownAttributes(config, {
    ...operationalConfigKey(config.key),
    [ENTITY_TYPE]: EntityType.operationalConfig,
    config_key: config.key,
    value: config.value,
    author: config.author,
    updated_at: isoMicros(config.updatedAt),
    version: config.version,
  });
}

export function operationalConfigFromItem(item: Item): OperationalConfig {
  const read = new ItemReader(item, EntityType.operationalConfig);
  return {
    key: read.string('config_key'),
    value: read.raw('value'),
    author: read.string('author'),
    updatedAt: read.timestamp('updated_at'),
    version: read.number('version', 0),
    ...read.unknownAttributes(),
  };
}

export function auditEventToItem(event: AdminAuditEvent): Item {
  return withUnknownAttributes(event, {
    ...adminAuditKey(event.occurredAt, event.eventId),
    [ENTITY_TYPE]: EntityType.adminAudit,
    event_id: event.eventId,
    occurred_at: isoMicros(event.occurredAt),
    author: event.author,
    action: event.action,
    resource_type: event.resourceType,
    resource_id: event.resourceId,
    details: event.details,
  });
}

export function auditEventFromItem(item: Item): AdminAuditEvent {
  const read = new ItemReader(item, EntityType.adminAudit);
  return {
    eventId: read.string('event_id'),
    occurredAt: read.timestamp('occurred_at'),
    author: read.string('author'),
    action: read.string('action'),
    resourceType: read.optionalString('resource_type'),
    resourceId: read.optionalString('resource_id'),
    details: read.optionalMap('details'),
    ...read.unknownAttributes(),
  };
}

export function consentToItem(consent: ConsentRecord): Item {
  return {
    ...consentKey(consent.customerId, consent.recordedAt, consent.consentId),
    ...consentTimelineIndexKey(consent.customerId, consent.recordedAt, consent.consentId),
    ...consentAttributes(consent, EntityType.consent),
  };
}

/** The customer's current consent for the event's purpose: the event's attributes under the state key, off the timeline index. */
export function consentStateToItem(consent: ConsentRecord): Item {
  return { ...consentStateKey(consent.customerId, consent.purpose), ...consentAttributes(consent, EntityType.consentState) };
}

function consentAttributes(consent: ConsentRecord, entityType: EntityType): Item {
  return withUnknownAttributes(consent, {
    [ENTITY_TYPE]: entityType,
    consent_id: consent.consentId,
    phone_number: consent.customerId,
    recorded_at: isoMicros(consent.recordedAt),
    purpose: consent.purpose,
    granted: consent.granted,
    source: consent.source,
    session_id: consent.sessionId,
    terms_version: consent.termsVersion,
    evidence_message_id: consent.evidenceMessageId,
  });
}

/** An event of either layout: the customer's partition, or the seed system's `ADMIN#CONSENT` (docs/DESIGN.md#attributes-kept-for-the-seed-systems-data). */
export function consentFromItem(item: Item): ConsentRecord {
  return decodeConsent(item, EntityType.consent);
}

export function consentStateFromItem(item: Item): ConsentRecord {
  return decodeConsent(item, EntityType.consentState);
}

function decodeConsent(item: Item, entityType: EntityType): ConsentRecord {
  const read = new ItemReader(item, entityType);
  return {
    consentId: read.string('consent_id'),
    customerId: read.string('phone_number'),
    recordedAt: read.timestamp('recorded_at'),
    purpose: read.string('purpose'),
    granted: read.boolean('granted'),
    source: read.string('source'),
    sessionId: read.optionalString('session_id'),
    termsVersion: read.optionalString('terms_version'),
    evidenceMessageId: read.optionalString('evidence_message_id'),
    ...read.unknownAttributes(),
  };
}
