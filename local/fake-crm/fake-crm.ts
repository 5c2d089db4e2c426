import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CRM_IDEMPOTENCY_HEADER, CRM_SIGNATURE_HEADER, verifyCrmSignature } from '../../lambda/core/adapters/crm/signed-webhook-crm-client';
import type { CrmSyncRequest } from '../../lambda/core/domain/crm-sync';

/** One signed request the fake CRM received, whatever it answered. */
export interface ReceivedCrmRequest {
  readonly request: CrmSyncRequest;
  readonly idempotencyKey: string;
  /** What the fake did: created a deal, updated one, replayed an earlier answer, or a scripted failure. */
  readonly handling: 'created' | 'updated' | 'replayed' | 'failed' | 'refused' | 'hung';
}

/** A deal as the fake CRM holds it. */
export interface FakeCrmDeal {
  readonly dealId: string;
  readonly contactId: string;
  readonly sessionId: string;
  readonly stage: unknown;
  readonly deal: Readonly<Record<string, unknown>>;
  readonly revision: string;
}

type Script = { readonly kind: 'fail'; readonly status: number } | { readonly kind: 'refuse'; readonly reason: string } | { readonly kind: 'hang'; readonly ms: number };

export interface FakeCrmOptions {
  /** The signing secret requests must be signed with. Default `fake-crm-secret`. */
  readonly secret?: string;
  /** Port on 127.0.0.1; default 0 (a free one). */
  readonly port?: number;
  /** Called for every request received (the local runtime logs it). */
  readonly onRequest?: (received: ReceivedCrmRequest) => void;
}

/**
 * A stand-in for a consumer's CRM webhook on 127.0.0.1: it checks the HMAC signature (which covers
 * the idempotency key and the body), creates a contact and a deal for requests without ids,
 * updates them for requests with ids, and, like a careful CRM, answers a repeated idempotency key
 * with its first answer instead of acting twice. It keys on the signed header only: a replay with
 * another key fails the signature.
 * Failure injection applies to the next signed requests, in order: {@link failNext},
 * {@link refuseNext}, {@link hangNext} (the request is processed — a deal may be created — and the
 * answer never comes in time).
 */
export class FakeCrm {
  static async start(options: FakeCrmOptions = {}): Promise<FakeCrm> {
    const crm = new FakeCrm(options);
    await new Promise<void>((resolve, reject) => {
      crm.server.once('error', reject);
      crm.server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
    });
    return crm;
  }

  readonly secret: string;
  /** Requests with a missing or wrong signature (answered 401, never acted on). */
  badSignatures = 0;
  private readonly server: Server;
  private readonly log: ReceivedCrmRequest[] = [];
  private readonly dealsById = new Map<string, FakeCrmDeal>();
  private readonly answers = new Map<string, { contactId: string; dealId: string }>();
  private readonly scripts: Script[] = [];
  private readonly hanging = new Set<ServerResponse>();
  private nextId = 1;

  private constructor(private readonly options: FakeCrmOptions) {
    this.secret = options.secret ?? 'fake-crm-secret';
    this.server = createServer((request, response) => {
      this.handle(request, response).catch(() => {
        if (!response.headersSent) answer(response, 500, { reason: 'fake CRM failure' });
      });
    });
  }

  /** The webhook URL to configure, e.g. `http://127.0.0.1:43210/crm`. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/crm`;
  }

  received(): ReceivedCrmRequest[] {
    return [...this.log];
  }

  deals(): FakeCrmDeal[] {
    return [...this.dealsById.values()];
  }

  /** The next `times` requests are answered with HTTP `status` (e.g. 503, 429) and not acted on. */
  failNext(status: number, times = 1): void {
    for (let i = 0; i < times; i++) this.scripts.push({ kind: 'fail', status });
  }

  /** The next request is refused for good (HTTP 422 with `reason`). */
  refuseNext(reason: string): void {
    this.scripts.push({ kind: 'refuse', reason });
  }

  /** The next request is acted on, and its answer is held for `ms` (longer than the client waits). */
  hangNext(ms: number): void {
    this.scripts.push({ kind: 'hang', ms });
  }

  async close(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const signature = singleHeader(request, CRM_SIGNATURE_HEADER);
    const idempotencyKey = singleHeader(request, CRM_IDEMPOTENCY_HEADER);
    if (request.method !== 'POST' || idempotencyKey === undefined || !verifyCrmSignature(this.secret, { signature, idempotencyKey, body }, Math.floor(Date.now() / 1000))) {
      this.badSignatures++;
      answer(response, 401, { reason: 'bad signature' });
      return;
    }
    const crmRequest = JSON.parse(body) as CrmSyncRequest;
    const script = this.scripts.shift();
    const record = (handling: ReceivedCrmRequest['handling']) => {
      const received = { request: crmRequest, idempotencyKey, handling };
      this.log.push(received);
      this.options.onRequest?.(received);
    };
    if (script?.kind === 'fail') {
      record('failed');
      answer(response, script.status, { reason: 'scripted failure' });
      return;
    }
    if (script?.kind === 'refuse') {
      record('refused');
      answer(response, 422, { reason: script.reason });
      return;
    }
    const replay = this.answers.get(idempotencyKey);
    const ids = replay ?? this.apply(crmRequest);
    this.answers.set(idempotencyKey, ids);
    if (script?.kind === 'hang') {
      record('hung');
      this.hanging.add(response);
      setTimeout(() => {
        this.hanging.delete(response);
        if (!response.destroyed) answer(response, 200, ids);
      }, script.ms).unref();
      return;
    }
    record(replay ? 'replayed' : crmRequest.dealId === undefined ? 'created' : 'updated');
    answer(response, 200, ids);
  }

  private apply(request: CrmSyncRequest): { contactId: string; dealId: string } {
    const contactId = request.contactId ?? `contact-${this.nextId}`;
    const dealId = request.dealId ?? `deal-${this.nextId}`;
    if (request.dealId === undefined) this.nextId++;
    this.dealsById.set(dealId, { dealId, contactId, sessionId: request.sessionId, stage: request.deal.stage, deal: request.deal, revision: request.revision });
    return { contactId, dealId };
  }
}

function singleHeader(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

function answer(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
