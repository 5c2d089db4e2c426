import { isPermanentFailure } from '../domain/errors';
import type { InboundTurn } from '../domain/inbound-turn';
import type { MediaRefusal, StoredMedia } from '../domain/media';
import { type MediaLimits, refusalOf } from '../domain/media-limits';
import type { MediaStore } from '../ports/media-store';
import { type MediaSource, MediaTooLargeError } from '../ports/media-source';

/** How one attachment ended: kept, kept out on purpose, or lost after the last attempt. */
export type MediaOutcome = { readonly kind: 'downloaded'; readonly sizeBytes: number } | { readonly kind: 'refused'; readonly refusal: MediaRefusal } | { readonly kind: 'failed'; readonly error: unknown };

export interface DownloadInboundMediaDependencies {
  readonly source: MediaSource;
  readonly store: MediaStore;
  readonly limits: MediaLimits;
  /** Told how each attachment ended (a metric, a log line); never changes the turn. */
  readonly onOutcome?: (outcome: MediaOutcome) => void;
}

/**
 * The download step of a turn (docs/DESIGN.md#media): the inbound path only recorded what the
 * provider said of an attachment; here its description is read, the limits are checked before a
 * byte is fetched, and the bytes are stored under a key derived from the customer and the message.
 * A failure that a retry can fix fails the turn, whose normal retry downloads again (the same key
 * is overwritten, nothing is duplicated); on the turn's last attempt, or when no retry can help,
 * the message continues as text with a `download_failed` note instead.
 */
export class DownloadInboundMedia {
  constructor(private readonly deps: DownloadInboundMediaDependencies) {}

  /** What the history keeps of `turn`'s attachment; undefined for a message without one. */
  async resolve(turn: InboundTurn, finalAttempt: boolean): Promise<StoredMedia | undefined> {
    const { media } = turn;
    if (media === undefined) return undefined;
    try {
      return await this.download(turn, media);
    } catch (error) {
      if (!(finalAttempt || isPermanentFailure(error))) throw error;
      this.deps.onOutcome?.({ kind: 'failed', error });
      return { ...media, state: 'failed', refusal: 'download_failed' };
    }
  }

  private async download(turn: InboundTurn, media: NonNullable<InboundTurn['media']>): Promise<StoredMedia> {
    const { source, store, limits } = this.deps;
    const description = await source.describe(media);
    const refused = (refusal: MediaRefusal): StoredMedia => {
      this.deps.onOutcome?.({ kind: 'refused', refusal });
      return { ...media, mimeType: description.mimeType, state: 'refused', refusal, ...(description.sizeBytes === undefined ? {} : { sizeBytes: description.sizeBytes }) };
    };
    const refusal = refusalOf(limits, description.mimeType, description.sizeBytes);
    if (refusal !== undefined) return refused(refusal);
    let body: Uint8Array;
    try {
      body = await source.fetch(description, limits.maxBytes);
    } catch (error) {
      if (error instanceof MediaTooLargeError) return refused('too_large');
      throw error;
    }
    const stored = await store.put(turn.customerId, turn.messageId, body, description.mimeType);
    this.deps.onOutcome?.({ kind: 'downloaded', sizeBytes: stored.sizeBytes });
    return { ...media, mimeType: description.mimeType, ...(description.sha256 === undefined ? {} : { sha256: description.sha256 }), state: 'stored', objectKey: stored.objectKey, sizeBytes: stored.sizeBytes };
  }
}
