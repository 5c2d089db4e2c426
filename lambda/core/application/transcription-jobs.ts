import { createHash } from 'node:crypto';
import { MEDIA_DEFAULTS } from '../../../lib/contract';
import type { Clock } from '../ports/clock';
import type { VoiceTranscriber } from '../ports/voice-transcriber';

/**
 * Amazon Transcribe keeps a job — the customer's words — until it is deleted. Every job the turn
 * starts is named `voice-{customer pseudonym}-{hash of the object}` (docs/PRIVACY.md#media): the
 * pseudonym is the media bucket's, so the erasure finds a customer's jobs from the customer id
 * alone, and no name holds a phone number. The turn deletes a job once it read the transcript or
 * the job failed; what it could not delete (a job still running when the turn stopped waiting, a
 * turn that failed for good) the idle sweep deletes once the turn's attempts are over, and the
 * erasure deletes a customer's at once.
 */

/** The name of the job of one stored voice note of the customer `customerKey` names (`^[0-9a-zA-Z._-]+$`, at most 200). */
export function transcriptionJobName(customerKey: string, objectKey: string): string {
  return `${customerJobPrefix(customerKey)}${createHash('sha256').update(objectKey).digest('hex')}`;
}

/** What every job name of the customer starts with. */
export function customerJobPrefix(customerKey: string): string {
  return `${MEDIA_DEFAULTS.transcriptionJobPrefix}${customerKey}-`;
}

/** What a pass over the jobs did: the ended jobs it deleted, and the jobs still running it left for a later pass. */
export interface TranscriptionJobsDeleted {
  readonly deleted: number;
  readonly running: number;
}

/** Pages one pass reads at most: 2,000 jobs, far more than a pipeline starts between two sweeps. */
const MAX_PAGES = 20;

/**
 * Deletes every job whose name starts with `prefix` and that has ended (completed or failed) — with
 * `createdBefore`, only those made before it. A job still running cannot be deleted (the service
 * refuses); it is counted and left to the next pass.
 */
export async function deleteEndedJobs(transcriber: Pick<VoiceTranscriber, 'list' | 'delete'>, prefix: string, createdBefore?: Date): Promise<TranscriptionJobsDeleted> {
  let deleted = 0;
  let running = 0;
  let nextToken: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const listing = await transcriber.list(prefix, nextToken);
    for (const job of listing.jobs) {
      // The listing matches anywhere in the name; only our own names count.
      if (!job.jobName.startsWith(prefix) || (createdBefore !== undefined && job.createdAt >= createdBefore)) continue;
      if (job.status === 'in_progress') {
        running += 1;
        continue;
      }
      await transcriber.delete(job.jobName);
      deleted += 1;
    }
    nextToken = listing.nextToken;
    if (nextToken === undefined) break;
  }
  return { deleted, running };
}

export interface TranscriptionJobSweepDependencies {
  readonly transcriber: Pick<VoiceTranscriber, 'list' | 'delete'>;
  readonly clock: Clock;
  /**
   * How old a job must be before the sweep deletes it: the turn budget, the time every attempt of
   * the turn that started it can take (the queue's receives × its visibility timeout), after which
   * no turn reads it again.
   */
  readonly afterMs: number;
}

/** The idle sweeper's pass over the pipeline's jobs (docs/PRIVACY.md#media). */
export class TranscriptionJobSweep {
  constructor(private readonly deps: TranscriptionJobSweepDependencies) {}

  sweep(): Promise<TranscriptionJobsDeleted> {
    return deleteEndedJobs(this.deps.transcriber, MEDIA_DEFAULTS.transcriptionJobPrefix, new Date(this.deps.clock.now().getTime() - this.deps.afterMs));
  }
}

/** A customer's jobs, for the erasure: every one that ended, at once, whatever its age. */
export class CustomerTranscriptionJobs {
  constructor(
    private readonly transcriber: Pick<VoiceTranscriber, 'list' | 'delete'>,
    /** The customer's pseudonym, as the media bucket's keys and the job names carry it. */
    private readonly customerKey: (customerId: string) => Promise<string>,
  ) {}

  async erase(customerId: string): Promise<TranscriptionJobsDeleted> {
    return deleteEndedJobs(this.transcriber, customerJobPrefix(await this.customerKey(customerId)));
  }
}
