// `npx cdk-whatsapp-agent-pipeline eval <dir>` on the local runtime (docs/EVALUATION.md#in-ci): the
// shipped suite passes and is written as JUnit XML; a prompt without the handoff instruction fails
// the run with exit code 1; an invalid scenario file is refused with exit code 2 before anything runs.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SYSTEM_PROMPT } from '../../lib/contract';

const root = join(__dirname, '..', '..');
const SHIPPED = join(root, 'evaluation', 'scenarios');
/** Runs the command without blocking this process: the suite's DynamoDB endpoint is a proxy served from it. */
const runCli = (args: string[], env: NodeJS.ProcessEnv = process.env) =>
  new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(root, 'bin', 'cli.ts'), 'eval', ...args], { encoding: 'utf8', env }, (error, stdout, stderr) =>
      resolve({ status: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr }),
    );
  });

let workDir: string;
beforeAll(() => (workDir = mkdtempSync(join(tmpdir(), 'eval-cli-'))));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

test('the shipped suite passes locally: a table per scenario with tokens and cost, JUnit XML for CI, exit code 0', async () => {
  const junit = join(workDir, 'passing.xml');
  const run = await runCli([SHIPPED, '--junit', junit, '--concurrency', '2']);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  expect(run.stdout).toMatch(/^PASS {4}asks-for-a-person +2 +[\d,]+ +US\$\d\.\d{4} +[\d.]+ s$/m);
  expect(run.stdout).toMatch(/^PASS {4}records-registration /m);
  expect(run.stdout).toMatch(/^PASS {4}tap-and-photo /m);
  expect(run.stdout).toMatch(/^3 scenarios: 3 passed, 0 failed$/m);
  expect(run.stdout).toMatch(/^tokens [\d,]+ \(input [\d,]+, output [\d,]+, cache read [\d,]+, cache write [\d,]+\)$/m);
  expect(run.stdout).toMatch(/^estimated cost US\$0\.\d{4} at the packaged model prices$/m);
  const xml = readFileSync(junit, 'utf8');
  expect(xml).toMatch(/<testsuite name="eval scenarios" tests="3" failures="0" errors="0"/);
  expect([...xml.matchAll(/<testcase classname="eval scenarios" name="([^"]+)"/g)].map((match) => match[1])).toEqual(['asks-for-a-person', 'records-registration', 'tap-and-photo']);
  expect(xml).not.toContain('<failure');
});

test('a prompt that drops the handoff instruction fails its scenario: exit code 1, the failure in the table and in the JUnit XML', async () => {
  const prompt = join(workDir, 'prompt.txt');
  writeFileSync(prompt, DEFAULT_SYSTEM_PROMPT.replace(/Hand the conversation to a human[^.]*\./, ''));
  const junit = join(workDir, 'failing.xml');
  const run = await runCli([SHIPPED, '--prompt', prompt, '--junit', junit]);
  expect(run.status).toBe(1);
  expect(run.stdout).toMatch(/^FAIL {4}asks-for-a-person /m);
  expect(run.stdout).toContain('turn 2 (customer: "Prefiro falar com uma pessoa, por favor.")\n          - toolsCalled: request_human_handoff was not called (called: update_qualification)');
  expect(run.stdout).toMatch(/^3 scenarios: 2 passed, 1 failed$/m);
  const xml = readFileSync(junit, 'utf8');
  expect(xml).toMatch(/<testsuite name="eval scenarios" tests="3" failures="1"/);
  expect(xml).toContain('<failure message="toolsCalled: request_human_handoff was not called (called: update_qualification)">');
});

test('an invalid scenario file is refused with its file, scenario and field, exit code 2, before anything runs', async () => {
  const suite = mkdtempSync(join(workDir, 'invalid-'));
  writeFileSync(join(suite, 'greets.json'), JSON.stringify({ formatVersion: 1, name: 'greets', turns: [{ customer: { text: 'Oi' }, expect: { reply: { startsWith: 'Olá' } } }] }));
  // DynamoDB behind a closed port: a command that reached it would fail otherwise, not with exit code 2.
  const run = await runCli([suite], { ...process.env, AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:9' });
  expect(run.status).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr.trim()).toBe(`Invalid scenario files; nothing ran:\n${join(suite, 'greets.json')}: scenario 'greets': turns[0].expect.reply.startsWith is not a field of the format (docs/EVALUATION.md)`);
  expect((await runCli([join(suite, 'missing')])).stderr).toMatch(/^.*missing is not a directory of scenario files\./);
  expect((await runCli([suite, '--concurrency', '0'])).stderr).toMatch(/^--concurrency must be a whole number from 1 to 16; got "0"\./);
});
