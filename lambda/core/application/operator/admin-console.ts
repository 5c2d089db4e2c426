import type { OperationalConfig, VersionedResource } from '../../domain/admin';
import { META_RATES_CONFIG_KEY, metaRateTableFrom, type MetaRateTable } from '../../../../lib/contract/meta-message-rates';
import { MODEL_PRICES_CONFIG_KEY, modelPricesFrom, type ModelPrices } from '../../../../lib/contract/model-prices';
import { reportDays, type UsageReport, usageReportOf } from '../../domain/agent-usage';
import { type HandoffReport, handoffReportOf } from '../../domain/handoff-report';
import { CRM_PROBLEM_STATUSES, type CrmSyncRow, type CrmSyncStatus, resolvedByOperator, retriedByOperator } from '../../domain/crm-sync';
import { OPERATORS_CONFIG_KEY, type Operator } from '../../domain/operator';
import { EDITABLE_CONFIG_KEYS, HANDOFF_NOTICE_TEMPLATE_CONFIG_KEY, InvalidConfigValueError, validateConfigValue } from '../../domain/operational-settings';
import type { TemplateRef } from '../../domain/whatsapp-template';
import { isoMicros } from '../../domain/timestamps';
import type { Clock } from '../../ports/clock';
import {
  AdminResourceVersionNotFoundError,
  VersionConflictError,
  type AdminAuditRepository,
  type ConsentRepository,
  type CrmSyncRepository,
  type DemandRepository,
  type HandoffReportRepository,
  type MessageRepository,
  type MessageTemplateRepository,
  type OperationalConfigRepository,
  type OperatorAuthRepository,
  type PageRequest,
  type PipelineBudgetRepository,
  type UsageReadBound,
  type VersionedResourceRepository,
} from '../../ports/repositories';
import type { OperatorAuditTrail } from './operator-audit';
import type { OperatorDirectory } from './operator-directory';
import { conflictIfRaced, OperatorActionError } from './operator-errors';
import { pipelineTemplateProblem } from '../named-template';

/** The admin resource type of prompts (the orchestrator reads `prompt/system`). */
export const PROMPT_RESOURCE_TYPE = 'prompt';

/**
 * How much of the day index of agent replies one usage report reads: per day, at most 3 pages of
 * 1,000 replies from each of its partitions (its write shards). The operator function answers
 * within its timeout however busy the period was; a busier day is reported incomplete.
 */
export const USAGE_REPORT_BOUND: UsageReadBound = { pagesPerPartition: 3, pageSize: 1000 };

/** How much of a day's handoff items one handoff report reads: 5 pages of 1,000 (a busier day is reported incomplete). */
export const HANDOFF_REPORT_BOUND: UsageReadBound = { pagesPerPartition: 5, pageSize: 1000 };

/** Config keys an admin may read (the editable ones and the availability map). */
const READABLE_CONFIG_KEYS = [...EDITABLE_CONFIG_KEYS, 'operator_availability'];

export interface AdminConsoleDependencies {
  readonly resources: VersionedResourceRepository;
  readonly config: OperationalConfigRepository;
  readonly audit: AdminAuditRepository;
  readonly demands: DemandRepository;
  readonly consents: ConsentRepository;
  readonly crmSync: CrmSyncRepository;
  readonly messages: Pick<MessageRepository, 'agentUsageByDay'>;
  readonly handoffs: HandoffReportRepository;
  readonly trail: OperatorAuditTrail;
  readonly directory: OperatorDirectory;
  /** Ends the sessions of whoever an `operators` edit removes. */
  readonly auth: Pick<OperatorAuthRepository, 'revokeAll'>;
  /** Where a notice template setting is checked: it must name a stored, approved template. */
  readonly templates: Pick<MessageTemplateRepository, 'get'>;
  /** The pipeline budget's evaluation line, which the usage report shows beside the agent's replies. */
  readonly budget: Pick<PipelineBudgetRepository, 'evaluationTokensOfDays'>;
  /** With a scenario suite, a direct edit skips the gate (prompt-drafts.ts) only with a reason. */
  readonly promptGate?: { requireReasonToSkipGate(overrideReason: string | undefined): Promise<void> };
  readonly clock: Clock;
}

/** The rate table Meta's fees are priced at for admins: the admin's `meta_rates` over the packaged one. */
export async function metaRatesInForce(config: Pick<OperationalConfigRepository, 'get'>): Promise<MetaRateTable> {
  return metaRateTableFrom((await config.get(META_RATES_CONFIG_KEY))?.value);
}

/** The prices an agent reply's model calls are priced at for admins: the admin's `model_prices` over the packaged ones. */
export async function modelPricesInForce(config: Pick<OperationalConfigRepository, 'get'>): Promise<ModelPrices> {
  return modelPricesFrom((await config.get(MODEL_PRICES_CONFIG_KEY))?.value);
}

/**
 * What admins do: edit prompts with version history (compare-and-set, rollback), edit the
 * operational settings (validated per key), read the audit, demands, consents and CRM problems,
 * and see what the agent works and costs.
 */
