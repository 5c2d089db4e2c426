// Investigate before redrive: `npx cdk-whatsapp-agent-pipeline redrive --stack <stack>` shows, for
// every turn in the dead-letter queue, what the table knows about its message and what a redrive
// would do; `--apply` does what is safe. Uses the operator's AWS credentials, or the local
// runtime's endpoints.
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { resolveRegion } from './aws-region';
import { type CliCommand, type CommandOutput, runCommand, UsageError } from './cli-command';
import { EXIT_CODES } from './cli-failure';
import { describePipelineStack, PIPELINE_TARGET_OPTIONS, repositoriesOf, type PipelineResources } from './pipeline-stack';
import { SignedSqs } from '../lambda/core/adapters/sqs/sqs-api';
import { SqsDeadLetterQueue } from '../lambda/core/adapters/sqs/sqs-dead-letter-queue';
import { RedriveDeadLetters, type RedriveAction } from '../lambda/core/application/redrive-dead-letters';
import type { DeadLetterInspection } from '../lambda/core/domain/dead-letter-verdict';

const USAGE = `Usage:
  npx cdk-whatsapp-agent-pipeline redrive --stack <stack name> [--pipeline <id>] [--region <region>] [--apply] [--yes]
  npx cdk-whatsapp-agent-pipeline redrive --table <name> --queue-url <url> --dlq-url <url> [--apply] [--yes]

Inspects every turn in the dead-letter queue: its receipt, the customer's latest message, pending
list and outbox, the active session, and the replies already recorded for it. Then, per record:
  drop      the message was consumed already: the record is deleted from the DLQ
  redrive   no reply was sent: the message goes back to its customer's turn
  complete  a reply was already sent: the redriven turn only completes the bookkeeping
  confirm   something is unusual: nothing happens unless you confirm

Options:
  --stack <name>           the deployed stack: the table and queues come from its outputs
  --pipeline <id>          the pipeline's construct id, when the stack holds several
  --region <region>        the stack's Region (default: AWS_REGION or the profile's)
  --table, --queue-url, --dlq-url   name the resources directly instead (e.g. the local runtime's)
  --apply                  act (default: a dry run that changes nothing)
  --yes                    also carry out the "confirm" records without asking
                           (without it, a terminal asks for each one; otherwise they stay in the DLQ)
  -h, --help

Credentials come from the usual AWS settings (AWS_PROFILE, AWS_REGION, ...); the identity needs
what AgentPipeline.grantRedrive() grants. For the local runtime, point the SDK at its servers:
AWS_ENDPOINT_URL_DYNAMODB=… AWS_ENDPOINT_URL_SQS=…`;

/** The pipeline's table and queues, and the Region of the clients that reach them. */
async function resolveTarget(values: Record<string, string | boolean | undefined>): Promise<PipelineResources & { readonly region: string }> {
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const [stack, tableName, queueUrl, deadLetterQueueUrl] = [text('stack'), text('table'), text('queue-url'), text('dlq-url')];
  if (stack !== undefined) {
    if (tableName || queueUrl || deadLetterQueueUrl) throw new UsageError('Give either --stack or --table, --queue-url and --dlq-url, not both.');
    const region = await resolveRegion(text('region'));
    return { ...(await describePipelineStack(stack, text('pipeline'), region)), region };
  }
  if (!tableName || !queueUrl || !deadLetterQueueUrl) throw new UsageError('Name the deployed stack with --stack, or give --table, --queue-url and --dlq-url.');
  return { tableName, turnQueueUrl: queueUrl, deadLetterQueueUrl, region: await resolveRegion(text('region')) };
}

