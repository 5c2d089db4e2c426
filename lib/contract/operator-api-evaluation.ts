/**
 * The admins' calls of the prompt gate (docs/EVALUATION.md, "The gate in the console"): the
 * deployment's scenario suite, prompt drafts, evaluation runs of a draft beside the current
 * version, and publishing. Types only; `operator-api.ts` re-exports them and declares their routes.
 * Internal: not part of the jsii API.
 */

import type { Timestamp } from './operator-api-basics';

/** A scenario of the deployment's suite, as stored: the file format of `evaluation/scenario.schema.json`. */
export interface StoredScenario {
  /** Lower-case letters, digits and `-`, 1–64 characters: the scenario's key in the suite. */
  readonly id: string;
  readonly version: number;
  /** The scenario, in the file format (`formatVersion`, `name`, `turns`…). */
  readonly scenario: object;
  readonly author: string;
  readonly updatedAt: Timestamp;
}

export interface ScenarioSuite {
  /** In id order. */
  readonly items: readonly StoredScenario[];
}

export interface ScenarioEdit {
  /** A scenario in the file format (an object); refused with every problem listed when it does not follow it. */
  readonly scenario: unknown;
  /** The version edited; 0 adds the scenario. */
  readonly expectedVersion: number;
}

export interface ScenarioAnswer {
  readonly scenario: StoredScenario;
}

export interface ScenarioRemoved {
  readonly removed: true;
}

/** A scenario drafted from a conversation: the customer's turns, pseudonymised; not stored until an admin saves it. */
export interface ConversationScenarioAnswer {
  /** A suggested id for the suite. */
  readonly id: string;
  /** In the file format. */
  readonly scenario: object;
}

/** The prompt a draft would become; a prompt has at most one draft, the newest version of it. */
export interface PromptDraft {
  readonly promptId: string;
  /** The draft's own version, 1 upwards; each save is the next. */
  readonly version: number;
  readonly content: string;
  readonly description?: string;
  readonly author: string;
  readonly createdAt: Timestamp;
  /** Whether it was published (it is then kept as history, and a new save starts the next draft). */
  readonly published: boolean;
}

export interface PromptDraftAnswer {
  /** `null` when the prompt has no draft. */
  readonly draft: PromptDraft | null;
}

export interface PromptDraftEdit {
  /** 1–40,000 characters, not blank. */
  readonly content: string;
  /** The draft version edited; 0 starts the prompt's first draft. */
  readonly expectedVersion: number;
  readonly description?: string;
}

export interface EvaluationRequest {
  /** The draft version to evaluate beside the prompt's current version. */
  readonly draftVersion: number;
}

export type EvaluationStatus = 'running' | 'done' | 'failed';

/** How one prompt did on one scenario. */
export interface ScenarioOutcome {
  readonly passed: boolean;
  /** What failed, one line per check (at most 20). */
  readonly problems: readonly string[];
}

export interface ScenarioComparison {
  readonly name: string;
  /** The prompt's current version (or, before its first version, the deployment's). */
  readonly current?: ScenarioOutcome;
  readonly draft?: ScenarioOutcome;
}

/** One run of the deployment's suite against a draft and against the current prompt. */
export interface EvaluationRun {
  readonly runId: string;
  readonly promptId: string;
  readonly draftVersion: number;
  /** The prompt's version the draft was compared with; 0 before the prompt's first version. */
  readonly currentVersion: number;
  readonly status: EvaluationStatus;
  readonly startedBy: string;
  readonly startedAt: Timestamp;
  readonly finishedAt?: Timestamp;
  /** Why a `failed` run stopped. */
  readonly error?: string;
  readonly scenarios: readonly ScenarioComparison[];
  /** The names of the scenarios the current version passes and the draft fails. */
  readonly regressions: readonly string[];
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
  /** At the packaged model prices, judge included; absent when no priced model answered. */
  readonly costUsd?: number;
}

export interface EvaluationAnswer {
  readonly evaluation: EvaluationRun;
}

export interface EvaluationList {
  /** Newest first, at most 10. */
  readonly items: readonly EvaluationRun[];
}

export interface DraftPublication {
  readonly draftVersion: number;
  /** The prompt's version the draft replaces (0: the prompt has none yet). */
  readonly expectedVersion: number;
  /**
   * An admin's reason to publish what the gate refuses (1–500 characters, recorded in the audit):
   * needed when the draft was not evaluated against the current version, or regresses on a scenario.
   */
  readonly overrideReason?: string;
}
