import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { startFunctionUrlServer, type FunctionUrlServer } from '../../../local/runtime/function-url-server';
import { StaticConsole } from '../../../lambda/operator/static-console';
import { Locale } from '../../../lib/contract';

/** A built console as scripts/bundle-console.mjs lays it out. */
const INDEX = '<!doctype html><html><head><script type="module" src="/assets/app-ABC123.js"></script></head><body></body></html>';
const SCRIPT = 'console.log("console");'.repeat(50);
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 3]);

interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

/** A plain HTTP request that shows the bytes on the wire (fetch would undo the gzip). */
function get(server: FunctionUrlServer, pathname: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const call = request(new URL(pathname, server.url), { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
    });
    call.on('error', reject);
    call.end();
  });
}

describe('StaticConsole served over a local Function URL', () => {
  let directory: string;
  let server: FunctionUrlServer;

  beforeAll(async () => {
    directory = mkdtempSync(path.join(tmpdir(), 'console-'));
    mkdirSync(path.join(directory, 'assets'));
    writeFileSync(path.join(directory, 'index.html'), INDEX);
    writeFileSync(path.join(directory, 'assets', 'app-ABC123.js'), SCRIPT);
    writeFileSync(path.join(directory, 'assets', 'logo-XYZ.png'), PNG);
    const site = StaticConsole.load(directory);
    server = await startFunctionUrlServer(async (event) => {
      const answer = site.serve({
        method: event.requestContext.http.method,
        path: event.rawPath,
        acceptEncoding: event.headers['accept-encoding'],
        ifNoneMatch: event.headers['if-none-match'],
      });
      return answer ?? { statusCode: 404, body: 'not the console' };
    });
  });

  afterAll(async () => {
    await server.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it.each(['/', '/login'])('answers the page at %s, revalidated every time, with the security headers', async (pathname) => {
    const answer = await get(server, pathname);
    expect(answer.status).toBe(200);
    expect(answer.body.toString()).toBe(INDEX);
    expect(answer.headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-cache',
      'content-security-policy': expect.stringMatching(/^default-src 'self';/),
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'strict-transport-security': expect.stringMatching(/^max-age=\d{8,}/),
      'x-content-type-options': 'nosniff',
    });
    expect(answer.headers['content-security-policy']).not.toMatch(/unsafe-inline|unsafe-eval/);
  });

  it('serves hashed files as immutable with their content type, gzipped when the browser accepts it', async () => {
    const plain = await get(server, '/assets/app-ABC123.js');
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(SCRIPT);

    const compressed = await get(server, '/assets/app-ABC123.js', { 'accept-encoding': 'br, gzip' });
    expect(compressed.headers['content-encoding']).toBe('gzip');
    expect(compressed.headers.vary).toBe('Accept-Encoding');
    expect(compressed.body.length).toBeLessThan(SCRIPT.length / 4);
    expect(gunzipSync(compressed.body).toString()).toBe(SCRIPT);

    const refused = await get(server, '/assets/app-ABC123.js', { 'accept-encoding': 'gzip;q=0' });
    expect(refused.headers['content-encoding']).toBeUndefined();
  });

  it('serves binary files byte for byte and never compresses them', async () => {
    const answer = await get(server, '/assets/logo-XYZ.png', { 'accept-encoding': 'gzip' });
    expect(answer.headers['content-type']).toBe('image/png');
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.body.equals(PNG)).toBe(true);
  });

  it('answers 304 to a browser that already has the current page', async () => {
    const first = await get(server, '/');
    const again = await get(server, '/', { 'if-none-match': String(first.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const stale = await get(server, '/', { 'if-none-match': '"something-older"' });
    expect(stale.status).toBe(200);
  });

  it('answers HEAD with the headers only', async () => {
    const answer = await get(server, '/assets/app-ABC123.js', {}, 'HEAD');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(answer.body.length).toBe(0);
  });

  it('refuses other methods on console paths with 405 and leaves every other path to the caller', async () => {
    const posted = await get(server, '/', {}, 'POST');
    expect(posted.status).toBe(405);
    expect(posted.headers.allow).toBe('GET, HEAD');
    for (const pathname of ['/assets/missing.js', '/assets/../index.html', '/assets/%2e%2e/index.html', '/index.html', '/login/extra', '/assets/']) {
      expect((await get(server, pathname)).status).toBe(404);
    }
  });

  it('fails with what to run when the console was not built', () => {
    expect(() => StaticConsole.load(path.join(directory, 'nowhere'))).toThrow(/not built.*npm run bundle/);
  });

  it('answers a source checkout that was never bundled with a page saying how to build the console', () => {
    const notBuilt = StaticConsole.loadIfBuilt(path.join(directory, 'nowhere'));
    const page = notBuilt.serve({ method: 'GET', path: '/login' });
    expect(page?.statusCode).toBe(200);
    expect(Buffer.from(page!.body!, 'base64').toString()).toContain('npm run bundle');
    expect(notBuilt.serve({ method: 'GET', path: '/assets/app-ABC123.js' })).toBeUndefined();
    expect(StaticConsole.loadIfBuilt(directory).serve({ method: 'GET', path: '/assets/app-ABC123.js' })?.statusCode).toBe(200);
  });
});

describe('StaticConsole and the words of each language', () => {
  let directory: string;

  beforeAll(() => {
    directory = mkdtempSync(path.join(tmpdir(), 'console-'));
    mkdirSync(path.join(directory, 'assets'));
    writeFileSync(
      path.join(directory, 'index.html'),
      '<!doctype html><html lang="pt-BR"><head><link rel="modulepreload" href="/assets/pt-AAA111.js" /><script type="module" src="/assets/app-ABC123.js"></script></head></html>',
    );
    for (const name of ['app-ABC123.js', 'pt-AAA111.js', 'en-BBB222.js', 'es-CCC333.js']) writeFileSync(path.join(directory, 'assets', name), SCRIPT);
  });

  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  const pageOf = (site: StaticConsole) => Buffer.from(site.serve({ method: 'GET', path: '/' })!.body!, 'base64').toString();

  it.each([
    [Locale.PT_BR, 'pt-AAA111.js'],
    [Locale.EN, 'en-BBB222.js'],
    [Locale.ES, 'es-CCC333.js'],
  ])('preloads the words of a %s pipeline, and only those', (locale, words) => {
    const page = pageOf(StaticConsole.load(directory, locale));
    expect(page).toContain(`<html lang="${locale}"`);
    expect(page.match(/rel="modulepreload" href="([^"]*)"/g)).toEqual([`rel="modulepreload" href="/assets/${words}"`]);
  });

  it('serves every language as immutable, for the operator who switches to it', () => {
    const site = StaticConsole.load(directory);
    for (const name of ['pt-AAA111.js', 'en-BBB222.js', 'es-CCC333.js']) {
      expect(site.serve({ method: 'GET', path: `/assets/${name}` })).toMatchObject({
        statusCode: 200,
        headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=31536000, immutable' },
      });
    }
  });
});
