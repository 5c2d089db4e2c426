import type { OperatorApi } from './api';
import type { Page } from './api-types';

/** One version of a prompt (the current prompt is its newest version). */
export interface PromptVersion {
  readonly id: string;
  readonly version: number;
  readonly content: string;
  readonly author?: string;
  readonly createdAt?: string;
  readonly rolledBackFrom?: number;
}

export interface ConfigEntry {
  readonly key: string;
  /** null when never written. */
  readonly value: unknown;
  readonly version: number;
}

export interface OperatorEntry {
  readonly phone: string;
  readonly role: 'operator' | 'admin';
  readonly name?: string;
}

type Json = Record<string, unknown>;

function configOf(key: string, body: { config: Json }): ConfigEntry {
  return { key, value: body.config.value, version: Number(body.config.version) };
}

function promptOf(raw: Json): PromptVersion {
  return {
    id: String(raw.resourceId),
    version: Number(raw.version),
    content: String(raw.content ?? ''),
    author: typeof raw.author === 'string' ? raw.author : undefined,
    createdAt: typeof raw.createdAt === 'string' ? raw.createdAt : undefined,
    rolledBackFrom: typeof raw.rolledBackFrom === 'number' ? raw.rolledBackFrom : undefined,
  };
}

/** The admin calls the console makes, read into the shapes its screens use. */
export class AdminApi {
  constructor(private readonly api: OperatorApi) {}

  async prompts(): Promise<PromptVersion[]> {
    return (await this.api.admin<Page<Json>>('GET', 'prompts')).items.map(promptOf);
  }

  async prompt(id: string): Promise<PromptVersion> {
    return promptOf((await this.api.admin<{ prompt: Json }>('GET', `prompts/${encodeURIComponent(id)}`)).prompt);
  }

  async promptVersions(id: string): Promise<PromptVersion[]> {
    return (await this.api.admin<Page<Json>>('GET', `prompts/${encodeURIComponent(id)}/versions?limit=100`)).items.map(promptOf);
  }

  /** Compare-and-set: `expectedVersion` is the version edited (0 creates); a stale one is a 409. */
  async savePrompt(id: string, content: string, expectedVersion: number): Promise<PromptVersion> {
    return promptOf((await this.api.admin<{ prompt: Json }>('PUT', `prompts/${encodeURIComponent(id)}`, { content, expectedVersion })).prompt);
  }

  /** A new version with the content of `targetVersion`. */
  async rollbackPrompt(id: string, targetVersion: number): Promise<PromptVersion> {
    return promptOf((await this.api.admin<{ prompt: Json }>('POST', `prompts/${encodeURIComponent(id)}/rollback`, { targetVersion })).prompt);
  }

  /** A setting; one never written has value null and version 0. */
  async config(key: string): Promise<ConfigEntry> {
    return configOf(key, await this.api.admin<{ config: Json }>('GET', `config/${encodeURIComponent(key)}`));
  }

  /** Compare-and-set: `expectedVersion` is the version read (0 creates). */
  async saveConfig(key: string, value: unknown, expectedVersion: number): Promise<ConfigEntry> {
    return configOf(key, await this.api.admin<{ config: Json }>('PUT', `config/${encodeURIComponent(key)}`, { value, expectedVersion }));
  }

  /** A recent-first list (audit, demands, consents, dead letters). */
  async list(path: string, cursor?: string): Promise<Page<Json>> {
    const body = await this.api.admin<Page<Json>>('GET', cursor === undefined ? path : `${path}?cursor=${encodeURIComponent(cursor)}`);
    return { items: body.items, cursor: body.cursor };
  }

  /** CRM rows in one status (the first page, up to 100). */
  async crmRows(status: string): Promise<Page<Json>> {
    const body = await this.api.admin<Page<Json>>('GET', `crm/${encodeURIComponent(status)}?limit=100`);
    return { items: body.items, cursor: body.cursor };
  }

  retryCrm(sessionId: string): Promise<Json> {
    return this.api.admin<Json>('POST', `crm/${encodeURIComponent(sessionId)}/retry`, {});
  }

  resolveCrm(sessionId: string, contactId: string, dealId: string): Promise<Json> {
    return this.api.admin<Json>('POST', `crm/${encodeURIComponent(sessionId)}/resolve`, { contactId, dealId });
  }

  /** Everything stored about one customer, as one document. */
  exportCustomer(customerId: string): Promise<Json> {
    return this.api.admin<Json>('GET', `customers/${encodeURIComponent(customerId)}/export`);
  }

  /** Erases one customer; `confirm` must repeat the id. Answers the audit's pseudonym. */
  async eraseCustomer(customerId: string, confirm: string): Promise<{ customerPseudonym: string; deleted: Record<string, number> }> {
    return (await this.api.admin<{ erasure: { customerPseudonym: string; deleted: Record<string, number> } }>('POST', `customers/${encodeURIComponent(customerId)}/erase`, { confirm })).erasure;
  }

  redrive(dryRun: boolean): Promise<Json> {
    return this.api.admin<Json>('POST', 'dead-letters/redrive', { dryRun });
  }
}

/** The `operators` setting (phone → entry) as rows. */
export function operatorsOf(value: unknown): OperatorEntry[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value as Record<string, Json>)
    .filter(([, entry]) => entry !== null && typeof entry === 'object')
    .map(([phone, entry]) => ({ phone, role: entry.role === 'admin' ? 'admin' : 'operator', name: typeof entry.name === 'string' ? entry.name : undefined }) as const);
}

/** Rows back into the `operators` setting: only what an admin writes (the API keeps who added whom). */
export function operatorsValue(rows: readonly OperatorEntry[]): Record<string, { role: string; name?: string }> {
  return Object.fromEntries(rows.map(({ phone, role, name }) => [phone, name === undefined ? { role } : { role, name }]));
}
