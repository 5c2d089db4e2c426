import type { PromptDraft } from '../../../../lib/contract/operator-api-evaluation';
import type { VersionedResource } from '../../domain/admin';
import type { Operator } from '../../domain/operator';
import { type EvaluationRun, gateVerdict, PROMPT_DRAFT_RESOURCE_TYPE, runAsSeen } from '../../domain/evaluation/prompt-gate';
import { isoMicros } from '../../domain/timestamps';
import type { Clock, IdGenerator } from '../../ports/clock';
import type { EvaluationLauncher, EvaluationRunRepository } from '../../ports/evaluation';
import { VersionConflictError, type VersionedResourceRepository } from '../../ports/repositories';
import { PROMPT_RESOURCE_TYPE } from '../operator/admin-console';
import type { OperatorAuditTrail } from '../operator/operator-audit';
import { conflictIfRaced, OperatorActionError } from '../operator/operator-errors';
import type { ScenarioSuite } from './scenario-suite';

/** The runs of a prompt the console lists, and the gate reads. */
const RECENT_RUNS = 10;

export interface PromptDraftsDependencies {
  readonly resources: VersionedResourceRepository;
  readonly runs: EvaluationRunRepository;
  readonly suite: Pick<ScenarioSuite, 'size'>;
  /** Plays a run elsewhere (the evaluator function). */
  readonly launcher: EvaluationLauncher;
  readonly trail: Pick<OperatorAuditTrail, 'record'>;
  readonly clock: Clock;
  readonly ids: IdGenerator;
}

/**
 * The console's gate on a prompt (docs/EVALUATION.md, "The gate in the console"): an admin keeps a
 * draft of the prompt, evaluates it against the deployment's suite beside the current version,
 * and publishes it as the prompt's next version — only with a reason, recorded in the audit, when
 * it was not evaluated against the current version or fails a scenario the current version passes.
 */
export class PromptDrafts {
  constructor(private readonly deps: PromptDraftsDependencies) {}

  async draft(promptId: string): Promise<PromptDraft | undefined> {
    const resource = await this.deps.resources.getCurrent(PROMPT_DRAFT_RESOURCE_TYPE, promptId);
    return resource && draftOf(resource);
  }

  async saveDraft(admin: Operator, promptId: string, edit: { readonly content: string; readonly expectedVersion: number; readonly description?: string }): Promise<PromptDraft> {
    const written = await conflictIfRaced(
      this.deps.resources.putNextVersion({ resourceType: PROMPT_DRAFT_RESOURCE_TYPE, resourceId: promptId, author: admin.phone, active: true, ...edit }),
      `The draft is no longer at version ${edit.expectedVersion}: reload it and apply your edit again`,
    );
    await this.deps.trail.record({ author: admin.phone, action: 'prompt.draft', resourceType: PROMPT_RESOURCE_TYPE, resourceId: promptId, details: { draftVersion: written.version } });
    return draftOf(written);
  }

  /** Stores the run as `running` and has it played elsewhere; the console polls {@link run}. */
  async startEvaluation(admin: Operator, promptId: string, draftVersion: number): Promise<EvaluationRun> {
    await this.requireDraft(promptId, draftVersion);
    if ((await this.deps.suite.size()) === 0) throw new OperatorActionError('no_scenarios', 'The deployment has no scenario to evaluate with: add scenarios to the suite first');
    const now = this.deps.clock.now();
    const current = await this.deps.resources.getCurrent(PROMPT_RESOURCE_TYPE, promptId);
    const run: EvaluationRun = {
      // Time first: the prompt's runs list newest first by id.
      runId: `${isoMicros(now).replace(/\D/g, '').slice(0, 17)}-${this.deps.ids.newId().replace(/[^A-Za-z0-9]/g, '').slice(0, 8)}`,
      promptId,
      draftVersion,
      currentVersion: current?.version ?? 0,
      status: 'running',
      startedBy: admin.phone,
      startedAt: isoMicros(now),
      scenarios: [],
      regressions: [],
      usage: { inputTokens: 0, outputTokens: 0 },
    };
    await this.deps.runs.create(run);
    await this.deps.trail.record({ author: admin.phone, action: 'evaluation.start', resourceType: PROMPT_RESOURCE_TYPE, resourceId: promptId, details: { runId: run.runId, draftVersion, currentVersion: run.currentVersion } });
    try {
      await this.deps.launcher.launch({ promptId, runId: run.runId });
    } catch (error) {
      // Never left `running` for a run nothing will play.
      await this.deps.runs.finish({ ...run, status: 'failed', finishedAt: isoMicros(this.deps.clock.now()), error: `the run could not start: ${(error as Error).message}` });
      throw error;
    }
    return run;
  }

