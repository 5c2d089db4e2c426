// Right of access: `npx cdk-whatsapp-agent-pipeline export-customer --stack Prod --customer 5511999990000 > customer.json`
// prints everything the pipeline stores about one customer as one JSON document.
import { type CliCommand, type CommandOutput, processOutput, runCommand } from './cli-command';
import { parseCustomerCommand, TARGET_USAGE } from './customer-data-command';

const USAGE = `Usage:
  npx cdk-whatsapp-agent-pipeline export-customer --customer <id> (--stack <name> | --table <name>)

Prints one JSON document with every item the pipeline stores about the customer (sessions,
messages, receipts, demands, CRM rows, consent events) and a list of their attachments in the media
bucket (key, size, message, type; the bytes stay there). The export is recorded in the admin audit
under the customer's pseudonym.

Options:
${TARGET_USAGE}`;

/** The command: argv and environment in, exit code out (`EXIT_CODES`: 0 done, 2 wrong usage, 4 to 9 an AWS failure). */
export function exportCustomer(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, output: CommandOutput = processOutput): Promise<number> {
  return runCommand(USAGE, argv, output, async () => {
    const command = await parseCustomerCommand(argv, env);
    if (command === undefined) {
      output.out(USAGE);
      return 0;
    }
    output.out(JSON.stringify(await command.rights.export(command.customerId, command.author), null, 2));
    return 0;
  });
}

export const exportCustomerCommand: CliCommand = {
  summary: "print everything the pipeline stores about one customer as JSON (right of access)",
  run: (argv, output) => exportCustomer(argv, process.env, output),
};
