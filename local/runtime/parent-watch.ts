// The local runtime ends with whatever started it. `npm start` runs it under npm and a shell
// (npm → sh → node): when npm is killed, even with SIGKILL, nobody signals the shell or the runtime,
// which would then keep DynamoDB Local, the SQS emulator and the servers running. So the runtime
// watches the processes it descends from, up to its session's leader (the terminal's shell, whose
// end the terminal's SIGHUP already reports), and stops when one of them is gone.
import { readFileSync } from 'node:fs';

const WATCH_EVERY_MS = 500;

/** One process above this one, and the parent it had when the watch began. */
interface Ancestor {
  readonly pid: number;
  readonly parent: number;
}

/**
 * Calls `onGone` once with the pid of a process this one descends from (up to its session's
 * leader) that has ended; returns what stops watching. A process is gone when it no longer runs,
 * is a zombie, or was handed to another parent because its own ended. Without `/proc` (not Linux)
 * only this process's parent is watched.
 */
export function watchAncestors(onGone: (pid: number) => void, everyMs = WATCH_EVERY_MS): () => void {
  const parent = process.ppid;
  const ancestors = ancestorsOf(process.pid);
  const timer = setInterval(() => {
    const gone = process.ppid !== parent ? parent : ancestors.find(({ pid, parent: was }) => processStatus(pid)?.parent !== was)?.pid;
    if (gone === undefined) return;
    clearInterval(timer);
    onGone(gone);
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** The processes from `pid`'s parent up to, not including, its session's leader or init. */
function ancestorsOf(pid: number): Ancestor[] {
  const own = processStatus(pid);
  const ancestors: Ancestor[] = [];
  for (let current = own?.parent ?? 0; current > 1 && current !== own?.session; ) {
    const status = processStatus(current);
    if (status === undefined) break;
    ancestors.push({ pid: current, parent: status.parent });
    current = status.parent;
  }
  return ancestors;
}

/**
 * Parent and session of a running process, from `/proc/<pid>/stat` (the fields after the command's
 * closing parenthesis: state, parent, group, session); `undefined` for one that ended or is a zombie.
 */
function processStatus(pid: number): { readonly parent: number; readonly session: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const [state, parent, , session] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return state === 'Z' ? undefined : { parent: Number(parent), session: Number(session) };
}
