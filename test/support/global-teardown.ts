import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { conformanceReport } from './permissions/conformance-report';

/** Where the run writes what the permission check evaluated (git-ignored). */
const REPORT_DIRECTORY = join(__dirname, '..', '..', '.permissions');

/** Stops the servers, removes the run's temporary directory, writes the permission summary, and fails the run on any request it could not check, any denial of a pipeline principal, or a coverage gap. */
export default async function globalTeardown(): Promise<void> {
  const run = globalThis.__runServers;
  if (run === undefined) return;
  run.deployments.close();
  await run.proxy.close();
  await Promise.all(run.servers.map((server) => server.stop()));
  rmSync(run.temporaryDirectory, { recursive: true, force: true });
  const { summary, failures } = conformanceReport(run.evaluator.ledger, run.wholeRun);
  mkdirSync(REPORT_DIRECTORY, { recursive: true });
  writeFileSync(join(REPORT_DIRECTORY, 'summary.txt'), `${summary}\n${failures.length === 0 ? 'No denial.' : failures.join('\n')}\n`);
  process.stdout.write(`\n${summary}\n`);
  if (failures.length > 0) {
    throw new Error(`The permission conformance failed: requests it could not check, or that the synthesized roles do not allow (docs/PERMISSIONS.md, "Reading a denial"):\n${failures.join('\n')}`);
  }
}
