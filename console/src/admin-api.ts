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
  readonly value: unknown;
  readonly version?: number;
}

export interface OperatorEntry {
  readonly phone: string;
  readonly role: 'operator' | 'admin';
  readonly name?: string;
}

type Json = Record<string, unknown>;

/** Answers may wrap the object in a field named after it (`{prompt: …}`) or not. */
function unwrap(body: Json, field: string): Json {
  const inner = body[field];
  return inner !== null && typeof inner === 'object' && !Array.isArray(inner) ? (inner as Json) : body;
}

function promptOf(raw: Json): PromptVersion {
  return {
    id: String(raw.resourceId ?? raw.promptId ?? raw.id),
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
    return promptOf(unwrap(await this.api.admin<Json>('GET', `prompts/${encodeURIComponent(id)}`), 'prompt'));
  }

  async promptVersions(id: string): Promise<PromptVersion[]> {
    return (await this.api.admin<Page<Json>>('GET', `prompts/${encodeURIComponent(id)}/versions?limit=100`)).items.map(promptOf);
  }

  async savePrompt(id: string, content: string, expectedVersion: number): Promise<PromptVersion> {
    return promptOf(unwrap(await this.api.admin<Json>('PUT', `prompts/${encodeURIComponent(id)}`, { content, expectedVersion }), 'prompt'));
  }

  async rollbackPrompt(id: string, targetVersion: number): Promise<PromptVersion> {
    return promptOf(unwrap(await this.api.admin<Json>('POST', `prompts/${encodeURIComponent(id)}/rollback`, { targetVersion }), 'prompt'));
  }

  async config(key: string): Promise<ConfigEntry> {
    const raw = unwrap(await this.api.admin<Json>('GET', `config/${encodeURIComponent(key)}`), 'config');
    return { key, value: raw.value, version: typeof raw.version === 'number' ? raw.version : undefined };
  }

  async saveConfig(key: string, value: unknown, expectedVersion?: number): Promise<ConfigEntry> {
    const raw = unwrap(await this.api.admin<Json>('PUT', `config/${encodeURIComponent(key)}`, { value, expectedVersion }), 'config');
    return { key, value: raw.value, version: typeof raw.version === 'number' ? raw.version : undefined };
  }

  /** A read-only list (audit, demands, consents, CRM problems, dead letters). */
  async list(path: string, cursor?: string): Promise<Page<Json>> {
    const body = await this.api.admin<Json>('GET', cursor === undefined ? path : `${path}?cursor=${encodeURIComponent(cursor)}`);
    const items = Array.isArray(body.items) ? (body.items as Json[]) : [];
    return { items, cursor: typeof body.cursor === 'string' ? body.cursor : undefined };
  }

  redrive(dryRun: boolean): Promise<Json> {
    return this.api.admin<Json>('POST', 'dead-letters/redrive', { dryRun });
  }
}

/** The `operators` config value (phone → entry) as rows, and back. */
export function operatorsOf(value: unknown): OperatorEntry[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value as Record<string, Json>)
    .filter(([, entry]) => entry !== null && typeof entry === 'object')
    .map(([phone, entry]) => ({ phone, role: entry.role === 'admin' ? 'admin' : 'operator', name: typeof entry.name === 'string' ? entry.name : undefined }) as const);
}
