import { isOperatorPhone, type Operator, OPERATORS_CONFIG_KEY, operatorsFromConfig } from '../../domain/operator';
import type { OperationalConfigRepository } from '../../ports/repositories';

/**
 * How long a process trusts the operators list it read for what the cache may decide: who gets a
 * login link, and an operator's (not an admin's) calls. Sign-in and every call made with the admin
 * role read the list again (see {@link OperatorDirectory.current}).
 */
export const OPERATOR_DIRECTORY_CACHE_MS = 60_000;

export interface OperatorDirectoryOptions {
  readonly config: OperationalConfigRepository;
  /** Deploy-time admins: always admins, whatever the config says. */
  readonly adminPhoneNumbers: readonly string[];
  /** The deploy-time admins' names by phone; a name the config gives the same phone wins. @default they go by their phone until the config names them */
  readonly adminDisplayNames?: Readonly<Record<string, string>>;
  /** @default OPERATOR_DIRECTORY_CACHE_MS */
  readonly cacheMs?: number;
  /** Monotonic-enough milliseconds for the cache. @default Date.now */
  readonly nowMs?: () => number;
}

/**
 * Who may sign in: the deploy-time admins plus the `operators` config map, cached per process. The
 * deploy-time admins are read from the function's environment, which is the current deployment's;
 * the map, from the table.
 */
export class OperatorDirectory {
  private readonly admins: ReadonlySet<string>;
  private cached?: { readonly operators: ReadonlyMap<string, Operator>; readonly expiresAt: number };

  constructor(private readonly options: OperatorDirectoryOptions) {
    const invalid = options.adminPhoneNumbers.filter((phone) => !isOperatorPhone(phone));
    if (invalid.length > 0) throw new RangeError(`Admin phone numbers must be 8 to 15 digits; got ${invalid.length} invalid value(s)`);
    this.admins = new Set(options.adminPhoneNumbers);
  }

  /** The operator as this process last read the list (at most {@link OPERATOR_DIRECTORY_CACHE_MS} ago). */
  async find(phone: string): Promise<Operator | undefined> {
    if (this.admins.has(phone)) return (await this.operators()).get(phone) ?? { phone, role: 'admin' };
    if (!isOperatorPhone(phone)) return undefined;
    return (await this.operators()).get(phone);
  }

  /**
   * The operator as the configuration holds them now: a consistent read of the list, whatever this
   * process cached (the cache is refreshed with it), so a removal or a demotion made through any
   * instance counts at once. A deploy-time admin needs no read: only a deployment changes that role.
   */
  async current(phone: string): Promise<Operator | undefined> {
    if (this.admins.has(phone)) return this.find(phone);
    if (!isOperatorPhone(phone)) return undefined;
    return (await this.reload()).get(phone);
  }

  /** Everyone who may sign in, deploy-time admins first. */
  async list(): Promise<Operator[]> {
    return [...(await this.operators()).values()];
  }

  isDeployTimeAdmin(phone: string): boolean {
    return this.admins.has(phone);
  }

  /** Forgets the cached list (after an admin edited it in this process). */
  invalidate(): void {
    this.cached = undefined;
  }

  private async operators(): Promise<ReadonlyMap<string, Operator>> {
    return this.cached && this.nowMs() < this.cached.expiresAt ? this.cached.operators : this.reload();
  }

  private async reload(): Promise<ReadonlyMap<string, Operator>> {
    const now = this.nowMs();
    const stored = operatorsFromConfig((await this.options.config.get(OPERATORS_CONFIG_KEY))?.value);
    const operators = new Map<string, Operator>();
    for (const phone of this.admins) operators.set(phone, { phone, role: 'admin', name: stored.get(phone)?.name ?? this.options.adminDisplayNames?.[phone] });
    for (const [phone, entry] of stored) if (!operators.has(phone)) operators.set(phone, { phone, role: entry.role, name: entry.name });
    this.cached = { operators, expiresAt: now + (this.options.cacheMs ?? OPERATOR_DIRECTORY_CACHE_MS) };
    return operators;
  }

  private nowMs(): number {
    return (this.options.nowMs ?? Date.now)();
  }
}
