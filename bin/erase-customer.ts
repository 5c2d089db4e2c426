// Right to erasure: `npx cdk-whatsapp-agent-pipeline erase-customer --stack Prod --customer 5511999990000` deletes
// everything the pipeline stores about one customer, by key, after you type the id again.
import { createInterface } from 'node:readline/promises';
import { type CliCommand, type CommandOutput, processOutput, runCommand, UsageError } from './cli-command';
import { EXIT_CODES } from './cli-failure';
import { parseCustomerCommand, TARGET_USAGE } from './customer-data-command';

const USAGE = `Usage:
  npx cdk-whatsapp-agent-pipeline erase-customer --customer <id> (--stack <name> | --table <name> [--dlq-url <url>]) [--yes]

Deletes the customer's attachments in the media bucket, then every item the pipeline stores about
the customer: sessions, messages, receipts, the latest marker, CRM rows of their sessions, the
demands their messages caused, consent events, budgets, and their operator sign-ins if they are an
operator; then their turns in the dead-letter queue. Safe to
run again (after a crash, or to check). The admin audit names customers by a pseudonym
(HMAC-SHA-256 under this deployment's salt), never the id. Point-in-time-recovery backups still
hold erased data for up to 35 days.

Options:
  --yes                    do not ask (without it, a terminal asks you to type the id again;
                           without a terminal, nothing is erased)
  --dlq-url <url>          with --table: the turn queue's dead-letter queue (with --stack it comes
                           from the outputs); without it the dead-letter queue is not checked
${TARGET_USAGE}`;

/** The command: argv and environment in, exit code out (`EXIT_CODES`: 0 erased, 2 wrong usage, 3 not confirmed). */
export function eraseCustomer(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  output: CommandOutput = processOutput,
  askConfirmation: (question: string) => Promise<string | undefined> = askOnTerminal,
): Promise<number> {
  return runCommand(USAGE, argv, output, async () => {
    const command = await parseCustomerCommand(argv, env, { 'yes': { type: 'boolean' }, 'dlq-url': { type: 'string' } });
    if (command === undefined) {
      output.out(USAGE);
      return 0;
    }
    if (command.values.yes !== true) {
      const typed = await askConfirmation(`Erase everything about ${command.customerId} from ${command.tableName}? Type the customer id again: `);
      if (typed === undefined) throw new UsageError('Not a terminal: pass --yes to erase without asking.');
      if (typed.trim() !== command.customerId) {
        output.err('The id typed does not match; nothing was erased.');
        return EXIT_CODES.unfinished;
      }
    }
    output.out(JSON.stringify(await command.rights.erase(command.customerId, command.author), null, 2));
    if (!command.reachesDeadLetters) output.err('The dead-letter queue was not checked: with --table, name it with --dlq-url.');
    return 0;
  });
}

async function askOnTerminal(question: string): Promise<string | undefined> {
  if (!process.stdin.isTTY) return undefined;
  const terminal = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return await terminal.question(question);
  } finally {
    terminal.close();
  }
}

export const eraseCustomerCommand: CliCommand = {
  summary: 'erase everything the pipeline stores about one customer (right to erasure)',
  run: (argv, output) => eraseCustomer(argv, process.env, output),
};
