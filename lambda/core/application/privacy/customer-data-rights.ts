import { PipelineError } from '../../domain/errors';
import { isValidCustomerId } from '../../domain/inbound-turn';
import { isoMicros } from '../../domain/timestamps';
import type { Clock } from '../../ports/clock';
import type { CustomerDataRepository, CustomerRecord } from '../../ports/customer-data';
import type { MediaStore } from '../../ports/media-store';
import type { OperatorAuditTrail } from '../operator/operator-audit';
import type { CustomerTranscriptionJobs } from '../transcription-jobs';
import { type DeadLetterReader, removeCustomerDeadLetters } from './customer-dead-letters';

/** A message that arrives while the erasure runs is erased too if it is seen before a clean pass. */
const MAX_ERASURE_PASSES = 5;

export class InvalidCustomerIdError extends PipelineError {
  override readonly name = 'InvalidCustomerIdError';
  override readonly code = 'invalid_customer_id';
  override readonly retryable = false;

  constructor() {
    super('A customer id is the WhatsApp phone or user id: 1 to 128 printable ASCII characters without "#"');
  }
}

/** New writes for the customer kept arriving: run the erasure again once they stop. */
export class ErasureIncompleteError extends PipelineError {
  override readonly name = 'ErasureIncompleteError';
  override readonly code = 'erasure_incomplete';
  /** Once the writes stop, the next run finishes. */
  override readonly retryable = true;

  constructor(readonly passes: number) {
    super(`The customer's data was still changing after ${passes} passes; nothing was left half-erased, run the erasure again`);
  }
}

export interface ErasureReport {
  /** What the audit calls the customer (before and after the erasure). */
  readonly customerPseudonym: string;
  /** Delete requests per kind of item (a re-run after a crash counts what it found then). */
  readonly deleted: Readonly<Record<string, number>>;
  /** Inventories read; the last one found nothing. */
  readonly passes: number;
  /** The customer's records deleted from the turn queue's dead-letter queue; absent when the erasure had no access to that queue. */
  readonly deadLettersRemoved?: number;
  /** The customer's objects deleted from the media bucket; absent without one (`media.enabled` false). */
  readonly mediaObjectsDeleted?: number;
  /** The customer's transcription jobs (their words) deleted from Amazon Transcribe; absent without `media.transcription`. */
  readonly transcriptionJobsDeleted?: number;
  /** The customer's jobs still running, which the service cannot delete yet: the idle sweep deletes them once they end. */
  readonly transcriptionJobsRunning?: number;
}

/** One attachment of the customer in the media bucket, as the export lists it (the bytes stay in the bucket). */
export interface ExportedMediaObject {
  readonly objectKey: string;
  readonly sizeBytes: number;
  /** The message whose attachment it is, and its type, from the history entry that points at it. */
  readonly messageId?: string;
  readonly mimeType?: string;
}

export interface CustomerExport {
  readonly format: 'customer-export/1';
  readonly customerId: string;
  readonly exportedAt: string;
  /** The customer's stored items by kind, attributes as stored (keys left out). */
  readonly records: Readonly<Record<string, readonly Readonly<Record<string, unknown>>[]>>;
  /** The customer's objects in the media bucket; absent without one. */
  readonly media?: readonly ExportedMediaObject[];
}

export interface CustomerDataRightsDependencies {
  readonly data: CustomerDataRepository;
  readonly trail: OperatorAuditTrail;
  readonly clock: Clock;
  /**
   * The turn queue's dead-letter queue, whose records of the customer the erasure deletes.
   * @default - none: the erasure reports that it did not reach the queue (a command run with `--table` and no `--dlq-url`)
   */
  readonly deadLetters?: DeadLetterReader;
  /**
   * The media bucket, whose objects of the customer the erasure deletes and the export lists.
   * @default - none (`media.enabled` false)
   */
  readonly media?: MediaStore;
  /**
   * The customer's voice-note transcription jobs in Amazon Transcribe, which the erasure deletes.
   * @default - none (`media.transcription` off)
   */
  readonly transcriptions?: Pick<CustomerTranscriptionJobs, 'erase'>;
}

/**
 * The data subject's rights over what the pipeline stores: erasure (everything, by key) and access
 * (one JSON document). See docs/PRIVACY.md.
 */
export class CustomerDataRights {
  constructor(private readonly deps: CustomerDataRightsDependencies) {}

