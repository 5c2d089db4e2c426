import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { DEFAULT_LOCALE, type Locale } from '../../lib/contract';
import { SECURITY_HEADERS, type HttpResponse } from './http-kit';

/**
 * The operator console's files, served by the operator function: `index.html` at `/` and at
 * `/login` (where the WhatsApp link lands), the content-hashed script, stylesheet and each
 * language's words under `/assets/`. Everything is read once per instance and kept in memory (tens of KiB).
 */

/** Where the build (scripts/bundle-console.mjs) writes the console, relative to the function's code. */
export const CONSOLE_DIRECTORY_NAME = 'console';

/** Paths that answer the console's page; the app routes inside it with the URL fragment. */
const PAGE_PATHS = new Set(['/', '/login']);

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

/** Hashed names change with their content, so a browser may keep them for a year without asking. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The page names the current hashed files: always revalidated (cheaply, by ETag). */
const REVALIDATE = 'no-cache';

interface StaticFile {
  readonly contentType: string;
  readonly cacheControl: string;
  readonly etag: string;
  readonly body: Buffer;
  /** Present when compressing is worth it (text). */
  readonly gzipped?: Buffer;
}

export interface ConsoleRequest {
  readonly method: string;
  readonly path: string;
  /** The request's `Accept-Encoding`. */
  readonly acceptEncoding?: string;
  /** The request's `If-None-Match`. */
  readonly ifNoneMatch?: string;
}

/** Answers the console's paths (see {@link StaticConsole}). */
export interface ConsoleSite {
  /** The answer, or undefined when the path is not the console's (the caller answers 404). */
  serve(request: ConsoleRequest): HttpResponse | undefined;
}

/**
 * Shown instead of the console by a runtime started from sources before the console was built
 * (`npm start` on a fresh clone); a deployed function always carries the built console.
 */
const NOT_BUILT_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Operator console</title></head>' +
  '<body><main><h1>Operator console</h1><p>The console is not built: run <code>npm run bundle</code> and restart. ' +
  'The operator API is served under <code>/api/</code>.</p></main></body></html>';

export class StaticConsole implements ConsoleSite {
  /** The built console in `directory`, or a page saying how to build it. */
  static loadIfBuilt(directory: string, locale: Locale = DEFAULT_LOCALE): StaticConsole {
    if (existsSync(path.join(directory, 'index.html'))) return StaticConsole.load(directory, locale);
    return new StaticConsole(new Map([['/', fileOf(Buffer.from(NOT_BUILT_PAGE), CONTENT_TYPES['.html'], REVALIDATE)]]));
  }

  /**
   * Reads the built console from `directory` (`index.html` and `assets/`). Fails with what to run
   * when the console was not built. The page names the pipeline's locale as its language, which the
   * console speaks until an operator picks another, and preloads that language's words.
   */
  static load(directory: string, locale: Locale = DEFAULT_LOCALE): StaticConsole {
    const indexFile = path.join(directory, 'index.html');
    if (!existsSync(indexFile)) throw new Error(`The operator console is not built (no ${indexFile}); run "npm run bundle".`);
    const assetsDirectory = path.join(directory, 'assets');
    const assetNames = existsSync(assetsDirectory) ? readdirSync(assetsDirectory) : [];
    const files = new Map<string, StaticFile>();
    const page = preloadingWordsOf(readFileSync(indexFile, 'utf8').replace(/<html lang="[^"]*"/, `<html lang="${locale}"`), locale, assetNames);
    files.set('/', fileOf(Buffer.from(page), CONTENT_TYPES['.html'], REVALIDATE));
    for (const name of assetNames) files.set(`/assets/${name}`, staticFile(path.join(assetsDirectory, name), IMMUTABLE));
    return new StaticConsole(files);
  }

  private constructor(private readonly files: ReadonlyMap<string, StaticFile>) {}

  /** Only exact known names are served: nothing is looked up on disk per request. */
  serve(request: ConsoleRequest): HttpResponse | undefined {
    const file = this.files.get(PAGE_PATHS.has(request.path) ? '/' : request.path);
    if (file === undefined) return undefined;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return { statusCode: 405, headers: { ...SECURITY_HEADERS, allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }, body: 'Use GET' };
    }
    const headers: Record<string, string> = {
      ...SECURITY_HEADERS,
      'content-type': file.contentType,
      'cache-control': file.cacheControl,
      etag: file.etag,
      vary: 'Accept-Encoding',
    };
    if (request.ifNoneMatch !== undefined && request.ifNoneMatch.split(',').some((tag) => tag.trim() === file.etag)) {
      return { statusCode: 304, headers };
    }
    const gzip = file.gzipped !== undefined && acceptsGzip(request.acceptEncoding);
    const body = gzip ? file.gzipped! : file.body;
    if (gzip) headers['content-encoding'] = 'gzip';
    if (request.method === 'HEAD') return { statusCode: 200, headers };
    return { statusCode: 200, headers, body: body.toString('base64'), isBase64Encoded: true };
  }
}

/**
 * The build preloads the default locale's words; a pipeline of another locale preloads its own. Each
 * language's words are `<language>-<hash>.js`, the language being the locale's first subtag (`pt` of
 * `pt-BR`); a locale without words of its own keeps the page as built.
 */
function preloadingWordsOf(page: string, locale: Locale, assetNames: readonly string[]): string {
  const language = locale.split('-')[0];
  const words = assetNames.find((name) => name.startsWith(`${language}-`) && /^[a-z]+-[A-Z0-9]+\.js$/.test(name));
  return words === undefined ? page : page.replace(/<link rel="modulepreload" href="\/assets\/[^"]*"/, `<link rel="modulepreload" href="/assets/${words}"`);
}

function staticFile(file: string, cacheControl: string): StaticFile {
  return fileOf(readFileSync(file), CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream', cacheControl);
}

function fileOf(body: Buffer, contentType: string, cacheControl: string): StaticFile {
  const textual = contentType.includes('charset') || contentType === 'image/svg+xml';
  return {
    contentType,
    cacheControl,
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
    body,
    gzipped: textual ? gzipSync(body, { level: 9 }) : undefined,
  };
}

/** `gzip` listed without `q=0`. */
function acceptsGzip(acceptEncoding: string | undefined): boolean {
  return (acceptEncoding ?? '').split(',').some((part) => {
    const [coding, ...parameters] = part.trim().toLowerCase().split(';');
    return (coding === 'gzip' || coding === '*') && !parameters.some((parameter) => /^\s*q=0(\.0*)?\s*$/.test(parameter));
  });
}
