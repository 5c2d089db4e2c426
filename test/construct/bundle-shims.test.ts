import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const TOKEN_SHIM = pathToFileURL(join(__dirname, '..', '..', 'scripts', 'bundle-shims', 'token-providers-env-only.mjs')).href;

/** Runs an ES module snippet against the shim in a fresh node (the shims are ESM, as the bundler reads them). */
function runWithShim(body: string, env: Record<string, string | undefined>): unknown {
  const script = `import * as shim from ${JSON.stringify(TOKEN_SHIM)};\nconst outcome = await (async () => { ${body} })();\nprocess.stdout.write(JSON.stringify(outcome));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { PATH: process.env.PATH, ...env } });
  if (child.status !== 0) throw new Error(child.stderr);
  return JSON.parse(child.stdout);
}

const settle = (call: string) => `try { return { token: (await ${call}).token }; } catch (error) { return { error: error.name, tryNextLink: error.tryNextLink, message: error.message }; }`;

describe('the token-providers stand-in of the Lambda bundles', () => {
  test('answers the Bedrock bearer token of the environment, as the SDK does', () => {
    expect(runWithShim(settle(`shim.fromEnvSigningName({ signingName: 'bedrock' })()`), { AWS_BEARER_TOKEN_BEDROCK: 'token-from-env' })).toEqual({ token: 'token-from-env' });
  });

  test('without that variable it fails with a provider error, so the client falls through to the next source', () => {
    expect(runWithShim(settle(`shim.fromEnvSigningName({ signingName: 'bedrock' })()`), {})).toEqual({
      error: 'TokenProviderError',
      tryNextLink: true,
      message: 'No token in the AWS_BEARER_TOKEN_BEDROCK environment variable',
    });
  });

  test('the file-based chain finds nothing and ends the chain, as it does in Lambda', () => {
    expect(runWithShim(settle(`shim.nodeProvider({})({})`), {})).toMatchObject({ error: 'TokenProviderError', tryNextLink: false });
  });
});

describe('the event-streams stand-in of the bundles whose clients never stream', () => {
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
