import { AVAILABILITY_TTL_BOUNDS } from '../../../lib/contract/defaults';
import { nextLocalMidnight } from './local-time';
import type { Session } from './session';
import { toEpochMicros, type IsoTimestamp } from './timestamps';

/**
 * The people around the pipeline: operators answer handed-off customers, admins also edit prompts
 * and configuration. Admins named at deploy time (`adminPhoneNumbers`) cannot be removed at run time;
 * the others live in the operational config key `operators`.
 */
export type OperatorRole = 'operator' | 'admin';

export const OPERATOR_ROLES: readonly OperatorRole[] = ['operator', 'admin'];

/** The config key holding the map operator phone → {@link OperatorEntry}. */
export const OPERATORS_CONFIG_KEY = 'operators';

/** One entry of the `operators` config map. */
export interface OperatorEntry {
  readonly role: OperatorRole;
  readonly name?: string;
  readonly addedBy?: string;
  readonly addedAt?: IsoTimestamp;
}

/** A person allowed to sign in, with where the right comes from. */
export interface Operator {
  /** The operator's WhatsApp phone (digits), the identity used everywhere. */
  readonly phone: string;
  readonly role: OperatorRole;
  readonly name?: string;
}

/** Digits only, as WhatsApp reports a sender's phone. */
const OPERATOR_PHONE_PATTERN = /^\d{8,15}$/;

export function isOperatorPhone(value: unknown): value is string {
  return typeof value === 'string' && OPERATOR_PHONE_PATTERN.test(value);
}

/** The WhatsApp words that ask for a console link (case-insensitive, surrounding blanks ignored). */
const LOGIN_WORDS = new Set(['login', 'entrar']);

export function isLoginCommand(text: string): boolean {
  return LOGIN_WORDS.has(text.trim().toLowerCase());
}

/**
 * Reads the stored `operators` map (snake_case attributes as the admin API writes them), keeping
 * only well-formed entries: a malformed entry must not lock every operator out.
 */
export function operatorsFromConfig(value: unknown): Map<string, OperatorEntry> {
  const operators = new Map<string, OperatorEntry>();
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return operators;
  for (const [phone, raw] of Object.entries(value as Record<string, unknown>)) {
    if (!isOperatorPhone(phone) || raw === null || typeof raw !== 'object') continue;
    const entry = raw as Record<string, unknown>;
    if (!OPERATOR_ROLES.includes(entry.role as OperatorRole)) continue;
    operators.set(phone, {
      role: entry.role as OperatorRole,
      name: typeof entry.name === 'string' ? entry.name : undefined,
      addedBy: typeof entry.added_by === 'string' ? entry.added_by : undefined,
      addedAt: typeof entry.added_at === 'string' ? entry.added_at : undefined,
    });
  }
  return operators;
}

/** Default of how long a declared availability lasts (the config key `availability_ttl_hours` overrides it). */
export const DEFAULT_AVAILABILITY_TTL_HOURS: number = AVAILABILITY_TTL_BOUNDS.byDefault;

/**
 * An operator who said "available" stays so until the end of that local day and at most `ttlHours`:
 * nobody is paged at 3 a.m. because they forgot to switch off the evening before.
 */
export function isAvailabilityValid(availableSince: IsoTimestamp, now: Date, timeZone: string, ttlHours: number): boolean {
  const since = new Date(toEpochMicros(availableSince) / 1000);
  if (since.getTime() > now.getTime()) return false;
  if (now.getTime() - since.getTime() >= ttlHours * 3_600_000) return false;
  return now.getTime() < nextLocalMidnight(since, timeZone).getTime();
}

/** How people see a customer: the name the conversation gave, else the customer id. */
export function customerDisplayName(session: Pick<Session, 'cadastralData' | 'qualificationData'>): string | undefined {
  for (const candidate of [session.cadastralData.name, session.qualificationData.name, session.qualificationData.nome]) {
    if (typeof candidate === 'string' && candidate.trim() !== '') return candidate.trim();
  }
  return undefined;
}
