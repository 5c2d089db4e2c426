import { randomBytes } from 'node:crypto';
import type { Operator } from '../../domain/operator';
import { hashToken, type OperatorSession } from '../../domain/operator-auth';
import type { Clock } from '../../ports/clock';
import type { OperatorAuthRepository } from '../../ports/repositories';
import type { OperatorAuditTrail } from './operator-audit';
import type { OperatorDirectory } from './operator-directory';

/** 32 random bytes, base64url: what a login link and a session cookie carry. */
const RAW_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function newRawToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Anything else is refused before it is hashed or looked up (a forged token costs no read). */
export function isRawToken(value: unknown): value is string {
  return typeof value === 'string' && RAW_TOKEN_PATTERN.test(value);
}

export interface SignedInOperator {
  readonly operator: Operator;
  readonly session: OperatorSession;
}

export interface NewOperatorSession extends SignedInOperator {
  /** The raw session token for the cookie; only its hash is stored. */
  readonly sessionToken: string;
}

export interface OperatorSignInDependencies {
  readonly auth: OperatorAuthRepository;
  readonly directory: OperatorDirectory;
  readonly audit: OperatorAuditTrail;
  readonly clock: Clock;
  readonly newToken?: () => string;
}

/**
 * Login over WhatsApp (docs/OPERATOR-API.md): the orchestrator issues a one-time grant and sends
 * its link; the console trades the grant for a session that ends at local midnight. Only token
 * hashes are stored. A person removed from the operators list loses access at the next call, on
 * every instance: the removal deletes their sessions, and whoever the configuration no longer
 * names is refused (and their session deleted) when it is checked — at sign-in and on every call
 * made with the admin role, always against the current configuration.
 */
export class OperatorSignIn {
  private readonly newToken: () => string;

  constructor(private readonly deps: OperatorSignInDependencies) {
    this.newToken = deps.newToken ?? newRawToken;
  }

  /** A login link for an operator; `undefined` when the phone may not sign in. */
  async issueLoginLink(phone: string, consoleUrl: string): Promise<{ readonly link: string; readonly expiresAt: string } | undefined> {
    if ((await this.deps.directory.find(phone)) === undefined) return undefined;
    const token = this.newToken();
    const grant = await this.deps.auth.putLoginGrant(hashToken(token), phone);
    return { link: `${consoleUrl.replace(/\/+$/, '')}/login#${token}`, expiresAt: grant.expiresAt };
  }

  /**
   * Consumes the grant (once) and opens a session; `undefined` for a wrong, used or expired token,
   * or a person no longer allowed. The person is checked against the current configuration after
   * the session is written: a removal that ends sessions either finds this one, or was written
   * before the check and is seen by it.
   */
  async signIn(loginToken: unknown): Promise<NewOperatorSession | undefined> {
    if (!isRawToken(loginToken)) return undefined;
    const grant = await this.deps.auth.consumeLoginGrant(hashToken(loginToken), this.deps.clock.now());
    if (grant === undefined) return undefined;
    const sessionToken = this.newToken();
    const session = await this.deps.auth.putSession({ tokenHash: hashToken(sessionToken), operatorPhone: grant.operatorPhone, csrfToken: this.newToken() });
    const operator = await this.allowed(session);
    if (operator === undefined) return undefined;
    await this.deps.audit.record({ author: operator.phone, action: 'operator.sign_in', resourceType: 'operator', resourceId: operator.phone });
    return { operator, session, sessionToken };
  }

  /**
   * The signed-in operator behind a session cookie, if the session is live and the person still
   * allowed. The cached list decides only an operator's own calls (the session, read on every call,
   * is gone once they are removed). An admin's role, a call that needs it (`requireCurrentRole`)
   * and a person the cache does not know are checked against the current configuration.
   */
  async authenticate(sessionToken: string | undefined, options: { readonly requireCurrentRole?: boolean } = {}): Promise<SignedInOperator | undefined> {
    if (!isRawToken(sessionToken)) return undefined;
    const session = await this.deps.auth.getSession(hashToken(sessionToken), this.deps.clock.now());
    if (session === undefined) return undefined;
    const cached = await this.deps.directory.find(session.operatorPhone);
    const operator = cached === undefined || cached.role === 'admin' || options.requireCurrentRole ? await this.allowed(session) : cached;
    return operator && { operator, session };
  }

  /** The session's operator as the configuration holds them now; a session of anybody else is deleted. */
  private async allowed(session: OperatorSession): Promise<Operator | undefined> {
    const operator = await this.deps.directory.current(session.operatorPhone);
    if (operator === undefined) await this.deps.auth.deleteSession(session.tokenHash);
    return operator;
  }

  async signOut(signedIn: SignedInOperator): Promise<void> {
    await this.deps.auth.deleteSession(signedIn.session.tokenHash);
    await this.deps.audit.record({ author: signedIn.operator.phone, action: 'operator.sign_out', resourceType: 'operator', resourceId: signedIn.operator.phone });
  }
}
