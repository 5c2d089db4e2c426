import type { TranscriptionJobPage, TranscriptionJobRequest, TranscriptionJobState, VoiceTranscriber } from '../../ports/voice-transcriber';
import { AWS_HOST_SUFFIXES, type DestinationRule, fetchSafely } from '../outbound/safe-destination';
import { AwsApiError, type AwsCallOptions, signedAwsPost } from './signed-aws-post';

const TRANSCRIBE = { endpointPrefix: 'transcribe', signingName: 'transcribe', endpointVariable: 'AWS_ENDPOINT_URL_TRANSCRIBE' };

/** The transcript is a presigned S3 URL of the service's: an AWS host, never a redirect, never the runtime API. */
const TRANSCRIPT_FILES: DestinationRule = { purpose: 'a transcript file', hosts: [], hostSuffixes: AWS_HOST_SUFFIXES };

type JobStatus = 'QUEUED' | 'IN_PROGRESS' | 'FAILED' | 'COMPLETED';

interface TranscriptionJob {
  readonly TranscriptionJobStatus?: JobStatus;
  readonly FailureReason?: string;
  readonly Transcript?: { readonly TranscriptFileUri?: string };
}

interface TranscriptionJobListing {
  readonly TranscriptionJobSummaries?: ReadonlyArray<{ readonly TranscriptionJobName?: string; readonly TranscriptionJobStatus?: JobStatus; readonly CreationTime?: number }>;
  readonly NextToken?: string;
}

/** A listing page: the most the service answers. */
const LIST_PAGE_SIZE = 100;

/**
 * Amazon Transcribe's batch API (AWS JSON 1.1, `Transcribe.*` targets) as signed requests, in place
 * of its SDK client. The transcript stays in the service's own storage (no write to the media
 * bucket is needed): its `TranscriptFileUri` is a presigned URL, read once, after which
 * {@link delete} removes the job and that transcript.
 */
export class AmazonTranscribe implements VoiceTranscriber {
  private readonly post;

  constructor(
    options: AwsCallOptions = {},
    /** Reads the transcript file's presigned URL. Default: `fetch` under the rule for where requests go (safe-destination.ts). */
    private readonly download: (url: string) => Promise<Response> = (url) => fetchSafely(url, TRANSCRIPT_FILES),
  ) {
    this.post = signedAwsPost(TRANSCRIBE, options);
  }

  async start({ jobName, mediaUri, mediaFormat, languageCode }: TranscriptionJobRequest): Promise<void> {
    try {
      await this.call('StartTranscriptionJob', { TranscriptionJobName: jobName, LanguageCode: languageCode, MediaFormat: mediaFormat, Media: { MediaFileUri: mediaUri } });
    } catch (error) {
      // Job names are unique per account and Region: a retry of the same attachment finds its job.
      if (!(error instanceof AwsApiError && error.name === 'ConflictException')) throw error;
    }
  }

  async state(jobName: string): Promise<TranscriptionJobState> {
    const { TranscriptionJob: job } = (await this.call('GetTranscriptionJob', { TranscriptionJobName: jobName })) as { TranscriptionJob?: TranscriptionJob };
    switch (job?.TranscriptionJobStatus) {
      case 'FAILED':
        return { status: 'failed', reason: job.FailureReason ?? 'unknown' };
      case 'COMPLETED':
        return { status: 'completed', transcript: await this.transcriptOf(job.Transcript?.TranscriptFileUri) };
      default:
        return { status: 'in_progress' };
    }
  }

  async delete(jobName: string): Promise<void> {
    try {
      await this.call('DeleteTranscriptionJob', { TranscriptionJobName: jobName });
    } catch (error) {
      // The service words a missing job as a BadRequestException ("couldn't be found"): already deleted is deleted.
      if (!(error instanceof AwsApiError && error.name === 'BadRequestException' && /couldn't be found/i.test(error.message))) throw error;
    }
  }

  async list(nameContains: string, nextToken?: string): Promise<TranscriptionJobPage> {
    const answer = (await this.call('ListTranscriptionJobs', { JobNameContains: nameContains, MaxResults: LIST_PAGE_SIZE, ...(nextToken === undefined ? {} : { NextToken: nextToken }) })) as TranscriptionJobListing;
    const jobs = (answer.TranscriptionJobSummaries ?? []).flatMap(({ TranscriptionJobName: jobName, TranscriptionJobStatus: status, CreationTime: created }) =>
      jobName === undefined || typeof created !== 'number' ? [] : [{ jobName, status: statusOf(status), createdAt: new Date(created * 1000) }],
    );
    return { jobs, ...(answer.NextToken ? { nextToken: answer.NextToken } : {}) };
  }

  private async transcriptOf(url: string | undefined): Promise<string> {
    if (url === undefined) throw new AwsApiError('MalformedTranscriptionJob', 'A completed transcription job without a transcript file', 500);
    const response = await this.download(url);
    if (!response.ok) throw new AwsApiError('TranscriptUnavailable', `The transcript file answered ${response.status}`, response.status);
    const file = (await response.json()) as { results?: { transcripts?: ReadonlyArray<{ transcript?: string }> } };
    return (file.results?.transcripts ?? []).map((part) => part.transcript ?? '').join(' ').trim();
  }

  private async call(operation: string, input: object): Promise<unknown> {
    const answer = await this.post('/', {
      headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': `Transcribe.${operation}` },
      body: new TextEncoder().encode(JSON.stringify(input)),
    });
    return JSON.parse(new TextDecoder().decode(answer.payload) || '{}') as unknown;
  }
}

/** The service's four states as the port's three: queued is still to come. */
function statusOf(status: JobStatus | undefined): TranscriptionJobState['status'] {
  return status === 'COMPLETED' ? 'completed' : status === 'FAILED' ? 'failed' : 'in_progress';
}