export class AdminConsole {
  constructor(private readonly deps: AdminConsoleDependencies) {}

  listPrompts(page: PageRequest) {
    return this.deps.resources.listCurrent(PROMPT_RESOURCE_TYPE, page);
  }

  async getPrompt(id: string): Promise<VersionedResource> {
    const prompt = await this.deps.resources.getCurrent(PROMPT_RESOURCE_TYPE, id);
    if (prompt === undefined) throw new OperatorActionError('not_found', `No prompt '${id}'`);
    return prompt;
  }

  listPromptVersions(id: string, page: PageRequest) {
    return this.deps.resources.listVersions(PROMPT_RESOURCE_TYPE, id, page);
  }

  /** A new version and the current item in one conditional transaction; `expectedVersion` 0 creates. */
  async editPrompt(admin: Operator, id: string, { overrideReason, ...edit }: { readonly content: string; readonly expectedVersion: number; readonly description?: string; readonly overrideReason?: string }): Promise<VersionedResource> {
    await this.deps.promptGate?.requireReasonToSkipGate(overrideReason);
    const written = await conflictIfRaced(
      this.deps.resources.putNextVersion({ resourceType: PROMPT_RESOURCE_TYPE, resourceId: id, author: admin.phone, active: true, ...edit }),
      `The prompt is no longer at version ${edit.expectedVersion}: reload it and apply your edit again`,
    );
    const skipped = overrideReason?.trim() ? { overrideReason: overrideReason.trim() } : {};
    await this.deps.trail.record({ author: admin.phone, action: 'prompt.update', resourceType: PROMPT_RESOURCE_TYPE, resourceId: id, details: { version: written.version, ...skipped } });
    return written;
  }

  async rollbackPrompt(admin: Operator, id: string, targetVersion: number): Promise<VersionedResource> {
    let written: VersionedResource;
    try {
      written = await this.deps.resources.rollback(PROMPT_RESOURCE_TYPE, id, targetVersion, admin.phone);
    } catch (error) {
      if (error instanceof AdminResourceVersionNotFoundError) throw new OperatorActionError('not_found', `Prompt '${id}' has no version ${targetVersion}`);
      if (error instanceof VersionConflictError) throw new OperatorActionError('conflict', 'Another edit of the prompt won meanwhile; reload it');
      throw error;
    }
    await this.deps.trail.record({ author: admin.phone, action: 'prompt.rollback', resourceType: PROMPT_RESOURCE_TYPE, resourceId: id, details: { version: written.version, rolledBackFrom: targetVersion } });
    return written;
  }

  async getConfig(key: string): Promise<OperationalConfig | { readonly key: string; readonly value: null; readonly version: 0 }> {
    if (!READABLE_CONFIG_KEYS.includes(key)) throw new OperatorActionError('not_found', `No setting '${key}'; use one of ${READABLE_CONFIG_KEYS.join(', ')}`);
    return (await this.deps.config.get(key)) ?? { key, value: null, version: 0 };
  }

  /**
   * Validated per key, compare-and-set on `expectedVersion` (0: the setting must not exist yet).
   * An `operators` edit that removes someone ends their sessions and login links at once, audited
   * per person; a deploy-time admin keeps hers (the deployment, not this list, makes her an admin).
   * A demoted admin keeps her session as the operator she now is: every call made with the admin
   * role checks it against the list as stored, so her admin calls stop at once anyway.
   */
  async setConfig(admin: Operator, key: string, value: unknown, expectedVersion: number): Promise<OperationalConfig> {
    const previous = await this.deps.config.get(key);
    let stored: unknown;
    try {
      stored = validateConfigValue(key, value, { author: admin.phone, now: isoMicros(this.deps.clock.now()), previous: previous?.value });
    } catch (error) {
      if (error instanceof InvalidConfigValueError) throw new OperatorActionError('invalid', error.message, error.problem);
      throw error;
    }
    if (key === HANDOFF_NOTICE_TEMPLATE_CONFIG_KEY) await this.requireApprovedTemplate(stored as TemplateRef);
    const written = await conflictIfRaced(this.deps.config.set({ key, value: stored, author: admin.phone }, { expectedVersion }), `Setting '${key}' is no longer at version ${expectedVersion}: reload it`);
    const changed = changedPhones(key, previous?.value, stored);
    await this.deps.trail.record({ author: admin.phone, action: 'config.update', resourceType: 'config', resourceId: key, details: { version: written.version, ...changed } });
    if (key === OPERATORS_CONFIG_KEY) {
      this.deps.directory.invalidate();
      const removed = (changed.removed ?? []).filter((phone) => !this.deps.directory.isDeployTimeAdmin(phone));
      await Promise.all(removed.map((phone) => this.endAccess(admin, phone)));
    }
    return written;
  }

  private async requireApprovedTemplate(ref: TemplateRef): Promise<void> {
    const template = await this.deps.templates.get(ref);
    if (template?.status !== 'APPROVED') {
      throw new OperatorActionError('template_not_approved', `${ref.name} (${ref.language}) is ${template === undefined ? 'not among the synced templates' : template.status}: name an approved template of the Templates screen, or sync first`);
    }
    const problem = pipelineTemplateProblem(template);
    if (problem !== undefined) throw new OperatorActionError('invalid', problem);
  }

