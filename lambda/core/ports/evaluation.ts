import { PipelineError } from '../domain/errors';
import type { EvaluationRun } from '../domain/evaluation/prompt-gate';
import type { Session } from '../domain/session';
import type { TokenUsage } from '../domain/customer-budget';
import type { ObservedToolCall } from '../domain/evaluation/expectations';
import type { CustomerMessage, RecordedToolAnswer, Scenario, ScenarioLocale } from '../domain/evaluation/scenario';

/**
 * What a scenario is played on (docs/EVALUATION.md#how-a-scenario-runs): the deployment's real
 * turn path, wired so that nothing reaches a customer — its sender records instead of sending, its
 * consumer tools answer from the scenario's recordings.
 */
export interface EvaluationStage {
  /** The customer's message, received as the webhook receives one of Meta's (registered, not queued); resolves once registered. */
  receive(customerId: string, message: CustomerMessage): Promise<void>;
  /** From now on the customer's tool calls answer from these recordings. */
  recordTools(customerId: string, tools: Readonly<Record<string, readonly RecordedToolAnswer[]>>): void;
  /** What the customer's turns sent and called since the last take, and forgets it. */
  take(customerId: string): StageRecording;
  /** Forgets the customer (the scenario ended). */
  release(customerId: string): void;
}

export interface StageRecording {
  /** The texts sent to the customer, in order. */
  readonly replies: readonly string[];
  readonly toolCalls: readonly ObservedToolCall[];
  /** Consumer tool calls no recording answered: each one a failure of the scenario (its fake answered a refusal). */
  readonly unrecorded: readonly string[];
}

/** Grades a reply on a rubric criterion: a judge model. */
export interface EvaluationJudge {
  /** The judge's model id, for its tokens' price. */
  readonly model: string;
  grade(request: RubricRequest): Promise<RubricGrade>;
}

export interface RubricRequest {
  readonly criterion: string;
  /** The conversation so far, oldest first; the last entries are the turn's. */
  readonly transcript: readonly { readonly role: 'customer' | 'agent'; readonly text: string }[];
  /** The turn's reply, graded. */
  readonly reply: string;
  readonly locale: ScenarioLocale;
}

export interface RubricGrade {
  readonly pass: boolean;
  /** The judge's one-sentence reason. */
  readonly reason: string;
  readonly usage?: TokenUsage;
}

/** The gate's evaluation runs, one partition per prompt (prompt-gate.ts). */
export interface EvaluationRunRepository {
  /** Refused with `ConditionFailedError` when the run id is taken. */
  create(run: EvaluationRun): Promise<void>;
  get(promptId: string, runId: string): Promise<EvaluationRun | undefined>;
  /** Newest first. */
  listRecent(promptId: string, limit: number): Promise<EvaluationRun[]>;
  /** Writes a run's result, only while it is `running`: refused with `ConditionFailedError` otherwise. */
  finish(run: EvaluationRun): Promise<void>;
}

/** Starts playing a stored run elsewhere (the evaluator function) and returns at once. */
export interface EvaluationLauncher {
  launch(run: { readonly promptId: string; readonly runId: string }): Promise<void>;
}

/** Erases what a scenario's customer left in the table once the scenario was played, reports included. */
export interface EvaluationCleanup {
  forget(customerId: string, sessions: readonly Pick<Session, 'sessionId' | 'handoffRequestedAt'>[]): Promise<void>;
}

/** One file of a suite: where it was read from (for the messages) and its text. */
export interface ScenarioSource {
  readonly file: string;
  readonly text: string;
}

/**
 * The scenarios of a suite, checked against the scenario format (docs/EVALUATION.md); refused
 * together with `ScenarioFormatError`, which names every problem of every file.
 */
export type ScenarioParser = (sources: readonly ScenarioSource[]) => Scenario[];

/** A scenario file the runner refuses, before anything runs: its message names the file, the scenario and the field. */
export class ScenarioFormatError extends PipelineError {
  override readonly name = 'ScenarioFormatError';
  override readonly code = 'invalid_scenario';
  override readonly retryable = false;
}
