/** The WhatsApp app's secrets (stored in Secrets Manager as one JSON document, never in env values). */
export interface WhatsAppCredentials {
  /** HMAC key of `X-Hub-Signature-256` on inbound webhooks. */
  readonly appSecret: string;
  /**
   * The app secret before the latest rotation, still accepted on inbound webhooks while Meta's
   * requests signed with it drain. Absent outside a rotation.
   */
  readonly previousAppSecret?: string;
  /** Echoed back by the webhook's subscription handshake. */
  readonly verifyToken: string;
  /** Bearer token of the Graph API used to send replies. */
  readonly accessToken: string;
}

export interface WhatsAppCredentialsProvider {
  /**
   * The current credentials. Implementations may cache; `forceRefresh` bypasses the cache (used after
   * Meta rejects a token, so a rotated secret is picked up at once).
   */
  get(options?: { readonly forceRefresh?: boolean }): Promise<WhatsAppCredentials>;
}
