import type { DownloadInboundMedia } from '../core/application/download-inbound-media';
import type { TranscribeVoiceNotes } from '../core/application/transcribe-voice-note';
import type { MediaStore } from '../core/ports/media-store';
import { mediaBucketUrl } from '../core/adapters/s3/media-bucket-url';
import type { MediaPorts } from './media';
import type { MediaSettings } from './deployment-settings';

/** The media composition (`./media.ts`). */
type MediaComposition = typeof import('./media');

let mediaComposition: MediaComposition | undefined;

/**
 * Required here, at the first attachment stored, read or erased, not imported at the top: the
 * functions reach `./media` only through this `require`, which the Lambda bundles turn into the
 * file `media.js` beside `index.js` (scripts/bundle-lambdas.mjs), so a text-only turn never loads
 * nor compiles the media code.
 */
function mediaCompositionOnce(): MediaComposition {
  return (mediaComposition ??= require('./media') as MediaComposition);
}

/** What `build` makes of the media composition, made at the first call (again at the next if it threw). */
function onFirstUse<T>(build: (media: MediaComposition) => T): () => T {
  let built: { readonly value: T } | undefined;
  return () => (built ??= { value: build(mediaCompositionOnce()) }).value;
}

/** The media bucket's store, whose adapter is loaded with the first call. */
export function mediaStoreOnDemand(build: (media: MediaComposition) => MediaStore): MediaStore {
  const store = onFirstUse(build);
  return {
    put: async (customerId, messageId, body, contentType) => store().put(customerId, messageId, body, contentType),
    destinationOf: async (customerId, messageId) => store().destinationOf(customerId, messageId),
    get: async (objectKey) => store().get(objectKey),
    presignedGetUrl: async (objectKey, expiresInSeconds, response) => store().presignedGetUrl(objectKey, expiresInSeconds, response),
    listCustomerObjects: async (customerId) => store().listCustomerObjects(customerId),
    deleteCustomerObjects: async (customerId) => store().deleteCustomerObjects(customerId),
  };
}

/** The turn's download step, loaded with the first message that has an attachment (the turn asks it for no other). */
export function mediaDownloadOnDemand(build: (media: MediaComposition) => DownloadInboundMedia | undefined): Pick<DownloadInboundMedia, 'resolve'> {
  const download = onFirstUse(build);
  return { resolve: async (turn, finalAttempt) => download()?.resolve(turn, finalAttempt) };
}

/** The voice notes' transcription, loaded with the first stored voice note (`media.transcription` on). */
export function voiceNotesOnDemand(build: (media: MediaComposition) => TranscribeVoiceNotes | undefined): Pick<TranscribeVoiceNotes, 'withTranscript'> {
  const voiceNotes = onFirstUse(build);
  return { withTranscript: async (customerId, media, finalAttempt) => voiceNotes()?.withTranscript(customerId, media, finalAttempt) ?? media };
}

/**
 * Where the store's presigned links point, for the console's content security policy: the local S3
 * server's origin, or the bucket's virtual-hosted endpoint in the function's region. The operator
 * function needs it to compose, so it is here rather than in the media file.
 */
export function mediaLinkOrigin(media: MediaSettings, ports: MediaPorts, env: NodeJS.ProcessEnv = process.env): string {
  return new URL(mediaBucketUrl(media.bucketName, ports.s3Endpoint ?? env.AWS_ENDPOINT_URL_S3, env.AWS_REGION)).origin;
}