  async run(promptId: string, runId: string): Promise<EvaluationRun> {
    const run = await this.deps.runs.get(promptId, runId);
    if (run === undefined) throw new OperatorActionError('not_found', `Prompt '${promptId}' has no evaluation run '${runId}'`);
    return runAsSeen(run, this.deps.clock.now());
  }

  async runs(promptId: string): Promise<EvaluationRun[]> {
    const now = this.deps.clock.now();
    return (await this.deps.runs.listRecent(promptId, RECENT_RUNS)).map((run) => runAsSeen(run, now));
  }

  /** The draft as the prompt's next version, if the gate lets it through or the admin gives a reason. */
  async publish(admin: Operator, promptId: string, request: { readonly draftVersion: number; readonly expectedVersion: number; readonly overrideReason?: string }): Promise<VersionedResource> {
    const draft = await this.requireDraft(promptId, request.draftVersion);
    const [suiteSize, runs] = await Promise.all([this.deps.suite.size(), this.deps.runs.listRecent(promptId, RECENT_RUNS)]);
    const verdict = gateVerdict(suiteSize, runs, request.draftVersion, request.expectedVersion);
    const overrideReason = request.overrideReason?.trim() || undefined;
    if (!verdict.open && overrideReason === undefined) throw refusal(verdict);
    const published = await conflictIfRaced(
      this.deps.resources.putNextVersion({ resourceType: PROMPT_RESOURCE_TYPE, resourceId: promptId, content: draft.content, description: draft.description, author: admin.phone, active: true, expectedVersion: request.expectedVersion }),
      `The prompt is no longer at version ${request.expectedVersion}: reload it, and evaluate the draft against the new version`,
    );
    // The draft is kept as history; the next save starts the prompt's next draft from it.
    await this.deps.resources.putNextVersion({ resourceType: PROMPT_DRAFT_RESOURCE_TYPE, resourceId: promptId, content: draft.content, description: draft.description, author: admin.phone, active: false, expectedVersion: draft.version }).catch((error: unknown) => {
      if (!(error instanceof VersionConflictError)) throw error;
    });
    const run = verdict.open ? verdict.run : verdict.reason === 'evaluation_regression' ? verdict.run : undefined;
    await this.deps.trail.record({
      author: admin.phone,
      action: 'prompt.publish',
      resourceType: PROMPT_RESOURCE_TYPE,
      resourceId: promptId,
      details: {
        version: published.version,
        draftVersion: draft.version,
        ...(run && { runId: run.runId }),
        ...(!verdict.open && { overridden: verdict.reason, overrideReason }),
        ...(!verdict.open && verdict.reason === 'evaluation_regression' && { regressions: verdict.run.regressions }),
      },
    });
    return published;
  }

  /** A direct edit of a prompt skips the gate: once the suite has scenarios, only with a reason. */
  async requireReasonToSkipGate(overrideReason: string | undefined): Promise<void> {
    if (overrideReason?.trim()) return;
    if ((await this.deps.suite.size()) === 0) return;
    throw new OperatorActionError('evaluation_required', 'The deployment has a scenario suite: save the edit as a draft, evaluate it and publish it, or give a reason (overrideReason) to skip the gate');
  }

  private async requireDraft(promptId: string, version: number): Promise<PromptDraft> {
    const resource = await this.deps.resources.getCurrent(PROMPT_DRAFT_RESOURCE_TYPE, promptId);
    if (resource === undefined || resource.version !== version || !resource.active) {
      throw new OperatorActionError(resource === undefined ? 'not_found' : 'conflict', resource === undefined ? `Prompt '${promptId}' has no draft` : `The draft of '${promptId}' is at version ${resource.version}${resource.active ? '' : ', published'}, not the draft version ${version}: reload it`);
    }
    return draftOf(resource);
  }
}

function draftOf(resource: VersionedResource): PromptDraft {
  return {
    promptId: resource.resourceId,
    version: resource.version,
    content: resource.content,
    ...(resource.description !== undefined && { description: resource.description }),
    author: resource.author,
    createdAt: resource.createdAt,
    published: !resource.active,
  };
}

function refusal(verdict: Exclude<ReturnType<typeof gateVerdict>, { open: true }>): OperatorActionError {
  if (verdict.reason === 'not_evaluated') {
    return new OperatorActionError('not_evaluated', 'The draft was not evaluated against the prompt as it is now: run the scenarios, or give a reason (overrideReason) to publish anyway', { code: 'not_evaluated' });
  }
  const { regressions, runId } = verdict.run;
  return new OperatorActionError(
    'evaluation_regression',
    `The draft fails ${regressions.length} scenario(s) the current version passes (${regressions.join(', ')}): fix the draft, or give a reason (overrideReason) to publish anyway`,
    { code: 'evaluation_regression', regressions: regressions.length, runId },
  );
}
