// The Graph API calls of connecting a Meta app to a deployed pipeline: check the token and the
// phone number, subscribe the app to the WhatsApp Business Account, set the webhook callback.
import { type DestinationRule, fetchSafely, META_GRAPH_HOSTS, UnsafeDestinationError } from '../lambda/core/adapters/outbound/safe-destination';

/** A Graph API error answer (`{error: {message, type, code, error_subcode?}}`), or no answer at all. */
export class GraphApiCallError extends Error {
  override readonly name = 'GraphApiCallError';

  constructor(
    readonly httpStatus: number | undefined,
    readonly code: number | undefined,
    readonly subcode: number | undefined,
    message: string,
  ) {
    super(message);
  }
}

/** What `GET /debug_token` tells of an access token. */
export interface TokenInfo {
  readonly isValid: boolean;
  readonly appId?: string;
  readonly application?: string;
  readonly type?: string;
  /** Seconds since the epoch; 0 for a token that never expires. */
  readonly expiresAt?: number;
  readonly scopes: readonly string[];
  /** Permission → the objects (e.g. WhatsApp Business Accounts) it is limited to. */
  readonly targets: ReadonlyMap<string, readonly string[]>;
  /** Meta's reason when the token is not valid. */
  readonly problem?: string;
}

export interface BusinessPhoneNumber {
  readonly displayPhoneNumber: string;
  readonly verifiedName: string;
}

const REQUEST_TIMEOUT_MS = 15_000;

/** Where the command sends the app secret and the token: Meta's Graph API, as every Cloud API adapter does (safe-destination.ts). */
export const META_SETUP_GRAPH_API: DestinationRule = { purpose: 'the Graph API', hosts: META_GRAPH_HOSTS };

/** The Graph API at `baseUrl` (e.g. `https://graph.facebook.com/v23.0`), as the Meta app `appId`. */
export class MetaSetupGraph {
  constructor(
    private readonly baseUrl: string,
    private readonly appId: string,
    private readonly appSecret: string,
  ) {}

  /** Reads `accessToken`'s metadata with the app's own token: only the right app secret gets an answer. */
  async inspectToken(accessToken: string): Promise<TokenInfo> {
    const { data } = await this.call<{ data: RawTokenInfo }>('GET', `debug_token?input_token=${encodeURIComponent(accessToken)}`, this.appToken);
    return {
      isValid: data.is_valid === true,
      appId: data.app_id,
      application: data.application,
      type: data.type,
      expiresAt: data.expires_at,
      scopes: data.scopes ?? [],
      targets: new Map((data.granular_scopes ?? []).map(({ scope, target_ids: ids }) => [scope, ids ?? []])),
      problem: data.error?.message,
    };
  }

  async phoneNumber(phoneNumberId: string, accessToken: string): Promise<BusinessPhoneNumber> {
    const answer = await this.call<{ display_phone_number?: string; verified_name?: string }>(
      'GET',
      `${encodeURIComponent(phoneNumberId)}?fields=display_phone_number,verified_name`,
      accessToken,
    );
    return { displayPhoneNumber: answer.display_phone_number ?? '?', verifiedName: answer.verified_name ?? '?' };
  }

  /** Meta sends the account's webhooks only to the apps subscribed to it. */
  async subscribeToBusinessAccount(businessAccountId: string, accessToken: string): Promise<void> {
    await this.call('POST', `${encodeURIComponent(businessAccountId)}/subscribed_apps`, accessToken);
  }

  /** Sets the app's webhook callback for WhatsApp Business Accounts; Meta verifies it (a GET with `hub.challenge`) before answering. */
  async setWebhookCallback(callbackUrl: string, verifyToken: string, fields: readonly string[]): Promise<void> {
    const form = new URLSearchParams({ object: 'whatsapp_business_account', callback_url: callbackUrl, verify_token: verifyToken, fields: fields.join(',') });
    await this.call('POST', `${encodeURIComponent(this.appId)}/subscriptions`, this.appToken, form);
  }

  private get appToken(): string {
    return `${this.appId}|${this.appSecret}`;
  }

  private async call<T = unknown>(method: 'GET' | 'POST', path: string, token: string, form?: URLSearchParams): Promise<T> {
    let response: Response;
    try {
      response = await fetchSafely(`${this.baseUrl.replace(/\/$/, '')}/${path}`, META_SETUP_GRAPH_API, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(form && { 'content-type': 'application/x-www-form-urlencoded' }) },
        body: form?.toString() ?? (method === 'POST' ? '' : undefined),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (error) {
      if (error instanceof UnsafeDestinationError) throw new GraphApiCallError(undefined, undefined, undefined, error.message);
      throw new GraphApiCallError(undefined, undefined, undefined, `could not reach ${new URL(this.baseUrl).host}: ${(error as Error).message}`);
    }
    const text = await response.text();
    let body: { error?: { message?: string; code?: number; error_subcode?: number } } & Record<string, unknown>;
    try {
      body = JSON.parse(text);
    } catch {
      throw new GraphApiCallError(response.status, undefined, undefined, `HTTP ${response.status} without a JSON answer`);
    }
    if (!response.ok || body.error) {
      const { message = `HTTP ${response.status}`, code, error_subcode: subcode } = body.error ?? {};
      throw new GraphApiCallError(response.status, code, subcode, message);
    }
    return body as T;
  }
}

interface RawTokenInfo {
  readonly is_valid?: boolean;
  readonly app_id?: string;
  readonly application?: string;
  readonly type?: string;
  readonly expires_at?: number;
  readonly scopes?: string[];
  readonly granular_scopes?: { scope: string; target_ids?: string[] }[];
  readonly error?: { message?: string };
}
