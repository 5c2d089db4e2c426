import type { ConversationDetail, ConversationSummary, ConversationView, HistoryEntry, Page, SessionState, SignedIn } from './api-types';

/** A call the API refused (`status`), or that never got an answer (`status` undefined). */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: number | undefined,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * The operator API over `fetch`. The session cookie is HttpOnly (the browser sends it); the CSRF
 * token lives only in this object's memory and is read again from `GET /api/session` after a reload.
 */
export class OperatorApi {
  private csrfToken: string | undefined;

  /** @param onSessionLost called when a signed-in call answers 401 (the session expired at midnight). */
  constructor(private readonly onSessionLost: () => void) {}

  /** The signed-in operator, or undefined when there is no valid session. */
  async currentSession(): Promise<SignedIn | undefined> {
    try {
      return this.remember(await this.request<SignedIn>('GET', 'session', undefined, false));
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return undefined;
      throw error;
    }
  }

  async signIn(token: string): Promise<SignedIn> {
    return this.remember(await this.request<SignedIn>('POST', 'session', { token }, false));
  }

  async signOut(): Promise<void> {
    try {
      await this.request('DELETE', 'session', undefined, false);
    } finally {
      this.csrfToken = undefined;
    }
  }

  listConversations(state: SessionState): Promise<Page<ConversationSummary>> {
    return this.request('GET', `conversations?state=${state}&limit=100`);
  }

  conversation(customerId: string): Promise<ConversationDetail> {
    return this.request('GET', `conversations/${encodeURIComponent(customerId)}?limit=50`);
  }

  async act(customerId: string, action: 'claim' | 'release' | 'close'): Promise<ConversationView> {
    return (await this.request<{ conversation: ConversationView }>('POST', `conversations/${encodeURIComponent(customerId)}/${action}`)).conversation;
  }

  async reply(customerId: string, text: string): Promise<HistoryEntry> {
    return (await this.request<{ message: HistoryEntry }>('POST', `conversations/${encodeURIComponent(customerId)}/messages`, { text })).message;
  }

  setAvailability(available: boolean): Promise<{ available: boolean; since?: string }> {
    return this.request('PUT', 'me/availability', { available });
  }

  /** An admin call (`/api/admin/…`). */
  admin<T>(method: Method, path: string, body?: unknown): Promise<T> {
    return this.request(method, `admin/${path}`, body);
  }

  private remember(session: SignedIn): SignedIn {
    this.csrfToken = session.csrfToken;
    return session;
  }

  private async request<T>(method: Method, path: string, body?: unknown, reportsSessionLoss = true): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (method !== 'GET' && this.csrfToken !== undefined) headers['x-csrf-token'] = this.csrfToken;
    let response: Response;
    try {
      response = await fetch(`/api/${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin', cache: 'no-store' });
    } catch {
      throw new ApiError(undefined, 'network', 'No answer from the server');
    }
    const payload = (await response.json().catch(() => ({}))) as { error?: string; message?: string };
    if (response.ok) return payload as T;
    if (response.status === 401 && reportsSessionLoss) {
      this.csrfToken = undefined;
      this.onSessionLost();
    }
    throw new ApiError(response.status, payload.error ?? 'http_error', payload.message ?? response.statusText);
  }
}
