import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { createDynamoRepositories, type DynamoRepositories } from '../../../lambda/core/adapters/dynamodb/dynamo-repositories';
import { SqsDeadLetterQueue } from '../../../lambda/core/adapters/sqs/sqs-dead-letter-queue';
import type { SqsApi } from '../../../lambda/core/adapters/sqs/sqs-api';
import { RedriveDeadLetters, type RedriveOutcome } from '../../../lambda/core/application/redrive-dead-letters';
import type { FaultPlan } from '../../support/fault-injection';
import { principalClients } from '../../support/permissions/function-principals';
import { startReliabilityEnvironment, type ReliabilityEnvironment } from './pipeline-under-test';
import { ScenarioRun, type RunResult } from './scenario-run';

/** Where a pipeline's turns and dead letters live, as the redrive needs it. */
export interface RedriveTarget {
  readonly turnQueueUrl: string;
  readonly deadLetterQueueUrl: string;
  readonly sqs: SqsApi;
  readonly repositories: DynamoRepositories;
}

/** The operator's redrive of the target's dead-letter queue, applied (or, with `apply: false`, a dry run). */
export function redrive(target: RedriveTarget, options: { readonly apply: boolean } = { apply: true }): Promise<RedriveOutcome[]> {
  const deadLetters = new SqsDeadLetterQueue({ turnQueueUrl: target.turnQueueUrl, deadLetterQueueUrl: target.deadLetterQueueUrl, sqs: target.sqs });
  return new RedriveDeadLetters({ ...target.repositories, deadLetters }).run(options);
}

/** The redrive target of a local pipeline (its own queues and table), reached as the redrive's role (`grantRedrive`). */
export function localRedriveTarget(pipeline: { readonly turnQueueUrl: string; readonly deadLetterQueueUrl: string; readonly tableName: string }): RedriveTarget {
  const { queues, documentClient } = principalClients('redrive');
  return { turnQueueUrl: pipeline.turnQueueUrl, deadLetterQueueUrl: pipeline.deadLetterQueueUrl, sqs: queues, repositories: createDynamoRepositories({ tableName: pipeline.tableName, client: documentClient }) };
}

/** Visible plus in-flight records of a queue. */
export async function recordsIn(queueUrl: string, client: SQSClient): Promise<number> {
  const { Attributes = {} } = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
  );
  return Number(Attributes.ApproximateNumberOfMessages ?? 0) + Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0);
}

export interface RedriveScenario {
  readonly name: string;
  /** Faults armed on the orchestrator while `act` runs. */
  readonly faults: readonly FaultPlan[];
  /**
   * Whether the run must satisfy every invariant (default true). A story may leave a message
   * knowingly unanswered (a newer one's reply settles it): then its test checks the outcome itself.
   */
  readonly invariantsHold?: boolean;
  /** The customer's story; `redriveNow` runs the operator's redrive at that point. */
  act(run: ScenarioRun, redriveNow: () => Promise<RedriveOutcome[]>): Promise<void>;
}

export interface RedriveScenarioResult {
  readonly result: RunResult;
  readonly env: ReliabilityEnvironment;
  /** Texts WhatsApp accepted, in order. */
  readonly sent: readonly string[];
}

/**
 * Runs one redrive story in a fresh reliability environment with the faults armed on the
 * orchestrator, checks that no invariant was violated (unless the story says otherwise), and hands the result to `check` before the
 * environment is closed.
 */
export async function runRedriveScenario(scenario: RedriveScenario, check: (outcome: RedriveScenarioResult) => Promise<void> | void): Promise<void> {
  const env = await startReliabilityEnvironment('redrive');
  try {
    const result = await new ScenarioRun(
      env,
      { name: scenario.name, act: (run) => scenario.act(run, () => redrive(localRedriveTarget(env))) },
      'orchestrator',
      [...scenario.faults],
    ).execute();
    if (scenario.invariantsHold !== false) expect(result.report.violations).toEqual([]);
    await check({ result, env, sent: env.fake.sent().map((sent) => sent.text) });
  } finally {
    await env.close();
  }
}
