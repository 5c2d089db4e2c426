/** A batch speech-to-text job over one stored voice note. */
export interface TranscriptionJobRequest {
  /** Unique per attachment: a retry finds the job it started. */
  readonly jobName: string;
  /** Where the audio is (`s3://bucket/key` of the media bucket). */
  readonly mediaUri: string;
  readonly mediaFormat: TranscriptionMediaFormat;
  /** BCP-47 as the service names it (`pt-BR`, `en-US`, `es-US`). */
  readonly languageCode: string;
}

/** The audio formats batch transcription reads. */
export type TranscriptionMediaFormat = 'ogg' | 'mp3' | 'mp4' | 'm4a' | 'wav' | 'flac' | 'amr' | 'webm';

export type TranscriptionJobState =
  | { readonly status: 'in_progress' }
  | { readonly status: 'completed'; readonly transcript: string }
  | { readonly status: 'failed'; readonly reason: string };

/** A job as the service lists it: its name, whether it ended, and when it was made. */
export interface TranscriptionJobSummary {
  readonly jobName: string;
  readonly status: TranscriptionJobState['status'];
  readonly createdAt: Date;
}

/** One page of a listing, and where the next one starts. */
export interface TranscriptionJobPage {
  readonly jobs: readonly TranscriptionJobSummary[];
  readonly nextToken?: string;
}

/**
 * Amazon Transcribe's batch jobs, as far as voice notes need them. Adapters throw the service's
 * errors (retryable or not) for calls that fail; a job that failed is a state, not an error.
 */
export interface VoiceTranscriber {
  /** Starts the job; a job of that name already started is left as it is. */
  start(job: TranscriptionJobRequest): Promise<void>;
  /** The job's state, with its transcript once completed. */
  state(jobName: string): Promise<TranscriptionJobState>;
  /**
   * Deletes an ended job and the transcript the service keeps (it holds the customer's words); a
   * job already gone is fine. The service refuses to delete a job still running (an error).
   */
  delete(jobName: string): Promise<void>;
  /** The jobs whose name contains `nameContains`, a page at a time. */
  list(nameContains: string, nextToken?: string): Promise<TranscriptionJobPage>;
}
