import type { WhatsAppCredentialsProvider } from '../../ports/credentials';
import { MediaStoreError, type MediaStore } from '../../ports/media-store';
import {
  WhatsAppSendError,
  type OutboundMediaMessage,
  type OutboundTemplateMessage,
  type OutboundTextMessage,
  type ReadReceipt,
  type SentTextMessage,
  type WhatsAppSender,
} from '../../ports/whatsapp-sender';
import { isValidBusinessPhoneNumberId } from '../../domain/inbound-admission';
import { classifyGraphApiError } from './graph-api-errors';
import { CONNECT_PHASE_ERROR_CODES, mediaMessagePayload, readReceiptPayload, replyPayloads, templateMessagePayload } from './outbound-messages';
import { sendPaced } from './paced-parts';
import { fetchSafely, type DestinationRule, UnsafeDestinationError } from '../outbound/safe-destination';
import { graphApiRoot, graphApiRule } from './graph-api-root';

const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

export interface GraphApiSenderOptions {
  /** Graph API root including the version, e.g. `https://graph.facebook.com/v23.0`. */
  readonly baseUrl: string;
  readonly credentials: WhatsAppCredentialsProvider;
  /** Per HTTP request. A timeout is reported as an unknown outcome. Default 10 s. */
  readonly requestTimeoutMs?: number;
  /** A longer reply is split into at most this many messages (the last one truncated). Default 5. */
  readonly maxMessagesPerReply?: number;
  /** Where the attachments an operator sends are read from. Default: none, and a media send is refused. */
  readonly media?: Pick<MediaStore, 'get'>;
  /** How the sender waits before sending again after Meta refused it for its pace. Default: node's timers. */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** A Graph API request body: a JSON message object, or a multipart upload (fetch sets its boundary). */
type GraphApiRequest = { readonly edge: 'messages'; readonly payload: object } | { readonly edge: 'media'; readonly form: () => FormData };

/**
 * Sends replies with Meta's WhatsApp Cloud API: `POST {baseUrl}/{phoneNumberId}/messages` with the
 * access token from the credentials provider. One attempt per message — retries belong to the
 * queue, which keeps the persisted reply — except that a rejected token triggers one re-read of
 * the secret (bypassing its cache) and one resend when the token has changed.
 */
export class GraphApiWhatsAppSender implements WhatsAppSender {
  private readonly baseUrl: string;
  private readonly destinations: DestinationRule;
  private readonly credentials: WhatsAppCredentialsProvider;
  private readonly requestTimeoutMs: number;
  private readonly maxMessagesPerReply: number | undefined;
  private readonly media: Pick<MediaStore, 'get'> | undefined;
  private readonly sleep: ((ms: number) => Promise<void>) | undefined;

  constructor(options: GraphApiSenderOptions) {
    this.baseUrl = graphApiRoot(options.baseUrl);
    this.destinations = graphApiRule(options.baseUrl);
    this.credentials = options.credentials;
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.maxMessagesPerReply = options.maxMessagesPerReply;
    this.media = options.media;
    this.sleep = options.sleep;
  }

  async sendText(message: OutboundTextMessage): Promise<SentTextMessage> {
    return sendPaced(replyPayloads(message, this.maxMessagesPerReply), async (payload, partsDelivered) => readMessageId(await this.post(message.businessPhoneNumberId, { edge: 'messages', payload }, partsDelivered), partsDelivered), this.sleep);
  }

  async sendTemplate(message: OutboundTemplateMessage): Promise<SentTextMessage> {
    const providerMessageId = readMessageId(await this.post(message.businessPhoneNumberId, { edge: 'messages', payload: templateMessagePayload(message) }, 0), 0);
    return { providerMessageId, providerMessageIds: [providerMessageId] };
  }