  /**
   * Deletes the customer's attachments from the media bucket first (their keys come from the
   * customer id alone, so none is left when the history pointing at them is gone) and their
   * transcription jobs (named by the same pseudonym; one still running, its audio gone, is left to
   * the idle sweep), then every item of the customer, dependents before the anchors that lead to
   * them, reading the inventory again until a pass finds nothing; then the customer's dead-lettered turns.
   * Idempotent: after a crash, run it again. The audit names the customer by pseudonym only.
   *
   * Turn records of the customer still in the turn queue are left there: their turn finds nothing
   * pending (the receipts and the marker are gone) and completes without writing or sending.
   */
  async erase(customerId: string, author: string): Promise<ErasureReport> {
    assertCustomerId(customerId);
    const media = { ...(this.deps.media && { mediaObjectsDeleted: await this.deps.media.deleteCustomerObjects(customerId) }), ...(await this.eraseTranscriptionJobs(customerId)) };
    const deleted: Record<string, number> = {};
    let passes = 0;
    for (;;) {
      if (passes === MAX_ERASURE_PASSES) throw new ErasureIncompleteError(passes);
      passes++;
      const { dependents, anchors } = await this.deps.data.inventory(customerId);
      if (dependents.length === 0 && anchors.length === 0) break;
      await this.deps.data.remove(dependents);
      await this.deps.data.remove(anchors);
      for (const record of [...dependents, ...anchors]) deleted[record.kind] = (deleted[record.kind] ?? 0) + 1;
    }
    const deadLetters = this.deps.deadLetters && { deadLettersRemoved: await removeCustomerDeadLetters(this.deps.deadLetters, customerId) };
    await this.deps.trail.record({ author, action: 'customer.erase', resourceType: 'customer', resourceId: customerId, details: { deleted, passes, ...deadLetters, ...media } });
    return { customerPseudonym: await this.deps.trail.pseudonyms.of(customerId), deleted, passes, ...deadLetters, ...media };
  }

  private async eraseTranscriptionJobs(customerId: string): Promise<Pick<ErasureReport, 'transcriptionJobsDeleted' | 'transcriptionJobsRunning'>> {
    if (this.deps.transcriptions === undefined) return {};
    const { deleted, running } = await this.deps.transcriptions.erase(customerId);
    return { transcriptionJobsDeleted: deleted, transcriptionJobsRunning: running };
  }

  /** Everything stored about the customer as one document; the access is audited by pseudonym. */
  async export(customerId: string, author: string): Promise<CustomerExport> {
    assertCustomerId(customerId);
    const { dependents, anchors } = await this.deps.data.inventory(customerId, { contents: true });
    const records: Record<string, Readonly<Record<string, unknown>>[]> = {};
    for (const record of [...anchors, ...dependents]) (records[record.kind] ??= []).push(attributesOf(record));
    const media = this.deps.media && { media: mediaObjectsOf(await this.deps.media.listCustomerObjects(customerId), records) };
    await this.deps.trail.record({ author, action: 'customer.export', resourceType: 'customer', resourceId: customerId });
    return { format: 'customer-export/1', customerId, exportedAt: isoMicros(this.deps.clock.now()), records, ...media };
  }
}

function assertCustomerId(customerId: string): void {
  if (typeof customerId !== 'string' || !isValidCustomerId(customerId)) throw new InvalidCustomerIdError();
}

/** Each object with the message whose history entry points at it (its `media.object_key`). */
function mediaObjectsOf(objects: readonly { readonly objectKey: string; readonly sizeBytes: number }[], records: Readonly<Record<string, readonly Readonly<Record<string, unknown>>[]>>): ExportedMediaObject[] {
  const entries = new Map<string, { messageId?: string; mimeType?: string }>();
  for (const attributes of Object.values(records).flat()) {
    const media = attributes.media as Record<string, unknown> | undefined;
    if (typeof media?.object_key !== 'string') continue;
    entries.set(media.object_key, { messageId: typeof attributes.message_id === 'string' ? attributes.message_id : undefined, mimeType: typeof media.mime_type === 'string' ? media.mime_type : undefined });
  }
  return objects.map(({ objectKey, sizeBytes }) => {
    const entry = entries.get(objectKey);
    return { objectKey, sizeBytes, ...(entry?.messageId === undefined ? {} : { messageId: entry.messageId }), ...(entry?.mimeType === undefined ? {} : { mimeType: entry.mimeType }) };
  });
}

function attributesOf(record: CustomerRecord): Readonly<Record<string, unknown>> {
  return record.attributes ?? {};
}