  private async endAccess(admin: Operator, phone: string): Promise<void> {
    const revoked = await this.deps.auth.revokeAll(phone, this.deps.clock.now());
    await this.deps.trail.record({ author: admin.phone, action: 'operator.access_ended', resourceType: 'operator', resourceId: phone, details: { ...revoked } });
  }

  /** The deploy-time admins (the deployment, not the `operators` setting, makes them admins), with the names the setting or the deployment (`adminDisplayNames`) gives them. */
  async deploymentAdmins(): Promise<{ readonly phone: string; readonly role: 'admin'; readonly name?: string }[]> {
    const admins = (await this.deps.directory.list()).filter((operator) => this.deps.directory.isDeployTimeAdmin(operator.phone));
    return admins.map(({ phone, name }) => ({ phone, role: 'admin', name }));
  }

  listAudit(page: PageRequest) {
    return this.deps.audit.listRecent(page);
  }

  listDemands(page: PageRequest) {
    return this.deps.demands.listRecent(page);
  }

  listConsents(page: PageRequest) {
    return this.deps.consents.listRecent(page);
  }

  /** The agent's replies and tokens per UTC day from `from` to `to` (default: the last 7 days), with their total; Meta's fees at the admin's rates. */
  async usageReport(period: { readonly from?: string; readonly to?: string }): Promise<UsageReport> {
    const days = reportDays(period, this.deps.clock.now());
    const rates = await metaRatesInForce(this.deps.config);
    const [usage, evaluationTokens] = await Promise.all([this.deps.messages.agentUsageByDay(days, USAGE_REPORT_BOUND, rates), this.deps.budget.evaluationTokensOfDays(days)]);
    const evaluation = { tokens: evaluationTokens.reduce((sum, tokens) => sum + tokens, 0), days: days.map((day, index) => ({ day, tokens: evaluationTokens[index] })) };
    return { ...usageReportOf(usage, rates.checkedOn), evaluation };
  }

  /** Per UTC day from `from` to `to` (the usage report's period): the handoffs, their claims and the medians of the customer's wait. */
  async handoffReport(period: { readonly from?: string; readonly to?: string }): Promise<HandoffReport> {
    const days = reportDays(period, this.deps.clock.now());
    return handoffReportOf(await this.deps.handoffs.timelinesByDay(days, HANDOFF_REPORT_BOUND));
  }

  crmProblems() {
    return this.deps.crmSync.problems();
  }

  /** CRM rows in one status, earliest next attempt first. */
  listCrmRows(status: CrmSyncStatus, page: PageRequest) {
    return this.deps.crmSync.listStatus(status, page);
  }

  /** A BLOCKED or UNCERTAIN row goes out again with a fresh attempt budget (audited). */
  retryCrmSync(admin: Operator, sessionId: string): Promise<CrmSyncRow> {
    return this.changeCrmProblem(admin, sessionId, 'crm.retry', (row, now) => retriedByOperator(row, now));
  }

  /** The operator found the contact and deal in the CRM: their ids are recorded and the row is sent as an update (audited). */
  resolveCrmSync(admin: Operator, sessionId: string, ids: { readonly contactId: string; readonly dealId: string }): Promise<CrmSyncRow> {
    return this.changeCrmProblem(admin, sessionId, 'crm.resolve', (row, now) => resolvedByOperator(row, ids, now));
  }

  private async changeCrmProblem(admin: Operator, sessionId: string, action: 'crm.retry' | 'crm.resolve', change: (row: CrmSyncRow, now: string) => CrmSyncRow): Promise<CrmSyncRow> {
    let from: CrmSyncStatus | undefined;
    const changed = await this.deps.crmSync.change(sessionId, (row) => {
      if (!CRM_PROBLEM_STATUSES.includes(row.status)) throw new OperatorActionError('conflict', `The CRM sync of '${sessionId}' is ${row.status}: only BLOCKED or UNCERTAIN rows are retried or resolved`);
      from = row.status;
      return change(row, isoMicros(this.deps.clock.now()));
    });
    if (changed === undefined) throw new OperatorActionError('not_found', `No CRM sync for session '${sessionId}'`);
    await this.deps.trail.record({ author: admin.phone, action, resourceType: 'crm_sync', resourceId: sessionId, customerId: changed.customerId, details: { from: from! } });
    return changed;
  }
}

/** Who was added or removed, for the audit of an operators edit (phones are what admins manage). */
function changedPhones(key: string, before: unknown, after: unknown): { readonly added?: string[]; readonly removed?: string[] } {
  if (key !== OPERATORS_CONFIG_KEY) return {};
  const phones = (value: unknown) => new Set(value !== null && typeof value === 'object' ? Object.keys(value) : []);
  const [old, now] = [phones(before), phones(after)];
  return { added: [...now].filter((phone) => !old.has(phone)), removed: [...old].filter((phone) => !now.has(phone)) };
}
