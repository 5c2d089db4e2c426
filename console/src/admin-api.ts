import type {
  AnswerOf,
  ConfigSetting,
  CrmSyncAnswer,
  CrmSyncRow,
  CrmSyncStatus,
  CustomerExport,
  DeadLetters,
  DraftPublication,
  DeploymentAdmin,
  ErasureAnswer,
  EvaluationRun,
  HandoffReport,
  JsonObject,
  Page,
  PromptDraft,
  PromptVersion,
  RedriveAnswer,
  StoredScenario,
  TemplateSyncAnswer,
  UsageReport,
} from '../../lib/contract/operator-api';
import type { OperatorApi } from './api';

export interface OperatorEntry {
  readonly phone: string;
  readonly role: 'operator' | 'admin';
  readonly name?: string;
}

/** The recent-first admin lists. */
export type AdminListCall = 'GET admin/audit' | 'GET admin/demands' | 'GET admin/consents';

/** The admin calls the console makes. */
export class AdminApi {
  constructor(private readonly api: OperatorApi) {}

  async syncTemplates(): Promise<TemplateSyncAnswer['sync']> {
    return (await this.api.request('POST admin/templates/sync')).sync;
  }

  async prompts(): Promise<readonly PromptVersion[]> {
    return (await this.api.request('GET admin/prompts')).items;
  }

  async prompt(id: string): Promise<PromptVersion> {
    return (await this.api.request('GET admin/prompts/:id', { params: { id } })).prompt;
  }

  async promptVersions(id: string): Promise<readonly PromptVersion[]> {
    return (await this.api.request('GET admin/prompts/:id/versions', { params: { id }, query: { limit: 100 } })).items;
  }

  /** A new version with the content of `targetVersion`. */
  async rollbackPrompt(id: string, targetVersion: number): Promise<PromptVersion> {
    return (await this.api.request('POST admin/prompts/:id/rollback', { params: { id }, body: { targetVersion } })).prompt;
  }

  /** The prompt's draft (published or not), or null when it has none. */
  async promptDraft(id: string): Promise<PromptDraft | null> {
    return (await this.api.request('GET admin/prompts/:id/draft', { params: { id } })).draft;
  }

  /** Compare-and-set on the draft's own version (0 starts the first draft); a stale one is a 409. */
  async saveDraft(id: string, content: string, expectedVersion: number): Promise<PromptDraft | null> {
    return (await this.api.request('PUT admin/prompts/:id/draft', { params: { id }, body: { content, expectedVersion } })).draft;
  }

  /** The draft as the prompt's next version; refused by the gate (409) unless `overrideReason` says why. */
  async publishDraft(id: string, publication: DraftPublication): Promise<PromptVersion> {
    return (await this.api.request('POST admin/prompts/:id/draft/publish', { params: { id }, body: publication })).prompt;
  }

  /** Starts a run of the suite against the draft and the current version; it answers at once, `running`. */
  async startEvaluation(id: string, draftVersion: number): Promise<EvaluationRun> {
    return (await this.api.request('POST admin/prompts/:id/evaluations', { params: { id }, body: { draftVersion } })).evaluation;
  }

  async evaluation(id: string, runId: string): Promise<EvaluationRun> {
    return (await this.api.request('GET admin/prompts/:id/evaluations/:runId', { params: { id, runId } })).evaluation;
  }

  /** The prompt's runs, newest first. */
  async evaluations(id: string): Promise<readonly EvaluationRun[]> {
    return (await this.api.request('GET admin/prompts/:id/evaluations', { params: { id } })).items;
  }

  async scenarios(): Promise<readonly StoredScenario[]> {
    return (await this.api.request('GET admin/scenarios')).items;
  }

  /** Compare-and-set: `expectedVersion` is the version edited (0 adds); a scenario off the format is a 400 listing its problems. */
  async saveScenario(id: string, scenario: unknown, expectedVersion: number): Promise<StoredScenario> {
    return (await this.api.request('PUT admin/scenarios/:id', { params: { id }, body: { scenario, expectedVersion } })).scenario;
  }

