import { isPermanentFailure } from '../domain/errors';
import { mimeTypeEssence, type StoredMedia } from '../domain/media';
import type { TranscriptionMediaFormat, VoiceTranscriber } from '../ports/voice-transcriber';
import { transcriptionJobName } from './transcription-jobs';

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
  readonly transcriber: Pick<VoiceTranscriber, 'start' | 'state' | 'delete'>;
  /** The customer's pseudonym, as the media bucket's keys carry it: job names carry it too, so the erasure finds them. */
  readonly customerKey: (customerId: string) => Promise<string>;
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
 * Transcribes a stored audio attachment of `customerId` within a bounded wait: starts the batch job
 * (named by the customer's pseudonym and the object, so a retried turn finds the job it started
 * and an erasure finds the customer's), reads its state every `pollIntervalMs` until `maxWaitMs`
 * have passed, and deletes the job once its transcript is read or it failed. A job still running
 * at the end of the wait cannot be deleted yet: a retry of the turn finds it, and the idle sweep
 * deletes it once the turn's attempts are over (transcription-jobs.ts); the turn goes on without
 * the transcript. A failing call of the service is thrown, for the turn's retry.
 */
export async function transcribeVoiceNote(customerId: string, media: StoredMedia, deps: TranscribeVoiceNoteDependencies): Promise<VoiceNoteTranscription> {
  if (media.kind !== 'audio' || media.state !== 'stored' || media.objectKey === undefined) return { outcome: 'not_audio' };
  const mediaFormat = MEDIA_FORMATS[mimeTypeEssence(media.mimeType ?? '')];
  if (mediaFormat === undefined) return { outcome: 'unsupported_format' };
  const jobName = transcriptionJobName(await deps.customerKey(customerId), media.objectKey);
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

/** How a voice note's transcription ended, for a metric: `failed` also stands for a service call that failed on the turn's last attempt. */
export type VoiceNoteOutcome = Exclude<VoiceNoteTranscription['outcome'], 'not_audio'>;

/**
 * The turn's transcription step (docs/DESIGN.md#media): a stored voice note comes back with its
 * transcript, which the agent and the history read; without one (timed out, failed, a format the
 * service does not read) it comes back as it was and the agent reads the note `media-note.ts`
 * writes of it. A failing call of the service fails the turn, whose retry finds the job it started;
 * on the last attempt, or when no retry can help, the message goes on without the transcript.
 */
export class TranscribeVoiceNotes {
  constructor(private readonly deps: TranscribeVoiceNoteDependencies & { readonly onOutcome?: (outcome: VoiceNoteOutcome) => void }) {}

  async withTranscript(customerId: string, media: StoredMedia, finalAttempt: boolean): Promise<StoredMedia> {
    let transcription: VoiceNoteTranscription;
    try {
      transcription = await transcribeVoiceNote(customerId, media, this.deps);
    } catch (error) {
      if (!(finalAttempt || isPermanentFailure(error))) throw error;
      transcription = { outcome: 'failed' };
    }
    if (transcription.outcome === 'not_audio') return media;
    this.deps.onOutcome?.(transcription.outcome);
    return transcription.outcome === 'transcribed' ? transcription.media : media;
  }
}
