import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

describe('the event-streams stand-in of the Lambda bundles', () => {
  const EVENT_STREAMS_SHIM = pathToFileURL(join(__dirname, '..', '..', 'scripts', 'bundle-shims', 'no-event-streams.mjs')).href;

  test('offers what the SDK protocols load on demand, and fails a streaming call with a message naming the alias', () => {
    const script = `const { EventStreamSerde, eventStreamSerdeProvider } = await import(${JSON.stringify(EVENT_STREAMS_SHIM)});
const failures = [() => new EventStreamSerde({}), () => eventStreamSerdeProvider({})].map((call) => { try { call(); return 'no error'; } catch (error) { return error.message; } });
process.stdout.write(JSON.stringify(failures));`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.status).toBe(0);
    const failures = JSON.parse(child.stdout) as string[];
    expect(failures).toHaveLength(2);
    for (const message of failures) expect(message).toMatch(/^Event streams are not bundled with this function: .*scripts\/bundle-lambdas\.mjs$/);
  });
});
