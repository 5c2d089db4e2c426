// `npx cdk-whatsapp-agent-pipeline <command> …`: the operator tools shipped in the package
// (bundled into assets/cli/index.js at build time, so they run without this repository's tooling).
import { processOutput, runCommand } from './cli-command';
import { EXIT_CODES, exitCodesHelp } from './cli-failure';
import { COMMANDS } from './commands';

const USAGE = `Usage: npx cdk-whatsapp-agent-pipeline <command> [options] [--debug]

Commands:
${Object.entries(COMMANDS)
  .map(([name, command]) => `  ${name.padEnd(18)}${command.summary}`)
  .join('\n')}

Run a command with --help for its options. Credentials and Region come from the usual AWS
settings (AWS_PROFILE, AWS_REGION, …) or --region. A failure is one line that says what happened
and what to do; --debug adds its stack.

Exit codes (docs/CLI.md):
${exitCodesHelp()}`;

const DEBUG_OPTION = '--debug';

async function main(argv: string[]): Promise<number> {
  // The AWS SDK warns on Node.js releases it will stop supporting; the tool's output is for its reader, not for that notice.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const output = { ...processOutput, debug: argv.includes(DEBUG_OPTION) };
  const [name, ...commandArgv] = argv.filter((argument) => argument !== DEBUG_OPTION);
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    output.out(USAGE);
    return name === undefined ? EXIT_CODES.usage : EXIT_CODES.done;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    output.err(`Unknown command '${name}'.\n\n${USAGE}`);
    return EXIT_CODES.usage;
  }
  // Every command words its own failures; this catches what escapes one (a bug), in the same words.
  return runCommand(USAGE, commandArgv, output, () => command.run(commandArgv, output));
}

void main(process.argv.slice(2)).then((code) => (process.exitCode = code));
