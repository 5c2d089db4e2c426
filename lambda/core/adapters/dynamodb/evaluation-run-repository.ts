import type { EvaluationRun, ScenarioComparison, ScenarioOutcome } from '../../domain/evaluation/prompt-gate';
import type { EvaluationRunRepository } from '../../ports/evaluation';
import { MalformedItemError } from './dynamo-errors';
import type { DynamoKit, Item } from './dynamo-kit';
import { ItemReader } from './codecs/item-reader';
import { ENTITY_TYPE, EntityType, evaluationRunKey, evaluationRunListPrefix, TTL } from './keys';
import { IF_ABSENT, queryPrefixPage } from './repository-support';

/** A run's item outlives what an admin compares: the gate reads only the newest runs of a draft. */
const RUN_RETENTION_SECONDS = 90 * 24 * 60 * 60;
const STILL_RUNNING = { condition: '#status = :running', names: { '#status': 'status' }, values: { ':running': 'running' } } as const;

/** The gate's runs, one item each under the prompt's partition; the result is written once, over the `running` item. */
export class DynamoEvaluationRunRepository implements EvaluationRunRepository {
  constructor(private readonly kit: DynamoKit) {}

  async create(run: EvaluationRun): Promise<void> {
    await this.kit.put({ item: runToItem(run), ...IF_ABSENT });
  }

  async get(promptId: string, runId: string): Promise<EvaluationRun | undefined> {
    const item = await this.kit.get({ key: evaluationRunKey(promptId, runId), consistentRead: true });
    return item && runFromItem(item);
  }

  async listRecent(promptId: string, limit: number): Promise<EvaluationRun[]> {
    const page = await queryPrefixPage(this.kit, evaluationRunListPrefix(promptId), { limit }, { newestFirst: true, consistentRead: true });
    return page.items.map(runFromItem);
  }

  async finish(run: EvaluationRun): Promise<void> {
    await this.kit.put({ item: runToItem(run), ...STILL_RUNNING });
  }
}

function runToItem(run: EvaluationRun): Item {
  return {
    ...evaluationRunKey(run.promptId, run.runId),
    [ENTITY_TYPE]: EntityType.evaluationRun,
    run_id: run.runId,
    prompt_id: run.promptId,
    draft_version: run.draftVersion,
    current_version: run.currentVersion,
    status: run.status,
    started_by: run.startedBy,
    started_at: run.startedAt,
    finished_at: run.finishedAt,
    error: run.error,
    scenarios: run.scenarios.map((scenario) => ({ ...scenario })),
    regressions: [...run.regressions],
    input_tokens: run.usage.inputTokens,
    output_tokens: run.usage.outputTokens,
    cost_usd: run.costUsd,
    [TTL]: Math.floor(Date.parse(run.startedAt) / 1000) + RUN_RETENTION_SECONDS,
  };
}

function runFromItem(item: Item): EvaluationRun {
  const read = new ItemReader(item, EntityType.evaluationRun);
  const scenarios = read.raw('scenarios');
  if (!Array.isArray(scenarios)) throw new MalformedItemError(EntityType.evaluationRun, 'scenarios', 'is not a list');
  const finishedAt = read.optionalTimestamp('finished_at');
  const error = read.optionalString('error');
  const costUsd = read.optionalNumber('cost_usd');
  return {
    runId: read.string('run_id'),
    promptId: read.string('prompt_id'),
    draftVersion: read.number('draft_version'),
    currentVersion: read.number('current_version'),
    status: read.oneOf('status', ['running', 'done', 'failed'] as const),
    startedBy: read.string('started_by'),
    startedAt: read.timestamp('started_at'),
    ...(finishedAt !== undefined && { finishedAt }),
    ...(error !== undefined && { error }),
    scenarios: scenarios.map(comparisonOf),
    regressions: read.stringList('regressions'),
    usage: { inputTokens: read.number('input_tokens', 0), outputTokens: read.number('output_tokens', 0) },
    ...(costUsd !== undefined && { costUsd }),
  };
}

function comparisonOf(value: unknown): ScenarioComparison {
  const entry = value as { name?: unknown; current?: unknown; draft?: unknown };
  if (typeof entry?.name !== 'string') throw new MalformedItemError(EntityType.evaluationRun, 'scenarios', 'holds an entry without a name');
  const current = outcomeOf(entry.current);
  const draft = outcomeOf(entry.draft);
  return { name: entry.name, ...(current && { current }), ...(draft && { draft }) };
}

function outcomeOf(value: unknown): ScenarioOutcome | undefined {
  if (value === undefined || value === null) return undefined;
  const outcome = value as { passed?: unknown; problems?: unknown };
  return { passed: outcome.passed === true, problems: Array.isArray(outcome.problems) ? outcome.problems.filter((problem): problem is string => typeof problem === 'string') : [] };
}
