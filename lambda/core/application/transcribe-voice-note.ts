import { createHash } from 'node:crypto';
import type { StoredMedia } from '../domain/media';
import type { TranscriptionMediaFormat, VoiceTranscriber } from '../ports/voice-transcriber';

/** The audio formats Transcribe reads, by MIME type (WhatsApp voice notes are `audio/ogg` with Opus). */
const MEDIA_FORMATS: Readonly<Record<string, TranscriptionMediaFormat>> = {
  'audio/ogg': 'ogg',
  'audio/mpeg': 'mp3',
  'audio/mp4': 'mp4',
  'audio/x-m4a': 'm4a',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/flac': 'flac',
  'audio/amr': 'amr',
  'audio/webm': 'webm',
};

export interface TranscribeVoiceNoteDependencies {
  readonly transcriber: VoiceTranscriber;
  /** The `s3://` URI of a stored object of the media bucket. */
  readonly mediaUriOf: (objectKey: string) => string;
  readonly languageCode: string;
  /** How long the turn waits for the transcript, in all. */
  readonly maxWaitMs: number;
  /** Between two reads of the job's state. */
  readonly pollIntervalMs: number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly now: () => number;
}

/** The voice note with its transcript, or why it has none (the message then goes on as text with a note). */
export type VoiceNoteTranscription = { readonly outcome: 'transcribed'; readonly media: StoredMedia } | { readonly outcome: 'not_audio' | 'unsupported_format' | 'failed' | 'timed_out' };

/**
 * Transcribes a stored audio attachment within a bounded wait: starts the batch job (named by the
 * object, so a retried turn finds the job it started), reads its state every `pollIntervalMs`
 * until `maxWaitMs` have passed, and deletes the job once its transcript is read or it failed. A
 * job still running at the end of the wait is left for the next attempt to find; the turn goes on
 * without the transcript. A failing call of the service is thrown, for the turn's retry.
 */
export async function transcribeVoiceNote(media: StoredMedia, deps: TranscribeVoiceNoteDependencies): Promise<VoiceNoteTranscription> {
  if (media.kind !== 'audio' || media.state !== 'stored' || media.objectKey === undefined) return { outcome: 'not_audio' };
  const mediaFormat = MEDIA_FORMATS[(media.mimeType ?? '').split(';')[0].trim().toLowerCase()];
  if (mediaFormat === undefined) return { outcome: 'unsupported_format' };
  const jobName = transcriptionJobName(media.objectKey);
  const { transcriber } = deps;
  await transcriber.start({ jobName, mediaUri: deps.mediaUriOf(media.objectKey), mediaFormat, languageCode: deps.languageCode });
  const giveUpAt = deps.now() + deps.maxWaitMs;
  for (;;) {
    const state = await transcriber.state(jobName);
    if (state.status !== 'in_progress') {
      await transcriber.delete(jobName);
      return state.status === 'completed' ? { outcome: 'transcribed', media: { ...media, transcript: state.transcript } } : { outcome: 'failed' };
    }
    if (deps.now() + deps.pollIntervalMs > giveUpAt) return { outcome: 'timed_out' };
    await deps.sleep(deps.pollIntervalMs);
  }
}

/** A job name Transcribe accepts (`^[0-9a-zA-Z._-]+$`), one per stored object, naming no customer. */
export function transcriptionJobName(objectKey: string): string {
  return `voice-${createHash('sha256').update(objectKey).digest('hex')}`;
}
