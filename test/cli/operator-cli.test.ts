// The package's command-line tool: the command registry, and finding a pipeline from the outputs
// the construct writes (the same keys on both sides, checked against a synthesized template).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { UsageError } from '../../bin/cli-command';
import { EXIT_CODE_MEANINGS } from '../../bin/cli-failure';
import { COMMANDS } from '../../bin/commands';
import { pipelineFromOutputs } from '../../bin/pipeline-stack';
import { AgentPipeline } from '../../lib';
import { pipelineProps } from '../support/synthesized-pipeline';

const root = join(__dirname, '..', '..');
const runCli = (...args: string[]) =>
  spawnSync(process.execPath, [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(root, 'bin', 'cli.ts'), ...args], { encoding: 'utf8' });

/** The outputs CloudFormation would report for `stack`, with each value's token rendered as text. */
function deployedOutputs(stack: Stack): { OutputKey: string; OutputValue: string }[] {
  const outputs: Record<string, { Value: unknown }> = Template.fromStack(stack).toJSON().Outputs;
  return Object.entries(outputs).map(([key, output]) => ({ OutputKey: key, OutputValue: JSON.stringify(output.Value) }));
}

describe('finding a pipeline from its stack outputs', () => {
  test('reads the table and queues of the only pipeline of a synthesized stack', () => {
    const stack = new Stack(new App(), 'Prod');
    const pipeline = new AgentPipeline(stack, 'Agent', pipelineProps({ environment: 'prod' }));
    const rendered = (value: string) => JSON.stringify(stack.resolve(value));
    expect(pipelineFromOutputs('Prod', deployedOutputs(stack))).toEqual({
      tableName: rendered(pipeline.table.tableName),
      turnQueueUrl: rendered(pipeline.queue.queueUrl),
      deadLetterQueueUrl: rendered(pipeline.deadLetterQueue.queueUrl),
    });
  });

  test('with several pipelines in the stack, --pipeline chooses one (by construct id) and is required', () => {
    const stack = new Stack(new App(), 'Shared');
    new AgentPipeline(stack, 'Sales-Agent', pipelineProps({ environment: 'sales' }));
    const support = new AgentPipeline(stack, 'SupportAgent', pipelineProps({ environment: 'support' }));
    const outputs = deployedOutputs(stack);
    expect(() => pipelineFromOutputs('Shared', outputs)).toThrow(new UsageError('Stack Shared holds several pipelines (SalesAgent, SupportAgent): choose one with --pipeline.'));
    expect(pipelineFromOutputs('Shared', outputs, 'SupportAgent').tableName).toBe(JSON.stringify(stack.resolve(support.table.tableName)));
    expect(pipelineFromOutputs('Shared', outputs, 'Sales-Agent').tableName).toContain('Sales');
    expect(() => pipelineFromOutputs('Shared', outputs, 'Billing')).toThrow("Stack Shared has no pipeline 'Billing'; its pipelines are: SalesAgent, SupportAgent.");
  });

  test('a stack deployed before the outputs existed, or missing one, is named with the way out', () => {
    expect(() => pipelineFromOutputs('Old', [{ OutputKey: 'WebhookUrl', OutputValue: 'https://x' }])).toThrow(
      /Stack Old has no DeadLetterQueueUrl output of a pipeline: deploy it with this version .* or name the resources with --table, --queue-url and --dlq-url/,
    );
    expect(() => pipelineFromOutputs('Half', [{ OutputKey: 'PipelineDeadLetterQueueUrl', OutputValue: 'https://q' }])).toThrow(
      'Stack Half lacks the output PipelineTableName: redeploy it with this version of the construct.',
    );
  });
});

describe('the command registry', () => {
  test.each(Object.keys(COMMANDS))('%s has a summary and answers --help with its usage', (name) => {
    expect(COMMANDS[name].summary.length).toBeGreaterThan(10);
    const help = runCli(name, '--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain(`npx cdk-whatsapp-agent-pipeline ${name}`);
  });

  test('the tool lists every command; an unknown one or a bad option exits 2 with the usage', () => {
    const list = runCli('--help');
    expect(list.status).toBe(0);
    const lines = list.stdout.split('\n').map((line) => line.trim());
    for (const [name, { summary }] of Object.entries(COMMANDS)) expect(lines.some((line) => line.startsWith(`${name} `) && line.endsWith(summary))).toBe(true);
    const unknown = runCli('toString');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("Unknown command 'toString'.");
    const badOption = runCli('redrive', '--environment', 'prod');
    expect(badOption.status).toBe(2);
    expect(badOption.stderr).toMatch(/Unknown option '--environment'[\s\S]*--stack <name>/);
    const neither = runCli('redrive');
    expect(neither.status).toBe(2);
    expect(neither.stderr).toContain('Name the deployed stack with --stack, or give --table, --queue-url and --dlq-url.');
  });

  test('--help lists every exit code with its meaning, as docs/CLI.md documents them', () => {
    const help = runCli('--help').stdout;
    const documented = readFileSync(join(root, 'docs', 'CLI.md'), 'utf8');
    const rows = documented.split('\n').filter((line) => /^\| \d+ \| /.test(line));
    expect(rows).toEqual(Object.entries(EXIT_CODE_MEANINGS).map(([code, meaning]) => `| ${code} | ${meaning} |`));
    for (const [code, meaning] of Object.entries(EXIT_CODE_MEANINGS)) expect(help).toContain(`${code.padStart(2)}  ${meaning}`);
  });
});
