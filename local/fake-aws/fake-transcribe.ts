import type { IncomingMessage, ServerResponse } from 'node:http';
import { type LoopbackServer, serveOnLoopback } from './loopback-server';
import type { AwsPermissionCheck } from './permission-check';
import { readBody } from './request-body';
import { sendAwsJson } from './service-answers';

export interface FakeTranscribeOptions {
  /**
   * The words of each audio, by its `MediaFileUri` (a map, or a function of it for audio whose key
   * the caller learns late). Audio without words fails its job (`FailureReason`).
   */
  readonly transcripts: ReadonlyMap<string, string> | ((mediaUri: string) => string | undefined);
  /** `GetTranscriptionJob` calls a job answers `IN_PROGRESS` before it completes. Default 1. */
  readonly pollsUntilDone?: number;
  /** Checks each signed request as IAM would. Default: everything is allowed. */
  readonly permissions?: AwsPermissionCheck;
  /** Where a completed job's transcript is said to be. Default: this server's own `/transcripts/{job}`. */
  readonly transcriptFileUri?: (jobName: string, endpoint: string) => string;
}

interface FakeJob {
  readonly mediaUri: string;
  readonly languageCode: string;
  polls: number;
  /** Epoch milliseconds. */
  createdAt: number;
  /** The job has ended (completed, or failed for audio without words). */
  ended: boolean;
}

/** The largest listing page the service answers. */
const MAX_LIST_PAGE = 100;

/**
 * A stand-in for Amazon Transcribe's batch API on 127.0.0.1: `StartTranscriptionJob` (a second
 * start of a name is a `ConflictException`), `GetTranscriptionJob` (in progress for
 * `pollsUntilDone` reads, then completed with a transcript file served here, as the service's
 * presigned URL would be), `ListTranscriptionJobs` (by `JobNameContains`, a page at a time) and
 * `DeleteTranscriptionJob`, which refuses a job still running or not there (`BadRequestException`),
 * as the service does. A job nobody reads ends when {@link finishRunning} says so.
 */
export class FakeTranscribe {
  static async start(options: FakeTranscribeOptions): Promise<FakeTranscribe> {
    const fake = new FakeTranscribe(options);
    fake.http = await serveOnLoopback(
      (request, response) => fake.handle(request, response),
      (response, error) => sendAwsJson(response, 500, { __type: 'InternalFailureException', message: String(error) }),
    );
    return fake;
  }

  /** Every job started and not deleted, by name. */
  readonly jobs = new Map<string, FakeJob>();
  /** The name of every job started, in order, deleted or not (a start of a name that exists is refused, not counted). */
  readonly started: string[] = [];
  private http!: LoopbackServer;
  /** Per job: the reads it answers `IN_PROGRESS`, as set when it started. */
  private readonly pollsNeeded = new Map<string, number>();
  /** Per job: how often it was started (a retry's start is a conflict). */
  private readonly starts = new Map<string, number>();
  private pollsUntilDone: number;
  private readsFailUntilStartedAgain = false;

  private constructor(private readonly options: FakeTranscribeOptions) {
    this.pollsUntilDone = options.pollsUntilDone ?? 1;
  }

  /** Jobs started from now on answer `IN_PROGRESS` for `polls` reads before they complete. */
  setPollsUntilDone(polls: number): void {
    this.pollsUntilDone = polls;
  }

  /** Every job still running ends now (completes, or fails for audio without words), as the service's would in the end. */
  finishRunning(): void {
    for (const job of this.jobs.values()) job.ended = true;
  }

  /** Every job's creation moves `ms` into the past, as if the jobs had been started that much earlier. */
  backdate(ms: number): void {
    for (const job of this.jobs.values()) job.createdAt -= ms;
  }

  /**
   * While on, a job's reads fail (HTTP 500, as an outage would) until it is started once more: the
   * attempt that started it fails, and its retry, whose start finds the job, reads it.
   */
  setReadsFailUntilStartedAgain(on: boolean): void {
    this.readsFailUntilStartedAgain = on;
  }

  get endpoint(): string {
    return this.http.endpoint;
  }

  close(): Promise<void> {
    return this.http.close();
  }

  /**
   * The jobs whose name contains `contains`, newest first, `pageSize` after the job `nextToken`
   * names: a cursor, so jobs deleted between two pages shift nothing.
   */
  private listing(contains: string, pageSize: number, nextToken: string | undefined): object {
    const order = ([nameA, a]: [string, FakeJob], [nameB, b]: [string, FakeJob]) => b.createdAt - a.createdAt || nameA.localeCompare(nameB);
    const matching = [...this.jobs].filter(([name]) => name.includes(contains)).sort(order);
    const after = nextToken === undefined ? undefined : (JSON.parse(nextToken) as [string, number]);
    const rest = after === undefined ? matching : matching.filter((entry) => order(entry, [after[0], { createdAt: after[1] } as FakeJob]) > 0);
    const page = rest.slice(0, Math.min(pageSize, MAX_LIST_PAGE));
    const last = page.at(-1);
    return {
      TranscriptionJobSummaries: page.map(([name, job]) => ({ TranscriptionJobName: name, CreationTime: job.createdAt / 1000, TranscriptionJobStatus: statusOf(job, this.transcriptOf(job.mediaUri)), LanguageCode: job.languageCode })),
      ...(rest.length > page.length && last !== undefined ? { NextToken: JSON.stringify([last[0], last[1].createdAt]) } : {}),
    };
  }