async function redrive(argv: string[], output: CommandOutput): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...PIPELINE_TARGET_OPTIONS,
      'queue-url': { type: 'string' },
      'dlq-url': { type: 'string' },
      'apply': { type: 'boolean' },
      'yes': { type: 'boolean' },
    },
  });
  if (values.help) {
    output.out(USAGE);
    return EXIT_CODES.done;
  }
  const target = await resolveTarget(values);
  const { region } = target;
  const sqs = new SignedSqs({ region });
  const apply = values.apply === true;
  const prompt = apply && !values.yes && process.stdin.isTTY ? createInterface({ input: process.stdin, output: process.stdout }) : undefined;
  const confirm = async (inspection: DeadLetterInspection): Promise<boolean> => {
    if (values.yes) return true;
    if (!prompt) return false;
    const answer = await prompt.question(`${inspection.onConfirm} record ${inspection.recordId} (customer ${inspection.customer ?? '?'})? [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  };

  output.out(`${apply ? 'Redriving' : 'Dry run (nothing changes; --apply to act)'}: ${target.deadLetterQueueUrl} → ${target.turnQueueUrl}, table ${target.tableName}\n`);
  const counts = new Map<RedriveAction, number>();
  try {
    const deadLetters = new SqsDeadLetterQueue({ ...target, sqs });
    await new RedriveDeadLetters({ ...repositoriesOf({ tableName: target.tableName, region }), deadLetters }).run({
      apply,
      confirm,
      onOutcome: ({ inspection, action }) => {
        counts.set(action, (counts.get(action) ?? 0) + 1);
        output.out(`${describeInspection(inspection, action)}\n`);
      },
    });
  } finally {
    prompt?.close();
  }
  const summary = [...counts].map(([action, count]) => `${count} ${action}`).join(', ');
  output.out(summary === '' ? 'The dead-letter queue is empty.' : `Done: ${summary}.`);
  return (counts.get('held') ?? 0) > 0 ? EXIT_CODES.unfinished : EXIT_CODES.done;
}

/** A record's inspection as the operator reads it. */
function describeInspection(inspection: DeadLetterInspection, action: RedriveAction): string {
  const { receipt, latest, outbox, session } = inspection;
  const markers = receipt
    ? (['registeredAt', 'agentRoutedAt', 'humanRoutedAt', 'dispatchedAt', 'completedAt', 'deadLetteredAt'] as const)
        .flatMap((marker) => (receipt[marker] ? [`${marker.replace(/At$/, '')} ${receipt[marker]}`] : []))
        .join(', ')
    : 'none';
  return [
    `record ${inspection.recordId} · received ${inspection.receiveCount}× · queued ${inspection.queuedAt ?? '?'}`,
    `  customer   ${inspection.customer ?? '?'} · message ${inspection.messageId ?? '?'}`,
    `  receipt    ${markers}`,
    `  latest     ${latest ? `${latest.latestMessageId ?? '-'} · pending [${latest.pendingMessageIds.join(', ')}]${latest.invalidatedAt ? ` · invalidated ${latest.invalidatedAt}` : ''}` : 'none'}`,
    `  outbox     ${outbox ? `${outbox.messageId} (${outbox.status}) answering ${outbox.replyTo}` : 'empty'}`,
    `  session    ${session ? `${session.sessionId} · ${session.state} · updated ${session.updatedAt}` : 'none'}`,
    `  parked     ${inspection.parked.length > 0 ? inspection.parked.map((message) => message.messageId).join(', ') : 'none'}`,
    `  replies    ${inspection.replies.length > 0 ? inspection.replies.map((reply) => `${reply.messageId} ${reply.status}${reply.sentAt ? ` ${reply.sentAt}` : ''}`).join('; ') : 'none'}`,
    `  verdict    ${inspection.verdict}${inspection.onConfirm ? ` (confirmed: ${inspection.onConfirm})` : ''} → ${action}`,
    ...inspection.reasons.map((reason) => `  why        ${reason}`),
  ].join('\n');
}

export const redriveCommand: CliCommand = {
  summary: 'inspect the dead-letter queue and redrive what is safe (dry run unless --apply)',
  run: (argv, output) => runCommand(USAGE, argv, output, () => redrive(argv, output)),
};
