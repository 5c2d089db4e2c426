// Phase 2 of the write-shard migration: `npx cdk-whatsapp-agent-pipeline backfill-shards --stack Prod` moves every
// item of the seed layout (inbox by state, LLM day index) to its write shard and, when none is left,
// writes the marker that switches readers to the shards. Run it only once every function runs the
// `migrating` key layout. Uses the operator's AWS credentials, or the local runtime's endpoint.
import { parseArgs } from 'node:util';
import { type CliCommand, type CommandOutput, runCommand, UsageError } from './cli-command';
import { EXIT_CODES } from './cli-failure';
import { PIPELINE_TARGET_OPTIONS, repositoriesOf, tableOf } from './pipeline-stack';
import { WRITE_SHARDS } from '../lambda/core/adapters/dynamodb/keys';
import { backfillWriteShards } from '../lambda/core/adapters/dynamodb/write-shard-backfill';
import { systemClock } from '../lambda/core/adapters/system/system-clock';

const USAGE = `Usage:
  npx cdk-whatsapp-agent-pipeline backfill-shards --stack <name> [--pipeline <id>] [--region <region>] [--llm-days <n>]
  npx cdk-whatsapp-agent-pipeline backfill-shards --table <name> [--llm-days <n>]

Moves sessions (GSI1 STATE#{state}), CRM projection rows (GSI1 CRM_SYNC#{status}) and agent
replies (GSI1 LLM#{day}) to their write shard
(${WRITE_SHARDS} shards), then checks that no item is left in the seed layout. Only then it writes the
completion marker: functions running the "migrating" key layout read the shards only from then on.
Safe to run again; exit code 0 when complete, 3 when items remain (a function still writes the seed
layout: deploy "migrating" everywhere and run it again).

Options:
  --stack <name>           the deployed stack: the table comes from its outputs
  --pipeline <id>          the pipeline's construct id, when the stack holds several
  --region <region>        the stack's Region (default: AWS_REGION or the profile's)
  --table <name>           name the table directly instead
  --llm-days <n>           UTC days of the LLM day index to move, today included (default 30)
  -h, --help

Credentials and region come from the usual AWS settings (AWS_PROFILE, AWS_REGION, ...). For the
local runtime: AWS_ENDPOINT_URL_DYNAMODB=…`;

async function backfill(argv: string[], output: CommandOutput): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...PIPELINE_TARGET_OPTIONS,
      'llm-days': { type: 'string' },
    },
  });
  if (values.help) {
    output.out(USAGE);
    return EXIT_CODES.done;
  }
  const table = await tableOf(values.stack, values.table, values.pipeline, values.region);
  const llmDays = values['llm-days'] === undefined ? undefined : Number(values['llm-days']);
  if (llmDays !== undefined && (!Number.isInteger(llmDays) || llmDays < 1)) throw new UsageError(`--llm-days must be a positive whole number, got "${values['llm-days']}".`);

  output.out(`Backfilling write shards in ${table.tableName} …`);
  const report = await backfillWriteShards(repositoriesOf(table).kit, systemClock, { llmDays });
  output.out(`moved ${report.moved}, moved concurrently ${report.movedConcurrently}, left in the seed layout ${report.remaining}`);
  output.out(report.complete ? 'Complete: marker written, readers switch to the shards.' : 'NOT complete: no marker written; readers keep reading the seed layout too.');
  return report.complete ? EXIT_CODES.done : EXIT_CODES.unfinished;
}

export const backfillShardsCommand: CliCommand = {
  summary: 'move existing items to their write shards, then switch readers to the shards (key migration)',
  run: (argv, output) => runCommand(USAGE, argv, output, () => backfill(argv, output)),
};
