// `npm start` leaves nothing behind, however it ends: the test starts its own `npm start` (npm, the
// shell npm runs the script in, the runtime, DynamoDB Local and the SQS emulator as children), ends
// one process of the tree, and checks by PID and by port that every process and every listening
// port of the tree is gone. Linux only (it reads /proc).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { repoRoot } from '../support/packed-package';
import { waitUntil } from '../support/waiting';

jest.setTimeout(150_000);

interface RunningTree {
  readonly npm: ChildProcess;
  /** Every process under npm once the pipeline was ready, the runtime among them. */
  readonly pids: readonly number[];
  readonly runtimePid: number;
  /** The loopback ports its output names (webhook, DynamoDB Local, SQS emulator, fakes, console, chat). */
  readonly ports: readonly number[];
}

/** Parent of each running process, from /proc (zombies count as ended). */
function runningParents(): Map<number, number> {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state !== 'Z') parents.set(Number(entry), Number(parent));
    } catch {
      // Ended while listed.
    }
  }
  return parents;
}

function descendantsOf(root: number): number[] {
  const parents = runningParents();
  const found: number[] = [];
  for (let frontier = [root]; frontier.length > 0; ) {
    frontier = [...parents].filter(([, parent]) => frontier.includes(parent)).map(([pid]) => pid);
    found.push(...frontier);
  }
  return found;
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** `npm start` as a person runs it in a terminal, with none of the suite's local servers to reuse. */
async function startNpmStart(): Promise<RunningTree> {
  const npm = spawn('npm', ['start', '--', '--no-crm'], {
    cwd: repoRoot,
    env: { PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`, HOME: process.env.HOME, POWERTOOLS_LOG_LEVEL: 'ERROR' },
    // stdin stays open: the chat waits on it, as on a terminal.
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  npm.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  npm.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitUntil(
    () => {
      if (npm.exitCode !== null) throw new Error(`npm start exited with ${npm.exitCode}:\n${output}`);
      return /customer chat \(browser\)/.test(output);
    },
    120_000,
    'npm start to be ready',
  ).catch((error: Error) => {
    npm.kill('SIGINT');
    throw new Error(`${error.message}; it printed:\n${output}`);
  });
  const pids = descendantsOf(npm.pid!);
  // The runtime is the process that started DynamoDB Local.
  const dynamoDbLocal = pids.find((pid) => commandLine(pid).startsWith('java '));
  const runtimePid = dynamoDbLocal === undefined ? undefined : runningParents().get(dynamoDbLocal);
  if (runtimePid === undefined) throw new Error(`No DynamoDB Local among ${pids.map((pid) => `${pid} ${commandLine(pid)}`).join('; ')}`);
  const ports = [...new Set([...output.matchAll(/127\.0\.0\.1:(\d+)/g)].map((match) => Number(match[1])))];
  return { npm, pids, runtimePid, ports };
}

/** Every process of the tree has ended and no port it listened on answers. */
async function expectNothingLeft(tree: RunningTree): Promise<void> {
  const left = async () => {
    const running = runningParents();
    const listening = await Promise.all(tree.ports.map(async (port) => ((await accepts(port)) ? [port] : [])));
    return { processes: tree.pids.filter((pid) => running.has(pid)).map((pid) => `${pid} ${commandLine(pid)}`), ports: listening.flat() };
  };
  await waitUntil(async () => {
    const { processes, ports } = await left();
    return processes.length === 0 && ports.length === 0;
  }, 30_000, 'the tree to end').catch(() => undefined);
  expect(await left()).toEqual({ processes: [], ports: [] });
}

const linux = existsSync('/proc/self/stat');

(linux ? describe : describe.skip)('npm start ends with everything it started', () => {
  let tree: RunningTree | undefined;
  afterEach(() => {
    // Whatever a failed test left: by PID, never by name.
    for (const pid of tree?.pids ?? []) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone.
      }
    }
    tree = undefined;
  });

  test('npm killed with SIGKILL: the runtime notices and stops DynamoDB Local, the SQS emulator and every server', async () => {
    tree = await startNpmStart();
    // The tree as it runs: npm's shell, the runtime, DynamoDB Local (java) and the SQS emulator.
    expect(tree.pids.map(commandLine)).toEqual(expect.arrayContaining([expect.stringMatching(/^java .*LoopbackDynamoDbLocal/), expect.stringMatching(/sqs-emulator-process\.mjs/)]));
    expect(tree.ports.length).toBeGreaterThanOrEqual(6);
    tree.npm.kill('SIGKILL');
    await expectNothingLeft(tree);
  });

  test('the runtime killed with SIGKILL, which it cannot handle: its children end with it', async () => {
    tree = await startNpmStart();
    process.kill(tree.runtimePid, 'SIGKILL');
    await expectNothingLeft(tree);
  });

  test('the runtime stopped with SIGTERM: it stops everything and exits', async () => {
    tree = await startNpmStart();
    process.kill(tree.runtimePid, 'SIGTERM');
    await expectNothingLeft(tree);
  });
});
