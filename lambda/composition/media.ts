import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { CUSTOM_METRICS } from '../../lib/contract';
import { customerDataRepository } from '../core/adapters/dynamodb/dynamo-repositories';
import { errorSummary } from '../core/adapters/observability/error-summary';
import { createMediaClient, S3MediaStore } from '../core/adapters/s3/s3-media-store';
import type { WhatsAppChannelConfig } from '../core/adapters/whatsapp/whatsapp-channel';
import { createMediaSource } from '../core/adapters/whatsapp/whatsapp-media-source';
import { DownloadInboundMedia, type MediaOutcome } from '../core/application/download-inbound-media';
import { CustomerPseudonyms } from '../core/application/privacy/customer-pseudonyms';
import { TranscribeVoiceNotes, type VoiceNoteOutcome } from '../core/application/transcribe-voice-note';
import type { MediaStore } from '../core/ports/media-store';
import type { ComposedFunction, FunctionPorts } from './compose-function';
import type { SenderPorts } from './customer-messaging';
import type { MediaSettings } from './deployment-settings';
import { composeTranscriber, type TranscribePorts } from './transcription-jobs';

// The functions' media code, loaded only when an attachment is handled: the compositions reach
// this module only through `media-on-demand.ts`, so in the Lambda bundles it and everything only it
// reaches are the file `media.js` (scripts/bundle-lambdas.mjs). Import it nowhere else.

/** What the functions that store or erase attachments may be handed instead of what they build. */
export interface MediaPorts extends TranscribePorts {
  /** S3 endpoint to call instead of the SDK's (the local S3 server). Default: `AWS_ENDPOINT_URL_S3`, else AWS. */
  readonly s3Endpoint?: string;
}

/**
 * The media bucket through the S3 adapter, keyed by the customer's pseudonym (the salt is read
 * once per process, and only when a message has an attachment or an erasure runs).
 */
export function composeMediaStore(media: MediaSettings, composed: Pick<ComposedFunction, 'table'>, ports: FunctionPorts & MediaPorts): MediaStore {
  const pseudonyms = pseudonymsOf(composed);
  const client = createMediaClient({ endpoint: ports.s3Endpoint ?? process.env.AWS_ENDPOINT_URL_S3, credentials: ports.awsCredentials });
  return new S3MediaStore({ bucketName: media.bucketName, customerKey: (customerId) => pseudonyms.of(customerId), client });
}

/** The turn's download step from the channel's media source, reporting each attachment's outcome as a metric. */
export function composeMediaDownload(channel: WhatsAppChannelConfig, media: MediaSettings, store: MediaStore, composed: ComposedFunction, ports: FunctionPorts & SenderPorts): DownloadInboundMedia {
  return new DownloadInboundMedia({ source: createMediaSource(channel, ports), store, limits: media.limits, onOutcome: (outcome) => reportMediaOutcome(composed, outcome) });
}

/**
 * The turn's transcription step with Amazon Transcribe, signed as the function's role (Transcribe
 * reads the voice note from the bucket with the caller's permissions), reporting each outcome as a
 * metric; none unless `media.transcription` is on.
 */
export function composeVoiceNoteTranscription(media: MediaSettings, composed: Pick<ComposedFunction, 'metrics' | 'logger' | 'table'>, ports: FunctionPorts & MediaPorts): TranscribeVoiceNotes | undefined {
  const { transcription } = media;
  if (transcription === undefined) return undefined;
  const pseudonyms = pseudonymsOf(composed);
  return new TranscribeVoiceNotes({
    transcriber: composeTranscriber(ports),
    // Job names carry the customer's pseudonym, as the bucket's keys do: the erasure finds them.
    customerKey: (customerId) => pseudonyms.of(customerId),
    mediaUriOf: (objectKey) => `s3://${media.bucketName}/${objectKey}`,
    languageCode: transcription.languageCode,
    maxWaitMs: transcription.maxWaitMs,
    pollIntervalMs: transcription.pollIntervalMs,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    // The wait is the invocation's own time, whatever clock the turn is given.
    now: () => Date.now(),
    onOutcome: (outcome) => reportVoiceNoteOutcome(composed, outcome),
  });
}

/** The customers' pseudonyms (the salt read once per process, when first needed). */
function pseudonymsOf(composed: Pick<ComposedFunction, 'table'>): CustomerPseudonyms {
  return new CustomerPseudonyms(customerDataRepository(composed.table));
}

function reportVoiceNoteOutcome({ metrics, logger }: Pick<ComposedFunction, 'metrics' | 'logger'>, outcome: VoiceNoteOutcome): void {
  if (outcome === 'transcribed') {
    metrics.addMetric(CUSTOM_METRICS.voiceNoteTranscribed, MetricUnit.Count, 1);
    return;
  }
  const metric = metrics.singleMetric();
  metric.addDimension('Reason', outcome);
  metric.addMetric(CUSTOM_METRICS.voiceNoteTranscriptionFailed, MetricUnit.Count, 1);
  logger.info('voice_note_not_transcribed', { reason: outcome });
}

function reportMediaOutcome({ metrics, logger }: Pick<ComposedFunction, 'metrics' | 'logger'>, outcome: MediaOutcome): void {
  switch (outcome.kind) {
    case 'downloaded':
      metrics.addMetric(CUSTOM_METRICS.mediaDownloaded, MetricUnit.Count, 1);
      return;
    case 'refused': {
      const metric = metrics.singleMetric();
      metric.addDimension('Reason', outcome.refusal);
      metric.addMetric(CUSTOM_METRICS.mediaRefused, MetricUnit.Count, 1);
      logger.info('media_refused', { refusal: outcome.refusal });
      return;
    }
    case 'failed':
      metrics.addMetric(CUSTOM_METRICS.mediaDownloadFailed, MetricUnit.Count, 1);
      logger.warn('media_download_failed', errorSummary(outcome.error));
  }
}
