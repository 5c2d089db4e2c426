import { SIMPLE_SETTINGS, type SimpleSettingDeclaration, type SimpleSettingName, type SimpleSettingValue } from '../../lib/contract';
import { PipelineError } from '../core/domain/errors';

// How the reader checks what a function is told: each check takes a value of the settings document
// and the path that names it, and returns it typed or refuses it with that name. The document is
// written by the construct, so a refusal means a hand-edited asset or a runtime of another version.

/** A function was told something missing or unusable; thrown at cold start. */
export class RuntimeConfigError extends PipelineError {
  override readonly name: string = 'RuntimeConfigError';
  override readonly code: string = 'invalid_runtime_config';
  override readonly retryable = false;
}

/** What the orchestrator was told does not describe a usable agent. */
export class AgentConfigurationError extends RuntimeConfigError {
  override readonly name: string = 'AgentConfigurationError';
  override readonly code: string = 'invalid_agent_configuration';
}

export type Check<T> = (value: unknown, path: string) => T;

/** A refusal of the setting at `path`. */
export function refusal(path: string, problem: string, error: new (message: string) => RuntimeConfigError = RuntimeConfigError): RuntimeConfigError {
  return new error(`Setting ${path} ${problem}; the AgentPipeline construct writes it in the function's settings document.`);
}

export const text = (maxCharacters = Infinity): Check<string> => (value, path) => {
  if (typeof value !== 'string' || value.trim() === '' || value.length > maxCharacters) throw refusal(path, `is not a non-blank text${maxCharacters === Infinity ? '' : ` of at most ${maxCharacters} characters`}`);
  return value;
};

export const wholeNumber = (min = 1, max = Number.MAX_SAFE_INTEGER): Check<number> => (value, path) => {
  if (!Number.isSafeInteger(value) || (value as number) < min || (value as number) > max) throw refusal(path, `is not a whole number from ${min} to ${max}`);
  return value as number;
};

export const flag: Check<boolean> = (value, path) => {
  if (typeof value !== 'boolean') throw refusal(path, 'is not true or false');
  return value;
};

export const oneOf = <V extends string>(values: readonly V[]): Check<V> => (value, path) => {
  if (!values.includes(value as V)) throw refusal(path, `is not one of ${values.join(', ')}`);
  return value as V;
};

/** Text that passes `test` (`what` says what it must be). */
export const textWhere = (test: (value: string) => boolean, what: string): Check<string> => (value, path) => {
  if (typeof value !== 'string' || !test(value)) throw refusal(path, `is not ${what}`);
  return value;
};

/** `null` where the deployment turned the setting off. */
export const nullable = <T>(check: Check<T>): Check<T | null> => (value, path) => (value === null ? null : check(value, path));

export const listOf = <T>(check: Check<T>, minItems = 0): Check<readonly T[]> => (value, path) => {
  if (!Array.isArray(value) || value.length < minItems) throw refusal(path, `is not a list${minItems > 0 ? ` of at least ${minItems}` : ''}`);
  return value.map((item, index) => check(item, `${path}[${index}]`));
};

export const recordOf = <T>(check: Check<T>): Check<Readonly<Record<string, T>>> => (value, path) =>
  Object.fromEntries(Object.entries(plainObject(value, path)).map(([key, item]) => [key, check(item, `${path}.${key}`)]));

type Checked<S> = { readonly [K in keyof S]: S[K] extends Check<infer T> ? T : never };

/** An object with exactly these fields (`optional` ones may be absent). */
export function struct<S extends Record<string, Check<unknown>>>(fields: S, optional: readonly (keyof S)[] = []): Check<Checked<S>> {
  return (value, path) => {
    const object = plainObject(value, path);
    const unknown = Object.keys(object).find((key) => !Object.hasOwn(fields, key));
    if (unknown !== undefined) throw refusal(`${path}.${unknown}`, 'is not a field of it');
    const checked: Record<string, unknown> = {};
    for (const [key, check] of Object.entries(fields)) {
      if (!Object.hasOwn(object, key)) {
        if (optional.includes(key)) continue;
        throw refusal(`${path}.${key}`, 'is missing');
      }
      checked[key] = check(object[key], `${path}.${key}`);
    }
    return checked as Checked<S>;
  };
}

export function plainObject(value: unknown, path: string): Readonly<Record<string, unknown>> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw refusal(path, 'is not an object');
  return value as Record<string, unknown>;
}

/** The check of a simple setting, from its declaration (settings-document.ts). */
export function simpleSettingCheck<N extends SimpleSettingName>(name: N): Check<SimpleSettingValue<N>> {
  const declaration: SimpleSettingDeclaration = SIMPLE_SETTINGS[name];
  switch (declaration.kind) {
    case 'choice':
      return oneOf(declaration.values) as Check<SimpleSettingValue<N>>;
    case 'count':
      return wholeNumber(declaration.min, declaration.max) as Check<SimpleSettingValue<N>>;
    case 'text':
      return text(declaration.maxCharacters) as Check<SimpleSettingValue<N>>;
  }
}
