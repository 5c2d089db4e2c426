import type { InboundMedia } from '../../domain/media';
import type { WhatsAppCredentialsProvider } from '../../ports/credentials';
import { type MediaDescription, type MediaSource, MediaSourceError, MediaTooLargeError } from '../../ports/media-source';
import { fetchSafely, type DestinationRule, safeDestination, UnsafeDestinationError } from '../outbound/safe-destination';
import { graphApiRoot, graphApiRule, mediaDownloadRule } from './graph-api-root';

const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

export interface GraphApiMediaSourceOptions {
  /** Graph API root including the version, e.g. `https://graph.facebook.com/v23.0`. */
  readonly baseUrl: string;
  readonly credentials: WhatsAppCredentialsProvider;
  /** Per HTTP request. Default 10 s. */
  readonly requestTimeoutMs?: number;
}

interface MediaMetadata {
  readonly url?: unknown;
  readonly mime_type?: unknown;
  readonly file_size?: unknown;
  readonly sha256?: unknown;
}

/**
 * The Cloud API's media endpoints: `GET {baseUrl}/{media-id}` answers the short-lived download URL
 * with the type, size and SHA-256; a `GET` of that URL with the same bearer token answers the
 * bytes. The token goes only to the Graph API and to Meta's media hosts (the one rule for
 * credentials, safe-destination.ts): a URL the metadata names elsewhere, over plain http, or a
 * redirect is refused and nothing is sent there.
 */
export class GraphApiMediaSource implements MediaSource {
  private readonly baseUrl: string;
  private readonly graph: DestinationRule;
  private readonly downloads: DestinationRule;
  private readonly requestTimeoutMs: number;

  constructor(private readonly options: GraphApiMediaSourceOptions) {
    this.baseUrl = graphApiRoot(options.baseUrl);
    this.graph = graphApiRule(options.baseUrl);
    this.downloads = mediaDownloadRule(options.baseUrl);
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  async describe(media: InboundMedia): Promise<MediaDescription> {
    const response = await this.get(`${this.baseUrl}/${encodeURIComponent(media.providerMediaId)}`, 'media metadata', this.graph);
    const metadata = (await response.json().catch(() => ({}))) as MediaMetadata;
    const { url, mime_type: mimeType, file_size: fileSize, sha256 } = metadata;
    if (typeof url !== 'string' || typeof mimeType !== 'string') throw new MediaSourceError('The Graph API answered media metadata without a url and a mime_type', true);
    try {
      safeDestination(url, this.downloads);
    } catch (error) {
      if (!(error instanceof UnsafeDestinationError)) throw error;
      throw new MediaSourceError(`The Graph API answered a media URL the token may not go to (${error.message}); nothing was sent there`, false, { cause: error });
    }
    const sizeBytes = typeof fileSize === 'number' ? fileSize : typeof fileSize === 'string' && /^\d+$/.test(fileSize) ? Number(fileSize) : undefined;
    return { url, mimeType, ...(sizeBytes === undefined ? {} : { sizeBytes }), ...(typeof sha256 === 'string' ? { sha256 } : {}) };
  }

  async fetch(description: MediaDescription, maxBytes: number): Promise<Uint8Array> {
    const response = await this.get(description.url, 'media download', this.downloads);
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (declared > maxBytes) {
      await response.body?.cancel();
      throw new MediaTooLargeError(maxBytes);
    }
    const chunks: Uint8Array[] = [];
    let received = 0;
    try {
      for await (const chunk of response.body ?? []) {
        received += chunk.byteLength;
        if (received > maxBytes) throw new MediaTooLargeError(maxBytes);
        chunks.push(chunk);
      }
    } catch (error) {
      if (error instanceof MediaTooLargeError) throw error;
      throw new MediaSourceError('The media download was cut off', true, { cause: error });
    }
    return Buffer.concat(chunks);
  }

  /** One GET with the bearer token; a rejected token re-reads the secret once (a rotation). */
  private async get(url: string, what: string, rule: DestinationRule, forceRefresh = false): Promise<Response> {
    const { accessToken } = await this.options.credentials.get({ forceRefresh });
    let response: Response;
    try {
      response = await fetchSafely(url, rule, { headers: { authorization: `Bearer ${accessToken}` }, signal: AbortSignal.timeout(this.requestTimeoutMs) });
    } catch (error) {
      if (error instanceof UnsafeDestinationError) throw new MediaSourceError(`The ${what} was refused: ${error.message}`, false, { cause: error });
      throw new MediaSourceError(`The ${what} request failed (${error instanceof Error ? error.name : 'network'})`, true, { cause: error });
    }
    if (response.ok) return response;
    await response.body?.cancel();
    if (response.status === 401 && !forceRefresh) return this.get(url, what, rule, true);
    // A download URL lives minutes: a 404 there is an expired URL, which the next attempt asks for
    // again. A 404 of the metadata is an unknown id; other 4xx but throttling cannot pass with time.
    const retryable = response.status === 429 || response.status >= 500 || response.status === 401 || (response.status === 404 && what === 'media download');
    throw new MediaSourceError(`The ${what} request answered HTTP ${response.status}`, retryable);
  }
}
