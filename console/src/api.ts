import { PAYLOAD_HASH_HEADER, sha256Hex } from './payload-hash';
import type { AnswerOf, ApiErrorBody, ApiProblem, Availability, BodyOf, ConversationDetail, ConversationState, ConversationSummary, ConversationView, HistoryEntry, MediaLink, MessageTemplate, OperatorApiCall, OperatorNote, Page, QuickReply, QuickReplyEdit, SignedInSession, TemplateSendRequest, TurnTraceView } from '../../lib/contract/operator-api';

const MAX_VALIDATED_ANSWERS = 32;

/** A call the API refused (`status`), or that never got an answer (`status` undefined). */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: number | undefined,
    readonly code: string,
    message: string,
    /** What exactly to change, when the API said so in parts the console words (`error.<code>` in i18n.ts). */
    readonly problem?: ApiProblem,
  ) {
    super(message);
  }
}

/** How to fill in a call's path: its `:name` segments, and the query. */
export interface CallOptions<Call extends OperatorApiCall> {
  readonly params?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string | number | undefined>>;
  readonly body?: BodyOf<Call>;
  /** A file sent as the body itself, with its type and its name (the attachment call). */
  readonly file?: File;
}

/**
 * The operator API over `fetch`. The session cookie is HttpOnly (the browser sends it); the CSRF
 * token lives only in this object's memory and is read again from `GET /api/session` after a reload.
 */
export class OperatorApi {
  private csrfToken: string | undefined;
  /** The last answer of each GET that came with an `ETag`: asked again with `If-None-Match`, a `304` answers it. */
  private readonly validated = new Map<string, { readonly etag: string; readonly payload: unknown }>();

  /** @param onSessionLost called when a signed-in call answers 401 (the session expired at midnight). */
  constructor(private readonly onSessionLost: () => void) {}

  /** The signed-in operator, or undefined when there is no valid session. */
  async currentSession(): Promise<SignedInSession | undefined> {
    try {
      return this.remember(await this.request('GET session', {}, false));
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return undefined;
      throw error;
    }
  }

  async signIn(token: string): Promise<SignedInSession> {
    return this.remember(await this.request('POST session', { body: { token } }, false));
  }

  async signOut(): Promise<void> {
    try {
      await this.request('DELETE session', {}, false);
    } finally {
      this.csrfToken = undefined;
      this.validated.clear();
    }
  }

  /** One page of a state's conversations (`mine`: only the caller's own; `search`: a name or phone). */
  listConversations(state: ConversationState, options: { readonly mine?: boolean; readonly search?: string; readonly cursor?: string } = {}): Promise<Page<ConversationSummary>> {
    return this.request('GET conversations', { query: { state, limit: 100, assigned: options.mine ? 'me' : undefined, search: options.search, cursor: options.cursor } });
  }

  conversation(customerId: string): Promise<ConversationDetail> {
    return this.request('GET conversations/:customerId', { params: { customerId }, query: { limit: 50 } });
  }

  /** A short-lived link to a message's stored attachment. */
  mediaLink(customerId: string, message: Pick<HistoryEntry, 'messageId' | 'at'>): Promise<MediaLink> {
    return this.request('GET conversations/:customerId/messages/:messageId/media', { params: { customerId, messageId: message.messageId }, query: { at: message.at } });
  }

  async act(customerId: string, action: 'claim' | 'take-over' | 'release' | 'close'): Promise<ConversationView> {
    return (await this.request(`POST conversations/:customerId/${action}`, { params: { customerId } })).conversation;
  }

  /** Sends the operator's text, with reply buttons of these titles when there are any. */
  async reply(customerId: string, text: string, buttons: readonly string[] = []): Promise<HistoryEntry> {
    return (await this.request('POST conversations/:customerId/messages', { params: { customerId }, body: { text, ...(buttons.length === 0 ? {} : { buttons }) } })).message;
  }

  /** Sends an image or a PDF to the customer. */
  async attach(customerId: string, file: File): Promise<HistoryEntry> {
    return (await this.request('POST conversations/:customerId/attachments', { params: { customerId }, file })).message;
  }

