/**
 * What the evaluator function is invoked with (docs/EVALUATION.md): a run of the console's gate,
 * stored in the table by the operator function, or a suite the CLI sends with AWS credentials.
 * CDK-free. Internal: not part of the jsii API.
 */

/** The operator function's asynchronous invocation: play the stored run `runId` of prompt `promptId`. */
export interface PromptEvaluationEvent {
  readonly promptEvaluation: { readonly promptId: string; readonly runId: string };
}

/** The CLI's synchronous invocation: play these scenarios (file format) and answer the suite's result. */
export interface SuiteEvaluationEvent {
  readonly suite: {
    /** Scenarios in the file format, as read from the files; checked again by the function. */
    readonly scenarios: readonly unknown[];
    /** Evaluate this draft of a prompt instead of the prompt's current version. */
    readonly draft?: { readonly promptId: string; readonly version: number };
    /** Scenarios played at a time (1–16; default 4). */
    readonly concurrency?: number;
  };
}

export type EvaluatorEvent = PromptEvaluationEvent | SuiteEvaluationEvent;

/** The evaluator's answer to a {@link SuiteEvaluationEvent}; a refused suite answers `problems`. */
export type SuiteEvaluationAnswer =
  | { readonly result: SuiteResultJson }
  | { readonly problems: string };

/** The runner's result as JSON (run-scenarios.ts `SuiteResult`). */
export interface SuiteResultJson {
  readonly runId: string;
  readonly scenarios: readonly {
    readonly name: string;
    readonly passed: boolean;
    readonly turns: readonly { readonly customer: string; readonly replies: readonly string[]; readonly problems: readonly string[] }[];
    readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
    readonly costUsd?: number;
    readonly durationMs: number;
    readonly error?: string;
  }[];
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
  readonly costUsd?: number;
}
