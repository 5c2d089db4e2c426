import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { tableRepositories } from './dynamo-table';
import { newCustomer } from './ids';
import { startOperatorPipeline } from './pipeline';
import { waitUntil } from './waiting';

export interface ApiAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any;
}

export interface CallOptions {
  /** Default: the signed-in session's cookie; `null` sends none. */
  readonly cookie?: string | null;
  /** Default: the session's CSRF token on non-GET calls; `null` sends none. */
  readonly csrf?: string | null;
  /** A raw body (sent as is) instead of JSON. */
  readonly rawBody?: string | Uint8Array;
  readonly contentType?: string;
  /** More request headers (`if-none-match`). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** The operator API over real HTTP, as the console calls it (cookie and CSRF header carried by hand). */
export class ConsoleClient {
  cookie?: string;
  csrfToken?: string;

  constructor(readonly baseUrl: string) {}

  async call(method: string, path: string, body?: unknown, options: CallOptions = {}): Promise<ApiAnswer> {
    const headers: Record<string, string> = { ...options.headers };
    const cookie = options.cookie === undefined ? this.cookie : options.cookie;
    if (cookie) headers.cookie = cookie;
    const csrf = options.csrf === undefined ? this.csrfToken : options.csrf;
    if (method !== 'GET' && csrf) headers['x-csrf-token'] = csrf;
    const payload = options.rawBody ?? (body === undefined ? undefined : JSON.stringify(body));
    if (payload !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body: payload });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON (the console page): keep the text.
    }
    return { status: response.status, headers: response.headers, body: parsed };
  }

  /** Trades a login token for a session and keeps its cookie and CSRF token. */
  async signIn(token: string): Promise<ApiAnswer> {
    const answer = await this.call('POST', '/api/session', { token }, { cookie: null, csrf: null });
    if (answer.status === 200) {
      this.cookie = answer.headers.get('set-cookie')!.split(';')[0];
      this.csrfToken = answer.body.csrfToken;
    }
    return answer;
  }
}

/** The login link the pipeline sent `phone` over WhatsApp after the last `login`. */
export function lastLoginToken(pipeline: LocalPipeline, phone: string): string {
  const links = pipeline.fakeWhatsApp
    .sent()
    .filter((message) => message.recipient === phone)
    .map((message) => /\/login#([A-Za-z0-9_-]+)/.exec(message.text)?.[1])
    .filter((token): token is string => token !== undefined);
  if (links.length === 0) throw new Error('No login link was sent');
  return links[links.length - 1];
}

/** Sends `login` as the operator over WhatsApp, waits for the link, signs in with it. */
export async function signInOverWhatsApp(pipeline: LocalPipeline, phone: string): Promise<ConsoleClient> {
  await pipeline.sendCustomerMessage(phone, 'login');
  await pipeline.waitForIdle();
  const client = new ConsoleClient(pipeline.consoleUrl!);
  const answer = await client.signIn(lastLoginToken(pipeline, phone));
  if (answer.status !== 200) throw new Error(`Sign-in failed with ${answer.status}: ${JSON.stringify(answer.body)}`);
  return client;
}

/** A pipeline with one admin and one operator (Bia), both signed in over WhatsApp. */
export async function startStaffedPipeline(
  adminPhone: string,
  operatorPhone: string,
  options: Parameters<typeof startOperatorPipeline>[1] = {},
): Promise<{ pipeline: LocalPipeline; repositories: ReturnType<typeof tableRepositories>; admin: ConsoleClient; operator: ConsoleClient }> {
  const pipeline = await startOperatorPipeline([adminPhone], options);
  const repositories = tableRepositories(pipeline.tableName);
  await repositories.config.set({ key: 'operators', value: { [operatorPhone]: { role: 'operator', name: 'Bia' } }, author: adminPhone });
  return { pipeline, repositories, admin: await signInOverWhatsApp(pipeline, adminPhone), operator: await signInOverWhatsApp(pipeline, operatorPhone) };
}

/** What the fake WhatsApp API took for `recipient`, in order. */
export function textsSentTo(pipeline: LocalPipeline, recipient: string): string[] {
  return pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === recipient).map((message) => message.text);
}

/** A new customer whose conversation the agent handed to people (nobody was available: the customer was told so). */
export async function handedOffCustomer(pipeline: LocalPipeline, options: { customer?: string; sentAt?: Date; profileName?: string } = {}): Promise<string> {
  const { customer = newCustomer(), ...message } = options;
  await pipeline.sendCustomerMessage(customer, 'Quero falar com alguém #dado name=Ana #humano', message);
  await waitUntil(() => textsSentTo(pipeline, customer).length === 2, 10_000, 'the agent’s reply and the handoff notice');
  await pipeline.waitForIdle();
  expect((await pipeline.conversation(customer)).session?.state).toBe('AWAITING_HUMAN');
  return customer;
}