  /**
   * `POST /{phoneNumberId}/media` (multipart: `messaging_product`, `type`, `file`) answers the
   * upload's `id`; `POST /{phoneNumberId}/messages` then sends it. A failed upload sent nothing.
   */
  async sendMedia(message: OutboundMediaMessage): Promise<SentTextMessage> {
    const bytes = await this.attachment(message.objectKey);
    const form = () => {
      const data = new FormData();
      data.set('messaging_product', 'whatsapp');
      data.set('type', message.mimeType);
      data.set('file', new Blob([bytes], { type: message.mimeType }), message.fileName ?? message.kind);
      return data;
    };
    const upload = await this.post(message.businessPhoneNumberId, { edge: 'media', form }, 0).catch((error: unknown) => {
      // An upload that timed out sent nothing to the customer, whatever Meta did with the file.
      throw error instanceof WhatsAppSendError && error.outcomeUnknown ? new WhatsAppSendError(error.message, { ...error, outcomeUnknown: false }, { cause: error }) : error;
    });
    const mediaId = (upload.body as { id?: unknown } | null)?.id;
    if (typeof mediaId !== 'string' || mediaId === '') {
      throw new WhatsAppSendError(`WhatsApp answered the upload with HTTP ${upload.httpStatus} but no media id; nothing was sent`, { category: 'transport', retryable: true, outcomeUnknown: false, httpStatus: upload.httpStatus, partsDelivered: 0 });
    }
    const providerMessageId = readMessageId(await this.post(message.businessPhoneNumberId, { edge: 'messages', payload: mediaMessagePayload(message, mediaId) }, 0), 0);
    return { providerMessageId, providerMessageIds: [providerMessageId] };
  }

  private async attachment(objectKey: string): Promise<Uint8Array> {
    if (this.media === undefined) throw new WhatsAppSendError('This function has no media bucket to read the attachment from', { category: 'request', retryable: false, outcomeUnknown: false, partsDelivered: 0 });
    try {
      return await this.media.get(objectKey);
    } catch (error) {
      const retryable = !(error instanceof MediaStoreError) || error.retryable;
      throw new WhatsAppSendError('The attachment could not be read from the media bucket; nothing was sent', { category: 'transport', retryable, outcomeUnknown: false, partsDelivered: 0 }, { cause: error });
    }
  }

  async markAsRead(receipt: ReadReceipt): Promise<void> {
    await this.post(receipt.businessPhoneNumberId, { edge: 'messages', payload: readReceiptPayload(receipt) }, 0);
  }

  private async post(businessPhoneNumberId: string, request: GraphApiRequest, partsDelivered: number): Promise<SuccessAnswer> {
    if (!isValidBusinessPhoneNumberId(businessPhoneNumberId)) {
      throw new WhatsAppSendError('The business phone number id is not a Meta phone number id', { category: 'request', retryable: false, outcomeUnknown: false, partsDelivered });
    }
    const credentials = await this.credentials.get();
    const first = await this.attempt(businessPhoneNumberId, request, credentials.accessToken, partsDelivered);
    if (first.ok) return first;
    if (first.error.category !== 'authentication') throw first.error;

    // A rejected token is usually a rotated secret still cached here: read it once more.
    const refreshed = await this.credentials.get({ forceRefresh: true });
    if (refreshed.accessToken === credentials.accessToken) throw first.error;
    const second = await this.attempt(businessPhoneNumberId, request, refreshed.accessToken, partsDelivered);
    if (second.ok) return second;
    throw second.error;
  }

