import type { Duration } from 'aws-cdk-lib';
import type * as s3 from 'aws-cdk-lib/aws-s3';

/**
 * The attachments customers send (images, documents, audio, video, stickers): the orchestrator
 * downloads each one from WhatsApp in the customer's turn — never on the webhook path — into the
 * pipeline's media bucket, within the limits below. An attachment refused or that could not be
 * downloaded leaves the message as text, with a note the agent reads. See docs/PRIVACY.md#media.
 */
export interface MediaProps {
  /**
   * Whether attachments are downloaded and kept. Off, no bucket is created and a message with an
   * attachment reaches the agent and the history as its placeholder text (`[image]`).
   *
   * @default true
   */
  readonly enabled?: boolean;

  /**
   * The bucket the attachments are stored in, instead of one the pipeline creates. Its lifecycle,
   * encryption and access are the consumer's: the pipeline writes under `media/` only, and its
   * erasure deletes a customer's objects there. A customer managed key of the bucket is granted
   * through S3 only.
   *
   * @default - a bucket the pipeline creates: encrypted with `encryptionKey` (else S3-managed keys), TLS only, no public access, objects expiring after `conversationRetention`
   */
  readonly existingBucket?: s3.IBucket;

  /**
   * The largest attachment kept, in bytes (1 to 100 MiB, Meta's largest document). A larger one is
   * refused (`too_large`) before its bytes are downloaded, from the size the Graph API reports.
   *
   * @default 16777216 (16 MiB: Meta's limit for audio and video)
   */
  readonly maxBytes?: number;

  /**
   * The MIME types kept (exact, or a family as `image/*`). Any other is refused (`type_not_allowed`).
   *
   * @default - the types Meta accepts on WhatsApp: JPEG, PNG and WebP images, MP4 and 3GPP video, AAC, AMR, MPEG, MP4 and OGG audio, PDF, plain text and the Office documents
   */
  readonly allowedMimeTypes?: string[];

  /**
   * Voice notes transcribed with Amazon Transcribe in the customer's turn: the transcript is what
   * the agent and the history read, and the audio stays in the bucket for the operators. A voice
   * note whose transcript does not come within `maxWait`, whose job fails or whose format the
   * service does not read goes on as text with a note the agent reads. Transcribe bills each
   * second of audio (https://aws.amazon.com/transcribe/pricing/). Only with media on.
   *
   * @default - off: a voice note reaches the agent as a note that it cannot hear it
   */
  readonly transcription?: MediaTranscriptionProps;
}

/**
 * How voice notes are transcribed (`media.transcription`). The orchestrator starts one batch job
 * per voice note (named by a hash of the object, naming no customer), waits for it within the turn,
 * reads the transcript and deletes the job, which holds the customer's words.
 */
export interface MediaTranscriptionProps {
  /**
   * The language the voice notes are spoken in, as Amazon Transcribe names it (`pt-BR`, `en-US`,
   * `es-US`…; see https://docs.aws.amazon.com/transcribe/latest/dg/supported-languages.html).
   *
   * @default - the pipeline's `locale`: `pt-BR` for Locale.PT_BR (and no locale), `en-US` for Locale.EN, `es-US` for Locale.ES
   */
  readonly languageCode?: string;

  /**
   * How long a turn waits for a voice note's transcript before it goes on without it. At most half
   * of `orchestratorTimeout`, so that the agent keeps the other half of the turn.
   *
   * @default - 30 seconds, or half of `orchestratorTimeout` when that is shorter
   */
  readonly maxWait?: Duration;
}
