// The integration tests' committed snapshots must be what the apps synthesize now, so a deploy
// (`npm run integ:deploy`) tests the construct the repository holds. integ-runner compares the test
// stacks (the pipeline and its sender), not the assertion stack. integ-runner without
// `--update-on-failed` or `--force` only synthesizes and compares: no credentials, no deploy.
// Needs `npm run build` first (`npm test` runs it): the construct deploys the bundled functions.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

const repoRoot = path.resolve(__dirname, '..', '..');
const integDir = path.join(repoRoot, 'test', 'integ');
const integApps = fs.readdirSync(integDir).filter((file) => /^integ\..+\.ts$/.test(file));

test('every integration test has a committed snapshot that matches what it synthesizes now', () => {
  expect(integApps.sort()).toEqual(['integ.cloud-api.ts', 'integ.end-user-messaging.ts']);
  for (const app of integApps) {
    expect(fs.existsSync(path.join(integDir, `${app}.snapshot`, 'manifest.json'))).toBe(true);
  }
  const run = spawnSync(path.join(repoRoot, 'node_modules', '.bin', 'integ-runner'), ['--config', path.join(integDir, 'integ.config.json')], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '', AWS_SESSION_TOKEN: '', AWS_PROFILE: '' },
  });
  const output = `${run.stdout}\n${run.stderr}`;
  // On a difference: read it, then `npm run integ:update` (or `npm run integ:deploy` with an account).
  expect({ status: run.status, output }).toMatchObject({ status: 0 });
  for (const app of integApps) {
    expect(output).toMatch(new RegExp(`UNCHANGED\\s+${app.replace(/\.ts$/, '').replace(/\./g, '\\.')}\\b`));
  }
}, 240_000);
