import { Duration, Token } from 'aws-cdk-lib';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import type { AgentPipelineProps } from '../agent-pipeline-props';
import { MEDIA_DEFAULTS, type MediaOptions, RETENTION_DEFAULTS } from '../contract';
import type { MediaTranscriptionProps } from '../media-props';
import { acceptFinding } from './accepted-findings';
import type { PipelineSettings } from './pipeline-settings';

/** The media bucket and what the functions that store, read and erase attachments are told of it. */
export interface MediaBucket {
  readonly bucket: s3.IBucket;
  /** The bucket, the limits and the transcription: the share of the plan of the functions that store and read attachments. */
  readonly media: MediaOptions;
  /** `media.transcription` is on: the orchestrator starts, reads and deletes transcription jobs. */
  readonly transcribesVoiceNotes: boolean;
  /** The stack outputs the erase and export commands find the bucket and the job names by. */
  readonly outputs: { readonly mediaBucketName: string; readonly transcriptionJobPrefix?: string };
}

/**
 * The bucket attachments are downloaded into (`media`), or undefined when media is off. Validated
 * here so a wrong limit fails the synth, not a turn.
 */
export function mediaBucket(scope: Construct, settings: PipelineSettings, props: Pick<AgentPipelineProps, 'media' | 'encryptionKey' | 'conversationRetention'>): MediaBucket | undefined {
  const media = props.media ?? {};
  const fail = (problem: string): never => {
    throw new Error(`AgentPipeline at '${scope.node.path}': ${problem}`);
  };
  if (media.enabled === false) {
    if (media.existingBucket !== undefined) fail('media.existingBucket is set but media.enabled is false: remove one of them.');
    if (media.transcription !== undefined) fail('media.transcription is set but media.enabled is false: voice notes are transcribed from the media bucket, so turn media on or remove media.transcription.');
    return undefined;
  }
  const maxBytes = media.maxBytes ?? MEDIA_DEFAULTS.maxBytes;
  if (!Token.isUnresolved(maxBytes) && (!Number.isInteger(maxBytes) || maxBytes < 1 || maxBytes > MEDIA_DEFAULTS.maxBytesLimit)) {
    fail(`media.maxBytes must be a whole number of bytes from 1 to ${MEDIA_DEFAULTS.maxBytesLimit} (100 MiB, Meta's largest document); got ${maxBytes}.`);
  }
  const allowedMimeTypes = media.allowedMimeTypes ?? [...MEDIA_DEFAULTS.allowedMimeTypes];
  if (allowedMimeTypes.length === 0) fail('media.allowedMimeTypes is empty, so every attachment would be refused: list the types to keep, or set media.enabled to false.');
  const malformed = allowedMimeTypes.find((type) => !Token.isUnresolved(type) && !/^[a-z0-9.+-]+\/([a-z0-9.+-]+|\*)$/.test(type));
  if (malformed !== undefined) fail(`media.allowedMimeTypes has '${malformed}', which is not a MIME type: write it as 'image/jpeg' or a family as 'image/*' (lowercase).`);
  const bucket = media.existingBucket ?? buildBucket(scope, settings, props.encryptionKey, props.conversationRetention ?? Duration.days(RETENTION_DEFAULTS.conversationDays));
  return {
    bucket,
    media: {
      bucketName: bucket.bucketName,
      maxBytes,
      allowedMimeTypes,
      ...(media.transcription !== undefined && { transcription: transcriptionOptions(media.transcription, settings, fail) }),
    },
    transcribesVoiceNotes: media.transcription !== undefined,
    outputs: { mediaBucketName: bucket.bucketName, transcriptionJobPrefix: media.transcription === undefined ? undefined : MEDIA_DEFAULTS.transcriptionJobPrefix },
  };
}

/**
 * `media.transcription` for the orchestrator, checked here: a wait the turn cannot afford would
 * time the invocation out before the agent answers. The wait's default depends on the
 * orchestrator's timeout, so it is decided here; the language's is the locale's.
 */
function transcriptionOptions(transcription: MediaTranscriptionProps, settings: PipelineSettings, fail: (problem: string) => never): NonNullable<MediaOptions['transcription']> {
  const { languageCode } = transcription;
  if (languageCode !== undefined && !Token.isUnresolved(languageCode) && !/^[a-z]{2,3}-[A-Z]{2}$/.test(languageCode)) {
    fail(`media.transcription.languageCode '${languageCode}' is not a language code as Amazon Transcribe names it: write it as 'pt-BR', 'en-US' or 'es-US' (language, hyphen, region).`);
  }
  const longestWaitSeconds = Math.floor(settings.orchestratorTimeout.toSeconds() / 2);
  const maxWaitSeconds = transcription.maxWait === undefined ? Math.min(MEDIA_DEFAULTS.transcriptionMaxWaitSeconds, longestWaitSeconds) : transcription.maxWait.toMilliseconds() / 1000;
  if (!Number.isInteger(maxWaitSeconds) || maxWaitSeconds < 1 || maxWaitSeconds > longestWaitSeconds) {
    fail(
      `media.transcription.maxWait (${maxWaitSeconds} s) must be a whole number of seconds from 1 to half of orchestratorTimeout (${longestWaitSeconds} s), so the agent keeps the rest of the turn: ` +
        'lower media.transcription.maxWait or raise orchestratorTimeout (and visibilityTimeout with it).',
    );
  }
  return { ...(languageCode !== undefined && { languageCode }), maxWaitMs: maxWaitSeconds * 1000 };
}

/**
 * Private, TLS-only and owned by the account (no ACLs); without versions, so an erasure's delete
 * removes the bytes. Objects expire `retention` after they were stored: the retention of a closed
 * conversation, which a conversation's attachments never outlive.
 */
function buildBucket(scope: Construct, settings: PipelineSettings, encryptionKey: kms.IKey | undefined, retention: Duration): s3.Bucket {
  const bucket = new s3.Bucket(scope, 'MediaBucket', {
    encryption: encryptionKey ? s3.BucketEncryption.KMS : s3.BucketEncryption.S3_MANAGED,
    encryptionKey,
    bucketKeyEnabled: encryptionKey !== undefined,
    enforceSSL: true,
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    versioned: false,
    lifecycleRules: [{ expiration: Duration.days(Math.max(1, Math.ceil(retention.toDays({ integral: false })))), abortIncompleteMultipartUploadAfter: Duration.days(1) }],
    removalPolicy: settings.removalPolicy,
  });
  const accessLogsReason =
    "Access logs would copy every object key, each naming a customer's pseudonym, into a bucket the customer's erasure does not reach; the orchestrator and the operator function log every store, read and erasure.";
  acceptFinding(bucket, 'S1', accessLogsReason);
  acceptFinding(bucket, 'S3BucketLoggingEnabled', accessLogsReason);
  acceptFinding(bucket, 'S3BucketReplicationEnabled', 'Attachments are copies of what WhatsApp delivered, kept for the conversation retention; a replica would be one more copy for an erasure to reach.');
  acceptFinding(bucket, 'S3BucketVersioningEnabled', "Versioning is off so that an erasure's delete removes the bytes: a noncurrent version would outlive the customer's erasure.");
  acceptFinding(bucket, 'S3BucketDefaultLockEnabled', "Object Lock would keep a customer's attachments from their erasure.");
  if (encryptionKey === undefined) acceptFinding(bucket, 'S3DefaultEncryptionKMS', 'Without encryptionKey the bucket uses S3-managed keys (SSE-S3); pass encryptionKey to encrypt the attachments with it.');
  return bucket;
}