  async removeScenario(id: string): Promise<void> {
    await this.api.request('DELETE admin/scenarios/:id', { params: { id } });
  }

  /** A setting; one never written has value null and version 0. */
  async config(key: string): Promise<ConfigSetting> {
    return (await this.api.request('GET admin/config/:key', { params: { key } })).config;
  }

  /** Compare-and-set: `expectedVersion` is the version read (0 creates). */
  async saveConfig(key: string, value: unknown, expectedVersion: number): Promise<ConfigSetting> {
    return (await this.api.request('PUT admin/config/:key', { params: { key }, body: { value, expectedVersion } })).config;
  }

  /** The admins the deployment names (not removable here). */
  async deploymentAdmins(): Promise<readonly DeploymentAdmin[]> {
    return (await this.api.request('GET admin/deployment-admins')).items;
  }

  /** A page of a recent-first list. */
  list<Call extends AdminListCall>(call: Call, cursor?: string): Promise<AnswerOf<Call>> {
    return this.api.request(call, { query: { cursor } });
  }

  /** The agent's replies and tokens per UTC day from `from` to `to` (both omitted: the last 7 days). */
  usageReport(period: { readonly from?: string; readonly to?: string }): Promise<UsageReport> {
    return this.api.request('GET admin/reports/usage', { query: period });
  }

  /** The handoffs, their claims and the medians of the customer's wait per UTC day of the same period. */
  handoffReport(period: { readonly from?: string; readonly to?: string }): Promise<HandoffReport> {
    return this.api.request('GET admin/reports/handoffs', { query: period });
  }

  /** The last reading of the dead-letter queue (no SQS receive). */
  deadLetters(): Promise<DeadLetters> {
    return this.api.request('GET admin/dead-letters');
  }

  /** Reads the dead-letter queue once, and answers the new reading. */
  refreshDeadLetters(): Promise<DeadLetters> {
    return this.api.request('POST admin/dead-letters/refresh');
  }

  /** CRM rows in one status (the first page, up to 100). */
  crmRows(status: CrmSyncStatus): Promise<Page<CrmSyncRow>> {
    return this.api.request('GET admin/crm/:status', { params: { status }, query: { limit: 100 } });
  }

  retryCrm(sessionId: string): Promise<CrmSyncAnswer> {
    return this.api.request('POST admin/crm/:sessionId/retry', { params: { sessionId } });
  }

  resolveCrm(sessionId: string, contactId: string, dealId: string): Promise<CrmSyncAnswer> {
    return this.api.request('POST admin/crm/:sessionId/resolve', { params: { sessionId }, body: { contactId, dealId } });
  }

  /** Everything stored about one customer, as one document. */
  exportCustomer(customerId: string): Promise<CustomerExport> {
    return this.api.request('GET admin/customers/:customerId/export', { params: { customerId } });
  }

  /** Erases one customer; `confirm` must repeat the id. Answers the audit's pseudonym. */
  async eraseCustomer(customerId: string, confirm: string): Promise<ErasureAnswer['erasure']> {
    return (await this.api.request('POST admin/customers/:customerId/erase', { params: { customerId }, body: { confirm } })).erasure;
  }

  redrive(dryRun: boolean): Promise<RedriveAnswer> {
    return this.api.request('POST admin/dead-letters/redrive', { body: { dryRun } });
  }
}

/** The `operators` setting (phone → entry) as rows. */
export function operatorsOf(value: unknown): OperatorEntry[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value as Record<string, JsonObject>)
    .filter(([, entry]) => entry !== null && typeof entry === 'object')
    .map(([phone, entry]) => ({ phone, role: entry.role === 'admin' ? 'admin' : 'operator', name: typeof entry.name === 'string' ? entry.name : undefined }) as const);
}

/** Rows back into the `operators` setting: only what an admin writes (the API keeps who added whom). */
export function operatorsValue(rows: readonly OperatorEntry[]): Record<string, { role: string; name?: string }> {
  return Object.fromEntries(rows.map(({ phone, role, name }) => [phone, name === undefined ? { role } : { role, name }]));
}
