import { MEDIA_KINDS, type InboundMedia, type MediaRefusal, type MediaState, type StoredMedia } from '../../../domain/media';
import { EntityType } from '../keys';
import { ItemReader } from './item-reader';

const MEDIA_STATES: readonly MediaState[] = ['pending', 'stored', 'refused', 'failed'];
const MEDIA_REFUSALS: readonly MediaRefusal[] = ['too_large', 'type_not_allowed', 'download_failed'];

/** An attachment as one map attribute (`media`) of a receipt or a history message. */
export function mediaToMap(media: InboundMedia | StoredMedia): Record<string, unknown> {
  const stored: Partial<StoredMedia> = media;
  return {
    kind: media.kind,
    provider_media_id: media.providerMediaId,
    mime_type: media.mimeType,
    sha256: media.sha256,
    filename: media.filename,
    caption: media.caption,
    voice: media.voice,
    state: stored.state,
    object_key: stored.objectKey,
    size_bytes: stored.sizeBytes,
    refusal: stored.refusal,
    transcript: stored.transcript,
  };
}

/** What the provider said of an attachment (a receipt's `media`). */
export function inboundMediaFromMap(map: Record<string, unknown>, entity: EntityType): InboundMedia {
  return { ...describedMediaFromMap(map, entity), providerMediaId: new ItemReader(map, entity).string('provider_media_id') };
}

function describedMediaFromMap(map: Record<string, unknown>, entity: EntityType): Omit<InboundMedia, 'providerMediaId'> {
  const read = new ItemReader(map, entity);
  return dropUndefined({
    kind: read.oneOf('kind', MEDIA_KINDS),
    mimeType: read.optionalString('mime_type'),
    sha256: read.optionalString('sha256'),
    filename: read.optionalString('filename'),
    caption: read.optionalString('caption'),
    voice: read.raw('voice') === true ? true : undefined,
  });
}

/** An attachment as the history keeps it (a message's `media`); one stored before its state is pending. */
export function storedMediaFromMap(map: Record<string, unknown>): StoredMedia {
  const read = new ItemReader(map, EntityType.message);
  return dropUndefined({
    ...describedMediaFromMap(map, EntityType.message),
    providerMediaId: read.optionalString('provider_media_id'),
    state: read.optionalOneOf('state', MEDIA_STATES) ?? 'pending',
    objectKey: read.optionalString('object_key'),
    sizeBytes: read.optionalNumber('size_bytes'),
    refusal: read.optionalOneOf('refusal', MEDIA_REFUSALS),
    transcript: read.optionalString('transcript'),
  });
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}
