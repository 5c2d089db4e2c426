// What the erase-customer and export-customer commands share: which table, and the use case on it.
import { parseArgs } from 'node:util';
import { OperatorAuditTrail } from '../lambda/core/application/operator/operator-audit';
import { CustomerDataRights } from '../lambda/core/application/privacy/customer-data-rights';
import { CustomerPseudonyms } from '../lambda/core/application/privacy/customer-pseudonyms';
import { CustomerTranscriptionJobs } from '../lambda/core/application/transcription-jobs';
import { AmazonTranscribe } from '../lambda/core/adapters/aws/amazon-transcribe';
import { createMediaClient, S3MediaStore } from '../lambda/core/adapters/s3/s3-media-store';
import { SignedSqs } from '../lambda/core/adapters/sqs/sqs-api';
import { SqsDeadLetterQueue } from '../lambda/core/adapters/sqs/sqs-dead-letter-queue';
import { randomIdGenerator } from '../lambda/core/adapters/system/random-id-generator';
import { systemClock } from '../lambda/core/adapters/system/system-clock';
import { UsageError } from './cli-command';
import { PIPELINE_TARGET_OPTIONS, repositoriesOf, tableOf } from './pipeline-stack';

export const TARGET_USAGE = `  --customer <id>          the customer's WhatsApp number or user id (as stored, digits only for phones)
  --stack <name>           the deployed stack: the table comes from its outputs
  --pipeline <id>          the pipeline's construct id, when the stack holds several
  --region <region>        the stack's Region (default: AWS_REGION or the profile's)
  --table <name>           name the table directly instead (e.g. the local runtime's)
  --media-bucket <name>    with --table: the media bucket (with --stack it comes from the
                           outputs); without it the customer's attachments are not reached
  --transcription          with --table: voice notes are transcribed (media.transcription), so
                           erase the customer's Amazon Transcribe jobs too (with --stack the
                           outputs say so)
  -h, --help

Credentials and region come from the usual AWS settings (AWS_PROFILE, AWS_REGION, ...). For the
local runtime: AWS_ENDPOINT_URL_DYNAMODB=…, AWS_ENDPOINT_URL_S3=…`;

export interface CustomerCommand {
  readonly customerId: string;
  readonly tableName: string;
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
  readonly rights: CustomerDataRights;
  /** Whether the erasure reaches the dead-letter queue (from the stack's outputs, or `--dlq-url`). */
  readonly reachesDeadLetters: boolean;
  /** Who the audit says acted: the operating-system user at the terminal. */
  readonly author: string;
}

/** Parses the shared options (plus `extra`) and finds the table; `undefined` when help was asked for. */
export async function parseCustomerCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  extra: Record<string, { type: 'string' | 'boolean' }> = {},
): Promise<CustomerCommand | undefined> {
  const { values: parsed } = parseArgs({
    args: [...argv],
    options: {
      'customer': { type: 'string' },
      'media-bucket': { type: 'string' },
      'transcription': { type: 'boolean' },
      ...PIPELINE_TARGET_OPTIONS,
      ...extra,
    },
  });
  const values: Readonly<Record<string, string | boolean | undefined>> = parsed;
  if (values.help) return undefined;
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const customerId = text('customer');
  if (!customerId) throw new UsageError('Say whose data with --customer <id>.');
  if (text('media-bucket') !== undefined && text('stack') !== undefined) throw new UsageError('--media-bucket goes with --table; with --stack the bucket comes from the outputs.');
  if (values.transcription === true && text('stack') !== undefined) throw new UsageError('--transcription goes with --table; with --stack the outputs say whether voice notes are transcribed.');
  const table = await tableOf(text('stack'), text('table'), text('pipeline'), text('region'));
  if (text('dlq-url') !== undefined && table.deadLetterQueueUrl !== undefined) throw new UsageError('--dlq-url goes with --table; with --stack the queue comes from the outputs.');
  const deadLetterQueueUrl = table.deadLetterQueueUrl ?? text('dlq-url');
  const mediaBucketName = table.mediaBucketName ?? text('media-bucket');
  const repositories = repositoriesOf(table);
  const pseudonyms = new CustomerPseudonyms(repositories.customerData);
  const trail = new OperatorAuditTrail(repositories.audit, systemClock, randomIdGenerator, pseudonyms);
  const deadLetters = deadLetterQueueUrl === undefined ? undefined : new SqsDeadLetterQueue({ deadLetterQueueUrl, sqs: new SignedSqs({ region: table.region }) });
  // Keyed by the customer's pseudonym, as the functions store attachments; reached with the usual AWS settings, as the table is.
  const media =
    mediaBucketName === undefined
      ? undefined
      : new S3MediaStore({
          bucketName: mediaBucketName,
          customerKey: (id) => pseudonyms.of(id),
          client: createMediaClient({ endpoint: process.env.AWS_ENDPOINT_URL_S3 }),
          env: { ...process.env, AWS_REGION: table.region },
        });
  // The customer's Transcribe jobs, in the table's Region, named by the same pseudonym as the bucket's keys.
  const transcriptions =
    (table.transcribesVoiceNotes ?? values.transcription === true)
      ? new CustomerTranscriptionJobs(new AmazonTranscribe({ region: table.region, endpoint: process.env.AWS_ENDPOINT_URL_TRANSCRIBE }), (id) => pseudonyms.of(id))
      : undefined;
  const rights = new CustomerDataRights({ data: repositories.customerData, trail, clock: systemClock, deadLetters, media, transcriptions });
  return { customerId, tableName: table.tableName, values, rights, reachesDeadLetters: deadLetters !== undefined, author: `cli:${env.USER ?? env.USERNAME ?? 'unknown'}` };
}
