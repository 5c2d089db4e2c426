/**
 * A conversation scenario (docs/EVALUATION.md): a starting state, the customer's turns and what
 * each turn must do. The file format is `evaluation/scenario.schema.json`; these are its types.
 */

/** The format version this release reads. */
export const SCENARIO_FORMAT_VERSION = 1;

/** The customer's languages a scenario may name, as the pipeline's locales. */
export type ScenarioLocale = 'pt-BR' | 'en' | 'es';

export interface Scenario {
  readonly formatVersion: typeof SCENARIO_FORMAT_VERSION;
  readonly name: string;
  readonly description?: string;
  readonly start?: ScenarioStart;
  /** Recorded answers of the consumer's tools, by tool name. */
  readonly tools?: Readonly<Record<string, readonly RecordedToolAnswer[]>>;
  readonly turns: readonly ScenarioTurn[];
}

export interface ScenarioStart {
  readonly stage?: string;
  readonly locale?: ScenarioLocale;
  readonly learned?: LearnedFields;
}

/** What the agent knows of the customer, as its tools record it on the session. */
export interface LearnedFields {
  readonly cadastral?: Readonly<Record<string, string>>;
  readonly qualification?: Readonly<Record<string, string>>;
  readonly segment?: string;
  readonly intent?: string;
}

export interface RecordedToolAnswer {
  /** Absent: any input. */
  readonly input?: ValueMatcher;
  readonly result?: unknown;
  readonly error?: string;
}

export interface ScenarioTurn {
  readonly customer: CustomerMessage;
  readonly expect?: TurnExpectations;
}

/** Exactly one of the three. */
export interface CustomerMessage {
  readonly text?: string;
  readonly tap?: { readonly kind?: 'button' | 'list'; readonly id?: string; readonly title: string };
  readonly media?: { readonly kind: 'image' | 'audio' | 'video' | 'document' | 'sticker'; readonly caption?: string; readonly filename?: string };
}

export interface TurnExpectations {
  readonly toolsCalled?: readonly { readonly name: string; readonly input?: ValueMatcher }[];
  readonly toolsNotCalled?: readonly string[];
  readonly handover?: string;
  readonly handoff?: boolean;
  readonly learned?: { readonly cadastral?: ValueMatcher; readonly qualification?: ValueMatcher; readonly segment?: unknown; readonly intent?: unknown };
  readonly reply?: ReplyChecks;
  readonly rubric?: readonly string[];
}

export interface ReplyChecks {
  readonly contains?: readonly string[];
  readonly notContains?: readonly string[];
  readonly matches?: string;
  readonly maxLength?: number;
  readonly inLanguage?: boolean;
  readonly none?: boolean;
}

/**
 * Matches a JSON value: each key of the matcher names a key of the value, whose value must equal
 * it, match it the same way (an object), or satisfy `{matches: regex}` / `{contains: text}`. Keys
 * the matcher leaves out are not checked.
 */
export type ValueMatcher = Readonly<Record<string, unknown>>;
