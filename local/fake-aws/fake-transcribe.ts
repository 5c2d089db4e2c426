import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type LoopbackServer, serveOnLoopback } from './loopback-server';
import type { AwsPermissionCheck } from './permission-check';
import { readBody } from './request-body';

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
}

interface FakeJob {
  readonly mediaUri: string;
  readonly languageCode: string;
  polls: number;
}

/**
 * A stand-in for Amazon Transcribe's batch API on 127.0.0.1: `StartTranscriptionJob` (a second
 * start of a name is a `ConflictException`), `GetTranscriptionJob` (in progress for
 * `pollsUntilDone` reads, then completed with a transcript file served here, as the service's
 * presigned URL would be) and `DeleteTranscriptionJob`.
 */
export class FakeTranscribe {
  static async start(options: FakeTranscribeOptions): Promise<FakeTranscribe> {
    const fake = new FakeTranscribe(options);
    fake.http = await serveOnLoopback(
      (request, response) => fake.handle(request, response),
      (response, error) => sendJson(response, 500, { __type: 'InternalFailureException', message: String(error) }),
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

  private transcriptOf(mediaUri: string): string | undefined {
    const { transcripts } = this.options;
    return typeof transcripts === 'function' ? transcripts(mediaUri) : transcripts.get(mediaUri);
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readBody(request);
    if (request.method === 'GET' && request.url?.startsWith('/transcripts/')) {
      const name = decodeURIComponent(request.url.slice('/transcripts/'.length));
      const job = this.jobs.get(name);
      if (job === undefined) return void sendJson(response, 404, { message: 'NoSuchKey' });
      return void sendJson(response, 200, { jobName: name, status: 'COMPLETED', results: { transcripts: [{ transcript: this.transcriptOf(job.mediaUri) }], items: [] } });
    }
    if (!request.headers.authorization?.startsWith('AWS4-HMAC-SHA256 ')) return void sendJson(response, 400, { __type: 'UnrecognizedClientException', message: 'The request was not signed' });
    const refusal = await this.options.permissions?.({ service: 'transcribe', method: request.method ?? 'POST', path: request.url ?? '/', headers: request.headers, body });
    if (refusal !== undefined) return void sendJson(response, 400, { __type: 'AccessDeniedException', message: refusal });
    const input = JSON.parse(body || '{}') as { TranscriptionJobName?: string; LanguageCode?: string; Media?: { MediaFileUri?: string } };
    const name = input.TranscriptionJobName ?? '';
    const job = this.jobs.get(name);
    switch (request.headers['x-amz-target']) {
      case 'Transcribe.StartTranscriptionJob':
        this.starts.set(name, (this.starts.get(name) ?? 0) + 1);
        if (job !== undefined) return void sendJson(response, 400, { __type: 'ConflictException', message: 'The requested job name already exists. Use a different job name.' });
        this.jobs.set(name, { mediaUri: input.Media?.MediaFileUri ?? '', languageCode: input.LanguageCode ?? '', polls: 0 });
        this.pollsNeeded.set(name, this.pollsUntilDone);
        this.started.push(name);
        return void sendJson(response, 200, { TranscriptionJob: { TranscriptionJobName: name, TranscriptionJobStatus: 'IN_PROGRESS' } });
      case 'Transcribe.GetTranscriptionJob': {
        if (job === undefined) return void sendJson(response, 400, { __type: 'NotFoundException', message: "The requested job couldn't be found." });
        if (this.readsFailUntilStartedAgain && this.starts.get(name) === 1) return void sendJson(response, 500, { __type: 'InternalFailureException', message: 'The service is unavailable.' });
        job.polls++;
        if (job.polls <= (this.pollsNeeded.get(name) ?? this.pollsUntilDone)) return void sendJson(response, 200, { TranscriptionJob: { TranscriptionJobName: name, TranscriptionJobStatus: 'IN_PROGRESS' } });
        if (this.transcriptOf(job.mediaUri) === undefined) {
          return void sendJson(response, 200, { TranscriptionJob: { TranscriptionJobName: name, TranscriptionJobStatus: 'FAILED', FailureReason: 'The media file could not be read.' } });
        }
        const TranscriptFileUri = `${this.endpoint}/transcripts/${encodeURIComponent(name)}`;
        return void sendJson(response, 200, { TranscriptionJob: { TranscriptionJobName: name, TranscriptionJobStatus: 'COMPLETED', Transcript: { TranscriptFileUri } } });
      }
      case 'Transcribe.DeleteTranscriptionJob':
        this.jobs.delete(name);
        return void sendJson(response, 200, {});
      default:
        return void sendJson(response, 400, { __type: 'UnknownOperationException', message: `Unsupported ${String(request.headers['x-amz-target'])}` });
    }
  }
}

function sendJson(response: ServerResponse, status: number, body: object): void {
  response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': randomUUID() });
  response.end(JSON.stringify(body));
}
