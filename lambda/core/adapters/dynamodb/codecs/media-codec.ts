import type { MediaKind, MediaRefusal, MediaState, StoredMedia } from '../../../domain/media';

const KINDS: readonly MediaKind[] = ['image', 'video', 'audio', 'document', 'sticker'];
const STATES: readonly MediaState[] = ['pending', 'stored', 'refused', 'failed'];
const REFUSALS: readonly MediaRefusal[] = ['too_large', 'type_not_allowed', 'download_failed'];

/** A message's attachment as the item's `media` map (snake_case, absent fields left out). */
export function mediaToMap(media: StoredMedia): Record<string, unknown> {
  const map: Record<string, unknown> = {
    kind: media.kind,
    provider_media_id: media.providerMediaId,
    mime_type: media.mimeType,
    sha256: media.sha256,
    filename: media.filename,
    caption: media.caption,
    voice: media.voice,
    state: media.state,
    object_key: media.objectKey,
    size_bytes: media.sizeBytes,
    refusal: media.refusal,
    transcript: media.transcript,
  };
  return Object.fromEntries(Object.entries(map).filter(([, value]) => value !== undefined));
}

/** The `media` map read back; undefined when it is not one the codec wrote (the entry stays readable as text). */
export function mediaFromMap(map: Record<string, unknown>): StoredMedia | undefined {
  const text = (name: string) => (typeof map[name] === 'string' ? (map[name] as string) : undefined);
  const kind = KINDS.find((candidate) => candidate === map.kind);
  const state = STATES.find((candidate) => candidate === map.state);
  const providerMediaId = text('provider_media_id');
  if (kind === undefined || state === undefined || providerMediaId === undefined) return undefined;
  const refusal = REFUSALS.find((candidate) => candidate === map.refusal);
  const sizeBytes = typeof map.size_bytes === 'number' ? map.size_bytes : undefined;
  const optional = {
    mimeType: text('mime_type'),
    sha256: text('sha256'),
    filename: text('filename'),
    caption: text('caption'),
    voice: typeof map.voice === 'boolean' ? map.voice : undefined,
    objectKey: text('object_key'),
    sizeBytes,
    refusal,
    transcript: text('transcript'),
  };
  return { kind, providerMediaId, state, ...Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined)) };
}