  private async attempt(
    businessPhoneNumberId: string,
    request: GraphApiRequest,
    accessToken: string,
    partsDelivered: number,
  ): Promise<SuccessAnswer | { ok: false; error: WhatsAppSendError }> {
    let response: Response;
    let rawBody: string;
    try {
      const authorization = `Bearer ${accessToken}`;
      response = await fetchSafely(`${this.baseUrl}/${encodeURIComponent(businessPhoneNumberId)}/${request.edge}`, this.destinations, {
        method: 'POST',
        ...(request.edge === 'media'
          ? { headers: { authorization }, body: request.form() }
          : { headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(request.payload) }),
        signal: AbortSignal.timeout(this.requestTimeoutMs),
      });
      rawBody = await response.text();
    } catch (error) {
      if (error instanceof UnsafeDestinationError) {
        // Refused before anything was sent, or answered with a redirect Meta never gives to a message it took.
        return { ok: false, error: new WhatsAppSendError(error.message, { category: 'request', retryable: false, outcomeUnknown: false, partsDelivered }, { cause: error }) };
      }
      return { ok: false, error: this.transportError(error, partsDelivered) };
    }

    const body = parseJson(rawBody);
    if (response.ok) {
      if (body === undefined) {
        return { ok: false, error: unreadableSuccess(response.status, partsDelivered) };
      }
      return { ok: true, httpStatus: response.status, body };
    }
    return { ok: false, error: graphApiError(response.status, body, partsDelivered) };
  }

  private transportError(error: unknown, partsDelivered: number): WhatsAppSendError {
    if (error instanceof Error && error.name === 'TimeoutError') {
      return new WhatsAppSendError(
        `WhatsApp request timed out after ${this.requestTimeoutMs} ms; Meta may have accepted it`,
        { category: 'transport', retryable: true, outcomeUnknown: true, partsDelivered },
        { cause: error },
      );
    }
    const neverSent = CONNECT_PHASE_ERROR_CODES.has(causeCode(error) ?? '');
    return new WhatsAppSendError(
      neverSent
        ? `WhatsApp request could not connect (${causeCode(error)})`
        : `WhatsApp request failed after it was sent (${causeCode(error) ?? 'connection lost'}); Meta may have accepted it`,
      { category: 'transport', retryable: true, outcomeUnknown: !neverSent, partsDelivered },
      { cause: error },
    );
  }
}

interface SuccessAnswer {
  readonly ok: true;
  readonly httpStatus: number;
  readonly body: unknown;
}

function readMessageId(answer: SuccessAnswer, partsDelivered: number): string {
  const id = (answer.body as { messages?: Array<{ id?: unknown }> } | null)?.messages?.[0]?.id;
  if (typeof id === 'string' && id.length > 0) return id;
  throw unreadableSuccess(answer.httpStatus, partsDelivered);
}

function unreadableSuccess(httpStatus: number, partsDelivered: number): WhatsAppSendError {
  return new WhatsAppSendError(
    `WhatsApp answered HTTP ${httpStatus} without a message id; Meta may have accepted the message`,
    { category: 'transport', retryable: true, outcomeUnknown: true, httpStatus, partsDelivered },
  );
}

interface GraphApiErrorBody {
  readonly error?: {
    readonly message?: unknown;
    readonly code?: unknown;
    readonly error_subcode?: unknown;
    readonly fbtrace_id?: unknown;
  };
}

function graphApiError(httpStatus: number, body: unknown, partsDelivered: number): WhatsAppSendError {
  const error = (body as GraphApiErrorBody | undefined)?.error;
  const code = typeof error?.code === 'number' ? error.code : undefined;
  const treatment = classifyGraphApiError(httpStatus, code);
  const metaMessage = typeof error?.message === 'string' ? error.message : treatment.title;
  return new WhatsAppSendError(`WhatsApp rejected the request: ${metaMessage} (HTTP ${httpStatus}${code === undefined ? '' : `, code ${code}`})`, {
    category: treatment.category,
    retryable: treatment.retryable,
    outcomeUnknown: false,
    metaCode: code,
    subcode: typeof error?.error_subcode === 'number' ? error.error_subcode : undefined,
    httpStatus,
    fbtraceId: typeof error?.fbtrace_id === 'string' ? error.fbtrace_id : undefined,
    partsDelivered,
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function causeCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return typeof cause?.code === 'string' ? cause.code : undefined;
}
