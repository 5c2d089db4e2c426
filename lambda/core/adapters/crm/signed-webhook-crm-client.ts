import { createHmac, timingSafeEqual } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { CrmSyncRequest } from '../../domain/crm-sync';
import { PipelineError } from '../../domain/errors';
import type { CrmClient, CrmSendOutcome } from '../../ports/crm-client';
import { parseAcceptedIds } from './crm-answer';

/** Header carrying `t={unix seconds},v2={hex HMAC-SHA256 of the string to sign}` (docs/CRM.md). */
export const CRM_SIGNATURE_HEADER = 'x-crm-signature';
/** Header carrying `{sessionId}:{revision}`, the same value as the body's `idempotencyKey`; signed. */
export const CRM_IDEMPOTENCY_HEADER = 'idempotency-key';

const MAX_ANSWER_BYTES = 64 * 1024;
/** HTTP answers that ask to try again later. */
const RETRYABLE_STATUSES = new Set([408, 409, 425, 429]);

/** The CRM webhook's URL is unusable (checked at cold start, before anything is sent). */
export class CrmWebhookUrlError extends PipelineError {
  override readonly name = 'CrmWebhookUrlError';
  override readonly code = 'invalid_crm_webhook_url';
  override readonly retryable = false;
}

/** `https:` anywhere; plain `http:` only to this machine (the local runtime's fake CRM). */
export function checkedCrmWebhookUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CrmWebhookUrlError('The CRM webhook URL is not a URL; set an https:// address.');
  }
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new CrmWebhookUrlError(`The CRM webhook URL must use https (got ${url.protocol}//${url.hostname}); plain http is only allowed to 127.0.0.1 or localhost.`);
  }
  if (url.username !== '' || url.password !== '') throw new CrmWebhookUrlError('The CRM webhook URL must not carry credentials; the body is signed instead.');
  return url;
}

/**
 * What the signature covers, everything a receiver acts or keys on: the scheme, the sending time,
 * the `Idempotency-Key` header and the raw body, one per line. A header value holds no line break
 * and `t` is digits, so the first three line breaks delimit the fields: no bytes can move from one
 * to another.
 */
export function crmStringToSign(timestampSeconds: number, idempotencyKey: string, body: string): string {
  return `v2\n${timestampSeconds}\n${idempotencyKey}\n${body}`;
}

/** `t=…,v2=…` for a request at `timestampSeconds`: what the receiver recomputes and compares. */
export function crmSignature(secret: string, timestampSeconds: number, idempotencyKey: string, body: string): string {
  const digest = createHmac('sha256', secret).update(crmStringToSign(timestampSeconds, idempotencyKey, body), 'utf8').digest('hex');
  return `t=${timestampSeconds},v2=${digest}`;
}

/**
 * What a receiver does with the headers: recompute the HMAC over the string to sign (the
 * `Idempotency-Key` header and the raw body as received), compare in constant time, and refuse
 * timestamps further than `toleranceSeconds` from its clock (replays).
 */
export function verifyCrmSignature(
  secret: string,
  request: { readonly signature: string | undefined; readonly idempotencyKey: string | undefined; readonly body: string },
  nowSeconds: number,
  toleranceSeconds = 300,
): boolean {
  const match = /^t=(\d{1,12}),v2=([0-9a-f]{64})$/.exec(request.signature ?? '');
  if (!match || request.idempotencyKey === undefined || /[\r\n]/.test(request.idempotencyKey)) return false;
  const timestamp = Number(match[1]);
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(crmSignature(secret, timestamp, request.idempotencyKey, request.body));
  const given = Buffer.from(request.signature!);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

export interface SignedWebhookCrmClientOptions {
  readonly url: string;
  /** The signing secret (from Secrets Manager in a deployment). */
  readonly secret: () => Promise<string>;
  /** Epoch milliseconds. Default `Date.now`. */
  readonly now?: () => number;
}

/**
 * The CRM behind an HTTPS endpoint: one POST per revision, its idempotency key and JSON body signed
 * with HMAC-SHA256.
 * Whether the request left decides what a failure means: refused connections and DNS errors are
 * retryable (nothing reached the CRM); a timeout or a cut connection after the body was written is
 * `unknown`.
 */
export class SignedWebhookCrmClient implements CrmClient {
  private readonly url: URL;
  private readonly now: () => number;

  constructor(private readonly options: SignedWebhookCrmClientOptions) {
    this.url = checkedCrmWebhookUrl(options.url);
    this.now = options.now ?? Date.now;
  }

  async send(request: CrmSyncRequest, { timeoutMs }: { readonly timeoutMs: number }): Promise<CrmSendOutcome> {
    let secret: string;
    try {
      secret = await this.options.secret();
    } catch (error) {
      return { kind: 'retryable', reason: `crm_secret_unavailable: ${(error as Error).name}` };
    }
    const body = JSON.stringify(request);
    const headers = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      [CRM_SIGNATURE_HEADER]: crmSignature(secret, Math.floor(this.now() / 1000), request.idempotencyKey, body),
      [CRM_IDEMPOTENCY_HEADER]: request.idempotencyKey,
    };
    return new Promise<CrmSendOutcome>((resolve) => {
      let bodyWritten = false;
      let settled = false;
      const settle = (outcome: CrmSendOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(outcome);
      };
      const send = this.url.protocol === 'https:' ? httpsRequest : httpRequest;
      const outgoing = send(this.url, { method: 'POST', headers }, (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_ANSWER_BYTES) chunks.push(chunk);
        });
        response.on('error', () => settle({ kind: 'unknown', reason: 'crm_answer_cut_off' }));
        response.on('end', () => settle(answerOutcome(response.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'))));
      });
      const timer = setTimeout(() => {
        settle(bodyWritten ? { kind: 'unknown', reason: `crm_timeout after ${timeoutMs} ms` } : { kind: 'retryable', reason: 'crm_unreachable: connect timeout' });
        outgoing.destroy();
      }, timeoutMs);
      outgoing.on('finish', () => (bodyWritten = true));
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        settle(bodyWritten ? { kind: 'unknown', reason: `crm_connection_lost: ${error.code ?? error.name}` } : { kind: 'retryable', reason: `crm_unreachable: ${error.code ?? error.name}` });
      });
      outgoing.end(body);
    });
  }
}

function answerOutcome(status: number, text: string): CrmSendOutcome {
  if (status >= 200 && status < 300) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return parseAcceptedIds(parsed, `HTTP ${status}`);
  }
  if (status >= 500 || RETRYABLE_STATUSES.has(status)) return { kind: 'retryable', reason: `crm_http_${status}` };
  return { kind: 'refused', reason: `crm_http_${status}${refusalDetail(text)}` };
}

/** A short, printable detail from a refusal body (`{"reason": "…"}`), never the whole answer. */
function refusalDetail(text: string): string {
  try {
    const reason = (JSON.parse(text) as { reason?: unknown }).reason;
    return typeof reason === 'string' && reason.trim() !== '' ? `: ${reason.replace(/[^\x20-\x7e]/g, '?').slice(0, 200)}` : '';
  } catch {
    return '';
  }
}
