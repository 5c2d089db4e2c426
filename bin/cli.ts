// `npx cdk-whatsapp-agent-pipeline <command> …`: the operator tools shipped in the package
// (bundled into assets/cli/index.js at build time, so they run without this repository's tooling).
import { UsageError } from './cli-command';
import { COMMANDS } from './commands';

const USAGE = `Usage: npx cdk-whatsapp-agent-pipeline <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, command]) => `  ${name.padEnd(18)}${command.summary}`)
  .join('\n')}

Run a command with --help for its options. Credentials and Region come from the usual AWS
settings (AWS_PROFILE, AWS_REGION, …) or --region.`;

async function main([name, ...argv]: string[]): Promise<number> {
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(USAGE);
    return name === undefined ? 1 : 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    console.error(`Unknown command '${name}'.\n\n${USAGE}`);
    return 1;
  }
  return command.run(argv);
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    console.error(error instanceof UsageError ? error.message : error);
    process.exitCode = 1;
  },
);