  private transcriptOf(mediaUri: string): string | undefined {
    const { transcripts } = this.options;
    return typeof transcripts === 'function' ? transcripts(mediaUri) : transcripts.get(mediaUri);
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readBody(request);
    if (request.method === 'GET' && request.url?.startsWith('/transcripts/')) {
      const name = decodeURIComponent(request.url.slice('/transcripts/'.length));
      const job = this.jobs.get(name);
      if (job === undefined) return void sendAwsJson(response, 404, { message: 'NoSuchKey' });
      return void sendAwsJson(response, 200, { jobName: name, status: 'COMPLETED', results: { transcripts: [{ transcript: this.transcriptOf(job.mediaUri) }], items: [] } });
    }
    if (!request.headers.authorization?.startsWith('AWS4-HMAC-SHA256 ')) return void sendAwsJson(response, 400, { __type: 'UnrecognizedClientException', message: 'The request was not signed' });
    const refusal = await this.options.permissions?.({ service: 'transcribe', method: request.method ?? 'POST', path: request.url ?? '/', headers: request.headers, body });
    if (refusal !== undefined) return void sendAwsJson(response, 400, { __type: 'AccessDeniedException', message: refusal });
    const input = JSON.parse(body || '{}') as { TranscriptionJobName?: string; LanguageCode?: string; Media?: { MediaFileUri?: string }; JobNameContains?: string; MaxResults?: number; NextToken?: string };
    const name = input.TranscriptionJobName ?? '';
    const job = this.jobs.get(name);
    switch (request.headers['x-amz-target']) {
      case 'Transcribe.StartTranscriptionJob':
        this.starts.set(name, (this.starts.get(name) ?? 0) + 1);
        if (job !== undefined) return void sendAwsJson(response, 400, { __type: 'ConflictException', message: 'The requested job name already exists. Use a different job name.' });
        this.jobs.set(name, { mediaUri: input.Media?.MediaFileUri ?? '', languageCode: input.LanguageCode ?? '', polls: 0, createdAt: Date.now(), ended: false });
        this.pollsNeeded.set(name, this.pollsUntilDone);
        this.started.push(name);
        return void sendAwsJson(response, 200, { TranscriptionJob: { TranscriptionJobName: name, TranscriptionJobStatus: 'IN_PROGRESS' } });
      case 'Transcribe.GetTranscriptionJob': {
        if (job === undefined) return void sendAwsJson(response, 400, { __type: 'NotFoundException', message: "The requested job couldn't be found." });
        if (this.readsFailUntilStartedAgain && this.starts.get(name) === 1) return void sendAwsJson(response, 500, { __type: 'InternalFailureException', message: 'The service is unavailable.' });
        job.polls++;
        if (job.polls > (this.pollsNeeded.get(name) ?? this.pollsUntilDone)) job.ended = true;
        if (!job.ended) return void sendAwsJson(response, 200, { TranscriptionJob: { TranscriptionJobName: name, TranscriptionJobStatus: 'IN_PROGRESS' } });
        if (this.transcriptOf(job.mediaUri) === undefined) {
          return void sendAwsJson(response, 200, { TranscriptionJob: { TranscriptionJobName: name, TranscriptionJobStatus: 'FAILED', FailureReason: 'The media file could not be read.' } });
        }
        const TranscriptFileUri = this.options.transcriptFileUri?.(name, this.endpoint) ?? `${this.endpoint}/transcripts/${encodeURIComponent(name)}`;
        return void sendAwsJson(response, 200, { TranscriptionJob: { TranscriptionJobName: name, TranscriptionJobStatus: 'COMPLETED', Transcript: { TranscriptFileUri } } });
      }
      case 'Transcribe.ListTranscriptionJobs':
        return void sendAwsJson(response, 200, this.listing(input.JobNameContains ?? '', input.MaxResults ?? MAX_LIST_PAGE, input.NextToken));
      case 'Transcribe.DeleteTranscriptionJob':
        if (job === undefined) return void sendAwsJson(response, 400, { __type: 'BadRequestException', message: "The requested job couldn't be found. Check the job name and try your request again." });
        if (!job.ended) return void sendAwsJson(response, 400, { __type: 'BadRequestException', message: 'The job is still in progress; it can be deleted once it ends.' });
        this.jobs.delete(name);
        return void sendAwsJson(response, 200, {});
      default:
        return void sendAwsJson(response, 400, { __type: 'UnknownOperationException', message: `Unsupported ${String(request.headers['x-amz-target'])}` });
    }
  }
}

/** The job's status as the service words it. */
function statusOf(job: FakeJob, transcript: string | undefined): string {
  if (!job.ended) return 'IN_PROGRESS';
  return transcript === undefined ? 'FAILED' : 'COMPLETED';
}
