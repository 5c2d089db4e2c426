import { isPermanentFailure } from '../domain/errors';
import type { InboundTurn } from '../domain/inbound-turn';
import type { InboundMedia, MediaRefusal, StoredMedia } from '../domain/media';
import { type MediaLimits, refusalOf } from '../domain/media-limits';
import type { MediaStore, StoredObject } from '../ports/media-store';
import { isTransferSource, type MediaMetadata, type MediaSource, type MediaTransferSource, MediaTooLargeError } from '../ports/media-source';

/** How one attachment ended: kept, kept out on purpose, or lost after the last attempt. */
export type MediaOutcome = { readonly kind: 'downloaded'; readonly sizeBytes: number } | { readonly kind: 'refused'; readonly refusal: MediaRefusal } | { readonly kind: 'failed'; readonly error: unknown };

export interface DownloadInboundMediaDependencies {
  /** A source that answers the bytes (the Cloud API), or one that writes them into the bucket itself (End User Messaging). */
  readonly source: MediaSource | MediaTransferSource;
  readonly store: MediaStore;
  readonly limits: MediaLimits;
  /** Told how each attachment ended (a metric, a log line); never changes the turn. */
  readonly onOutcome?: (outcome: MediaOutcome) => void;
}

/**
 * The download step of a turn (docs/DESIGN.md#media): the inbound path only recorded what the
 * provider said of an attachment; here its description is read, the limits are checked before a
 * byte is fetched, and the bytes are stored under a key derived from the customer and the message
 * (by the store, or by the provider itself into the store's destination for that message).
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

  private async download(turn: InboundTurn, media: InboundMedia): Promise<StoredMedia> {
    const { source, store, limits } = this.deps;
    if (isTransferSource(source)) {
      const metadata = await source.describe(media, turn.businessPhoneNumberId);
      return this.keep(media, metadata, async () => source.transferInto(media, turn.businessPhoneNumberId, await store.destinationOf(turn.customerId, turn.messageId)));
    }
    const description = await source.describe(media);
    return this.keep(media, description, async () => store.put(turn.customerId, turn.messageId, await source.fetch(description, limits.maxBytes), description.mimeType));
  }

  /** The limits checked on what the provider said before `store` moves a byte; bytes found too large while read are refused too. */
  private async keep(media: InboundMedia, metadata: MediaMetadata, store: () => Promise<StoredObject>): Promise<StoredMedia> {
    const refused = (refusal: MediaRefusal): StoredMedia => {
      this.deps.onOutcome?.({ kind: 'refused', refusal });
      return { ...media, mimeType: metadata.mimeType, state: 'refused', refusal, ...(metadata.sizeBytes === undefined ? {} : { sizeBytes: metadata.sizeBytes }) };
    };
    const refusal = refusalOf(this.deps.limits, metadata.mimeType, metadata.sizeBytes);
    if (refusal !== undefined) return refused(refusal);
    let stored: StoredObject;
    try {
      stored = await store();
    } catch (error) {
      if (error instanceof MediaTooLargeError) return refused('too_large');
      throw error;
    }
    this.deps.onOutcome?.({ kind: 'downloaded', sizeBytes: stored.sizeBytes });
    return { ...media, mimeType: metadata.mimeType, ...(metadata.sha256 === undefined ? {} : { sha256: metadata.sha256 }), state: 'stored', objectKey: stored.objectKey, sizeBytes: stored.sizeBytes };
  }
}
