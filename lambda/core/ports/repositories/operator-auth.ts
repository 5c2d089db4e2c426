import type { LoginGrant, OperatorSession } from '../../domain/operator-auth';

export interface OperatorSessionInput {
  readonly tokenHash: string;
  readonly operatorPhone: string;
  readonly csrfToken: string;
}

/** What ending an operator's access removed: the sessions and login links that were still live. */
export interface RevokedOperatorAccess {
  readonly sessions: number;
  readonly loginGrants: number;
}

/** Operators' login grants and sessions, keyed by the SHA-256 of their tokens. */
export interface OperatorAuthRepository {
  /**
   * Exclusive create. The expiry is capped at 10 minutes and at the next local midnight;
   * `expiresAt` may only shorten it. Returns the stored grant.
   */
  putLoginGrant(tokenHash: string, operatorPhone: string, expiresAt?: Date): Promise<LoginGrant>;
  /** Deletes the grant if it exists and is unexpired at `now`, returning it; otherwise `undefined`. */
  consumeLoginGrant(tokenHash: string, now: Date): Promise<LoginGrant | undefined>;
  /** Exclusive create; the session expires at the next local midnight. */
  putSession(session: OperatorSessionInput): Promise<OperatorSession>;
  /** `undefined` when missing or expired at `now` (even if DynamoDB has not deleted it yet). */
  getSession(tokenHash: string, now: Date): Promise<OperatorSession | undefined>;
  deleteSession(tokenHash: string): Promise<void>;
  /**
   * Deletes every session and login grant of the operator, found by key (never a Scan), and counts
   * those that were still live at `now`: after it, no token the operator holds opens anything.
   */
  revokeAll(operatorPhone: string, now: Date): Promise<RevokedOperatorAccess>;
}
