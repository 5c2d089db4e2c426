import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { type LoopbackServer, serveOnLoopback } from '../fake-aws/loopback-server';
import { readBody } from '../fake-aws/request-body';
import type { FakeGraphApi } from '../fake-whatsapp/fake-graph-api';
import type { LocalPipeline } from './local-pipeline';
import { LOCAL_BUSINESS } from './meta-notification';

/** One message of a customer's chat, as the customer-side page shows it. */
export interface ChatEntry {
  readonly id: string;
  /** `customer`: typed by the customer, through the webhook; `business`: a reply Meta (the fake Graph API) accepted. */
  readonly author: 'customer' | 'business';
  readonly text: string;
  readonly at: string;
  /**
   * Where the message got to, as far as the local runtime knows: for a customer's message the
   * webhook's answer (`webhook 200`); for a reply what the pipeline recorded of Meta's status
   * reports (`delivered`, `read`; the console shows the same), else the last status WhatsApp (the
   * fake Graph API) reported (a `failed` reply leaves the history the pipeline reads), else `sent`
   * (the Graph API accepted it). Free text, so every status shows as it is reported.
   */
  readonly status: string;
}

/** What the chat needs of the local pipeline. */
export type ChatPipeline = Pick<LocalPipeline, 'sendCustomerMessage' | 'conversation'> & { readonly fakeWhatsApp: Pick<FakeGraphApi, 'sent'> };

const CUSTOMER_PATTERN = /^\d{8,15}$/;
const MAX_TEXT_LENGTH = 4096;

/**
 * The customer side of `npm start`: messages sent as a customer through the real webhook path
 * (signed like Meta), and the replies the fake Graph API received for that customer, in order. The
 * terminal chat and the browser page send through the same instance, so both show one conversation.
 */
export class CustomerChat {
  private readonly customerMessages: (ChatEntry & { readonly customer: string })[] = [];

  constructor(private readonly pipeline: ChatPipeline) {}

  async send(customer: string, text: string): Promise<{ status: number; messageId: string }> {
    const at = new Date().toISOString();
    const delivery = await this.pipeline.sendCustomerMessage(customer, text);
    this.customerMessages.push({ id: delivery.messageId, customer, author: 'customer', text, at, status: `webhook ${delivery.status}` });
    return delivery;
  }

  /** The customer's messages and the business's replies to them, oldest first. */
  async transcript(customer: string): Promise<ChatEntry[]> {
    const { history } = await this.pipeline.conversation(customer);
    const recorded = new Map(
      history.flatMap((message) => {
        const status = message.receipt?.status ?? message.deliveryStatus;
        return message.providerMessageId && status ? [[message.providerMessageId, status] as const] : [];
      }),
    );
    const written = this.customerMessages.filter((message) => message.customer === customer).map(({ customer: _, ...entry }) => entry);
    const replies = this.pipeline.fakeWhatsApp
      .sent()
      .filter((message) => message.recipient === customer)
      .map((message): ChatEntry => ({
        id: message.providerMessageId,
        author: 'business',
        text: message.text,
        at: message.receivedAt,
        // Accepted by the Graph API is "sent" in WhatsApp's terms.
        status: recorded.get(message.providerMessageId) ?? message.status ?? 'sent',
      }));
    return [...written, ...replies].sort((a, b) => a.at.localeCompare(b.at));
  }
}

export interface CustomerChatServerOptions {
  /** Default 0 (a free port). */
  readonly port?: number;
  /** The customer the page writes as unless its address says `?from=`. */
  readonly defaultCustomer: string;
}

/** The customer-side page on 127.0.0.1. */
export interface CustomerChatServer {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  close(): Promise<void>;
}

const PAGE_DIRECTORY = path.join(__dirname, 'customer-chat');
const PAGE_FILES: Readonly<Record<string, string>> = {
  '/': 'index.html',
  '/chat.mjs': 'chat.mjs',
  '/chat.css': 'chat.css',
};
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};
/** The page's own files only: no inline script, no other origin. */
const CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * Serves the phone-like customer chat: the page, `GET /api/conversation?customer=`, and
 * `POST /api/messages` (JSON `{customer, text}`). Only requests addressed to this loopback server
 * are answered, and only JSON is posted, so another site open in the browser cannot write as a
 * customer.
 */
export async function startCustomerChatServer(chat: CustomerChat, options: CustomerChatServerOptions): Promise<CustomerChatServer> {
  let origin = '';
  const server: LoopbackServer = await serveOnLoopback(
    (request, response) => handle(chat, options, origin, request, response),
    (response, error) => sendJson(response, 500, { error: String(error) }),
    options.port,
  );
  origin = server.endpoint;
  return { url: `${server.endpoint}/`, close: () => server.close() };
}

async function handle(chat: CustomerChat, options: CustomerChatServerOptions, origin: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? '/', origin);
  // A page elsewhere that rebinds its name to 127.0.0.1 still sends its own Host.
  if (request.headers.host !== url.host) return sendJson(response, 421, { error: 'This server answers only at its loopback address.' });
  if (request.method === 'GET' && Object.hasOwn(PAGE_FILES, url.pathname)) {
    const file = PAGE_FILES[url.pathname];
    response.writeHead(200, { 'content-type': CONTENT_TYPES[path.extname(file)], 'content-security-policy': CONTENT_SECURITY_POLICY, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    response.end(await readFile(path.join(PAGE_DIRECTORY, file)));
    return;
  }
  if (request.method === 'GET' && url.pathname === '/favicon.ico') {
    response.writeHead(204).end();
    return;
  }
  if (request.method === 'GET' && url.pathname === '/api/conversation') {
    const customer = url.searchParams.get('customer') ?? options.defaultCustomer;
    if (!CUSTOMER_PATTERN.test(customer)) return sendJson(response, 400, { error: 'customer must be a WhatsApp id of 8 to 15 digits' });
    return sendJson(response, 200, { customer, business: { displayPhoneNumber: LOCAL_BUSINESS.displayPhoneNumber }, defaultCustomer: options.defaultCustomer, messages: await chat.transcript(customer) });
  }
  if (request.method === 'POST' && url.pathname === '/api/messages') {
    if (!/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? '')) return sendJson(response, 415, { error: 'send JSON {customer, text}' });
    let input: { customer?: unknown; text?: unknown };
    try {
      input = JSON.parse(await readBody(request)) as typeof input;
    } catch {
      return sendJson(response, 400, { error: 'the body is not JSON' });
    }
    const { customer, text } = input;
    if (typeof customer !== 'string' || !CUSTOMER_PATTERN.test(customer)) return sendJson(response, 400, { error: 'customer must be a WhatsApp id of 8 to 15 digits' });
    if (typeof text !== 'string' || text.trim() === '' || text.length > MAX_TEXT_LENGTH) return sendJson(response, 400, { error: `text must be 1 to ${MAX_TEXT_LENGTH} characters` });
    const delivery = await chat.send(customer, text.trim());
    return sendJson(response, delivery.status === 200 ? 200 : 502, delivery);
  }
  sendJson(response, 404, { error: `no ${request.method} ${url.pathname}` });
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  response.end(JSON.stringify(body));
}