  async sendTemplate(customerId: string, send: TemplateSendRequest): Promise<HistoryEntry> {
    return (await this.request('POST conversations/:customerId/templates', { params: { customerId }, body: send })).message;
  }

  /** Admins only: what the pipeline did for the turn that answered `messageId`. */
  async turnTrace(customerId: string, messageId: string): Promise<TurnTraceView> {
    return (await this.request('GET conversations/:customerId/turns/:messageId/trace', { params: { customerId, messageId } })).trace;
  }

  async notes(customerId: string): Promise<readonly OperatorNote[]> {
    return (await this.request('GET conversations/:customerId/notes', { params: { customerId }, query: { limit: 100 } })).items;
  }

  async addNote(customerId: string, text: string): Promise<OperatorNote> {
    return (await this.request('POST conversations/:customerId/notes', { params: { customerId }, body: { text } })).note;
  }

  async quickReplies(): Promise<readonly QuickReply[]> {
    return (await this.request('GET quick-replies')).items;
  }

  async saveQuickReply(id: string, edit: QuickReplyEdit): Promise<QuickReply> {
    return (await this.request('PUT admin/quick-replies/:id', { params: { id }, body: edit })).quickReply;
  }

  async removeQuickReply(id: string): Promise<void> {
    await this.request('DELETE admin/quick-replies/:id', { params: { id } });
  }

  async templates(): Promise<readonly MessageTemplate[]> {
    return (await this.request('GET templates', { query: { limit: 100 } })).items;
  }

  setAvailability(available: boolean): Promise<Availability> {
    return this.request('PUT me/availability', { body: { available } });
  }

  private rememberValidated(method: string, url: string, etag: string | null, payload: unknown): void {
    if (method !== 'GET' || etag === null) return;
    // Searches and pages come and go: keep the most recent few, the polled lists among them.
    this.validated.delete(url);
    this.validated.set(url, { etag, payload });
    if (this.validated.size > MAX_VALIDATED_ANSWERS) this.validated.delete(this.validated.keys().next().value!);
  }

  private remember(session: SignedInSession): SignedInSession {
    this.csrfToken = session.csrfToken;
    return session;
  }

  /** One call of the operator API (its key names the method and the path, the contract its body and answer). */
  async request<Call extends OperatorApiCall>(call: Call, options: CallOptions<Call> = {}, reportsSessionLoss = true): Promise<AnswerOf<Call>> {
    const [method, pattern] = call.split(' ');
    const path = pattern.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(options.params?.[name] ?? ''));
    const query = new URLSearchParams(Object.entries(options.query ?? {}).flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)]]))).toString();
    const { file } = options;
    const body = file !== undefined ? new Uint8Array(await file.arrayBuffer()) : options.body === undefined ? undefined : JSON.stringify(options.body);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (file !== undefined) Object.assign(headers, { 'content-type': file.type, 'x-file-name': encodeURIComponent(file.name) });
    else if (body !== undefined) headers['content-type'] = 'application/json';
    if (method !== 'GET') {
      if (this.csrfToken !== undefined) headers['x-csrf-token'] = this.csrfToken;
      headers[PAYLOAD_HASH_HEADER] = await sha256Hex(body ?? '');
    }
    const url = `/api/${path}${query === '' ? '' : `?${query}`}`;
    const known = method === 'GET' ? this.validated.get(url) : undefined;
    if (known !== undefined) headers['if-none-match'] = known.etag;
    let response: Response;
    try {
      response = await fetch(url, { method, headers, body, credentials: 'same-origin', cache: 'no-store' });
    } catch {
      throw new ApiError(undefined, 'network', 'No answer from the server');
    }
    if (response.status === 304 && known !== undefined) return known.payload as AnswerOf<Call>;
    const payload = (await response.json().catch(() => ({}))) as Partial<ApiErrorBody>;
    if (response.ok) {
      this.rememberValidated(method, url, response.headers.get('etag'), payload);
      return payload as AnswerOf<Call>;
    }
    if (response.status === 401 && reportsSessionLoss) {
      this.csrfToken = undefined;
      this.onSessionLost();
    }
    throw new ApiError(response.status, payload.error ?? 'http_error', payload.message ?? response.statusText, payload.problem);
  }
}

