import { createHash } from 'node:crypto';
import { nextLocalMidnight } from './local-time';
import { type IsoTimestamp, toEpochMicros } from './timestamps';
import type { CarriesUnknownAttributes } from './unknown-attributes';

/** A login link is good for at most this long (and never past the next local midnight). */
export const LOGIN_GRANT_MAX_LIFETIME_MS = 10 * 60 * 1000;

/**
 * A one-time login grant sent to an operator. Stored under the SHA-256 of the token; the raw token
 * only ever exists in the link.
 */
export interface LoginGrant extends CarriesUnknownAttributes {
  readonly tokenHash: string;
  readonly operatorPhone: string;
  readonly createdAt: IsoTimestamp;
  readonly expiresAt: IsoTimestamp;
}

/** An operator's signed-in session, stored under the SHA-256 of its cookie token. */
export interface OperatorSession extends CarriesUnknownAttributes {
  readonly tokenHash: string;
  readonly operatorPhone: string;
  /** Sent back by the operator UI on every state-changing request. */
  readonly csrfToken: string;
  readonly createdAt: IsoTimestamp;
  /** At most the next local midnight: operators sign in again every day. */
  readonly expiresAt: IsoTimestamp;
}

const TOKEN_HASH_PATTERN = /^[0-9a-f]{64}$/;

/** Hex SHA-256 of a raw token: the only form of a token that is ever stored. */
export function hashToken(rawToken: string): string {
  return createHash('sha256').update(rawToken, 'utf8').digest('hex');
}

/** Refuses anything that is not a token hash, so a raw token cannot be stored by mistake. */
export function assertTokenHash(tokenHash: string): void {
  if (!TOKEN_HASH_PATTERN.test(tokenHash)) throw new TypeError('Expected the hex SHA-256 of a token, not a raw token');
}

/** The latest instant a login grant issued at `now` may stay valid. */
export function loginGrantExpiryCeiling(now: Date, timeZone: string): Date {
  return new Date(Math.min(now.getTime() + LOGIN_GRANT_MAX_LIFETIME_MS, nextLocalMidnight(now, timeZone).getTime()));
}

/**
 * Whether a stored grant or session is live at `now` and within the lifetime the pipeline gives it:
 * made no later than now, ending no later than `ceiling(createdAt)`, not ended yet. Checked on every
 * read, not only when written: a function role that may write sign-in items (the orchestrator
 * writes grants) could otherwise store one that lives until 2099.
 */
function withinLifetime(item: Pick<LoginGrant, 'createdAt' | 'expiresAt'>, now: Date, ceiling: (createdAt: Date) => Date): boolean {
  const created = toEpochMicros(item.createdAt);
  const expires = toEpochMicros(item.expiresAt);
  const latest = ceiling(new Date(created / 1000)).getTime() * 1000;
  return created <= now.getTime() * 1000 && expires <= latest && now.getTime() * 1000 < expires;
}

/** A console session lives until the first local midnight after it was opened, at most. */
export function isLiveSession(session: Pick<OperatorSession, 'createdAt' | 'expiresAt'>, now: Date, timeZone: string): boolean {
  return withinLifetime(session, now, (createdAt) => nextLocalMidnight(createdAt, timeZone));
}

/** A login grant lives {@link LOGIN_GRANT_MAX_LIFETIME_MS}, and never past the local midnight after it was issued. */
export function isLiveLoginGrant(grant: Pick<LoginGrant, 'createdAt' | 'expiresAt'>, now: Date, timeZone: string): boolean {
  return withinLifetime(grant, now, (createdAt) => loginGrantExpiryCeiling(createdAt, timeZone));
}
