import { replyLanguage } from './reply-language';
import type { LearnedFields, ScenarioLocale, TurnExpectations } from './scenario';

/** What one turn of a scenario did, as the runner observed it on the real turn path. */
export interface TurnObservation {
  /** The texts the turn sent the customer, in order (none: no reply). */
  readonly replies: readonly string[];
  /** Every tool the agent called in the turn, built-in actions and the consumer's, with its input. */
  readonly toolCalls: readonly ObservedToolCall[];
  /** The stage serving the conversation after the turn (with stages). */
  readonly stage?: string;
  /** The conversation went to people in this turn. */
  readonly handedOff: boolean;
  /** What the session knows after the turn. */
  readonly learned: LearnedFields;
}

export interface ObservedToolCall {
  readonly name: string;
  readonly input: unknown;
}

/**
 * The problems of a turn against its expectations other than the rubric (a judge's): one line each,
 * naming the check, empty when every check holds. `locale` is the customer's language.
 */
export function expectationProblems(expect: TurnExpectations, observed: TurnObservation, locale: ScenarioLocale): string[] {
  const reply = observed.replies.join('\n');
  const called = observed.toolCalls.map((call) => call.name);
  const problems: string[] = [];
  for (const { name, input } of expect.toolsCalled ?? []) {
    const calls = observed.toolCalls.filter((call) => call.name === name);
    if (calls.length === 0) problems.push(`toolsCalled: ${name} was not called (called: ${called.join(', ') || 'none'})`);
    else if (input !== undefined && !calls.some((call) => matchProblems(input, call.input, 'input').length === 0)) {
      problems.push(`toolsCalled: ${name} was called, but not with that input (${matchProblems(input, calls[0].input, 'input').join('; ')})`);
    }
  }
  for (const name of expect.toolsNotCalled ?? []) if (called.includes(name)) problems.push(`toolsNotCalled: ${name} was called`);
  if (expect.handover !== undefined && observed.stage !== expect.handover) problems.push(`handover: the stage is ${observed.stage ?? 'none'}, not ${expect.handover}`);
  if (expect.handoff !== undefined && observed.handedOff !== expect.handoff) problems.push(expect.handoff ? 'handoff: the conversation did not go to people' : 'handoff: the conversation went to people');
  if (expect.learned !== undefined) problems.push(...matchProblems(expect.learned, observed.learned, 'learned'));
  const checks = expect.reply;
  if (checks === undefined) return problems;
  if (checks.none === true && observed.replies.length > 0) problems.push('reply.none: the turn replied');
  if (checks.none === false && observed.replies.length === 0) problems.push('reply.none: the turn did not reply');
  const lower = reply.toLocaleLowerCase();
  for (const text of checks.contains ?? []) if (!lower.includes(text.toLocaleLowerCase())) problems.push(`reply.contains: no "${text}" in ${quoted(reply)}`);
  for (const text of checks.notContains ?? []) if (lower.includes(text.toLocaleLowerCase())) problems.push(`reply.notContains: "${text}" in ${quoted(reply)}`);
  if (checks.matches !== undefined && !new RegExp(checks.matches, 'iu').test(reply)) problems.push(`reply.matches: ${quoted(reply)} does not match /${checks.matches}/`);
  if (checks.maxLength !== undefined && reply.length > checks.maxLength) problems.push(`reply.maxLength: ${reply.length} characters, over ${checks.maxLength}`);
  if (checks.inLanguage === true) {
    const language = replyLanguage(reply);
    if (language !== locale) problems.push(`reply.inLanguage: the reply reads as ${language ?? 'no known language'}, not ${locale}`);
  }
  return problems;
}

/**
 * Where `value` differs from `matcher` (scenario.ts's `ValueMatcher`), each naming its path: a
 * `{matches}` or `{contains}` object tests a text, another object its listed keys, anything else
 * must be equal.
 */
export function matchProblems(matcher: unknown, value: unknown, path: string): string[] {
  if (isTextMatcher(matcher)) {
    if (typeof value !== 'string') return [`${path} is ${describe(value)}, not a text`];
    if ('matches' in matcher) return new RegExp(matcher.matches, 'iu').test(value) ? [] : [`${path} ${quoted(value)} does not match /${matcher.matches}/`];
    return value.toLocaleLowerCase().includes(matcher.contains.toLocaleLowerCase()) ? [] : [`${path} ${quoted(value)} does not contain "${matcher.contains}"`];
  }
  if (isPlainObject(matcher)) {
    if (!isPlainObject(value)) return [`${path} is ${describe(value)}, not an object`];
    return Object.entries(matcher).flatMap(([key, expected]) => matchProblems(expected, Object.hasOwn(value, key) ? value[key] : undefined, `${path}.${key}`));
  }
  return JSON.stringify(matcher) === JSON.stringify(value) ? [] : [`${path} is ${describe(value)}, not ${JSON.stringify(matcher)}`];
}

/** The text matchers' regular expressions that do not compile, by path: a scenario file is refused for them before anything runs. */
export function invalidPatterns(matcher: unknown, path: string): string[] {
  if (isTextMatcher(matcher)) return 'matches' in matcher && !compiles(matcher.matches) ? [`${path}.matches`] : [];
  if (!isPlainObject(matcher)) return [];
  return Object.entries(matcher).flatMap(([key, value]) => invalidPatterns(value, `${path}.${key}`));
}

export function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, 'iu');
    return true;
  } catch {
    return false;
  }
}

type TextMatcher = { readonly matches: string } | { readonly contains: string };

function isTextMatcher(value: unknown): value is TextMatcher {
  if (!isPlainObject(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && (keys[0] === 'matches' || keys[0] === 'contains') && typeof value[keys[0]] === 'string';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  return value === undefined ? 'absent' : JSON.stringify(value);
}

/** A reply as a problem quotes it: bounded, so a long reply keeps the report readable. */
function quoted(text: string): string {
  return JSON.stringify(text.length > 160 ? `${text.slice(0, 157)}...` : text);
}
