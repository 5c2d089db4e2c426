import { AVAILABILITY_TTL_BOUNDS, DEFAULT_HANDOFF_TEXTS, MODEL_PRICE_LIMITS, type ModelPrice, HANDOFF_TEXT_MAX_CHARACTERS, LINK_PLACEHOLDER, misplacesLink } from '../../../lib/contract';
import type { HandoffTexts as HandoffTextsProps } from '../../../lib/contract/handoff-texts';
import { PipelineError } from './errors';
import { isCalendarDay } from './timestamps';
import { isMetaRate, isMetaRateCategory, marketsOf, META_RATE_LIMITS, META_RATES_CONFIG_KEY, type MetaRateCorrections } from '../../../lib/contract/meta-message-rates';
import { MODEL_PRICES_CONFIG_KEY, type ModelPrices } from '../../../lib/contract/model-prices';
import { DEFAULT_AVAILABILITY_TTL_HOURS, isOperatorPhone, OPERATOR_ROLES, OPERATORS_CONFIG_KEY, type OperatorRole } from './operator';
import { isLanguageCode, isTemplateName, type TemplateRef } from './whatsapp-template';

/**
 * The operational config keys an admin may edit, each with its validation. A value that does not
 * validate is refused whole, so the stored value is always one the runtime can use.
 */
export const AVAILABILITY_TTL_CONFIG_KEY = 'availability_ttl_hours';
export const HANDOFF_TEXTS_CONFIG_KEY = 'handoff_texts';
/** The handoff notice template `{ name, language }`, over the deployment's `messageTemplates.handoffNoticeTemplate`. */
export const HANDOFF_NOTICE_TEMPLATE_CONFIG_KEY = 'handoff_notice_template';

/** The handoff texts in force: each of the construct's `HandoffTexts`, set. */
export type HandoffTexts = Required<HandoffTextsProps>;

const HANDOFF_TEXT_FIELDS = Object.keys(DEFAULT_HANDOFF_TEXTS) as (keyof HandoffTexts)[];
const MAX_NAME_CHARS = 100;
const MAX_OPERATORS = 500;

/** The refusals of a setting's value, each with the facts its words need (see {@link Problem}). */
export type SettingProblem =
  | { readonly code: 'not_editable'; readonly field: string }
  | { readonly code: 'not_an_object'; readonly field: string }
  | { readonly code: 'out_of_range'; readonly field: string; readonly min: number; readonly max: number }
  | { readonly code: 'too_many'; readonly field: string; readonly max: number }
  | { readonly code: 'bad_phone'; readonly field: string }
  | { readonly code: 'unknown_field'; readonly field: string }
  | { readonly code: 'bad_role'; readonly field: string }
  | { readonly code: 'too_long'; readonly field: string; readonly max: number }
  | { readonly code: 'blank_or_too_long'; readonly field: string; readonly max: number }
  | { readonly code: 'link_not_last'; readonly field: string; readonly placeholder: string }
  | { readonly code: 'bad_template_ref'; readonly field: string }
  | { readonly code: 'bad_date'; readonly field: string };

export class InvalidConfigValueError extends PipelineError {
  override readonly name = 'InvalidConfigValueError';
  override readonly code = 'invalid_config_value';
  override readonly retryable = false;

  constructor(
    message: string,
    override readonly problem: SettingProblem,
  ) {
    super(message);
  }
}

/** The keys an admin may write, in the order the console lists them. */
export const EDITABLE_CONFIG_KEYS: readonly string[] = [OPERATORS_CONFIG_KEY, HANDOFF_TEXTS_CONFIG_KEY, HANDOFF_NOTICE_TEMPLATE_CONFIG_KEY, AVAILABILITY_TTL_CONFIG_KEY, MODEL_PRICES_CONFIG_KEY, META_RATES_CONFIG_KEY];

/**
 * The value to store for `key`, normalised (operators get `added_by`/`added_at` kept or set);
 * throws {@link InvalidConfigValueError} with what to change.
 */
export function validateConfigValue(key: string, value: unknown, context: { readonly author: string; readonly now: string; readonly previous?: unknown }): unknown {
  if (key === OPERATORS_CONFIG_KEY) return validateOperators(value, context);
  if (key === HANDOFF_TEXTS_CONFIG_KEY) return validateHandoffTexts(value);
  if (key === HANDOFF_NOTICE_TEMPLATE_CONFIG_KEY) return validateNoticeTemplate(value);
  // A price table set to null is cleared: the packaged prices apply again.
  if (key === MODEL_PRICES_CONFIG_KEY) return value === null ? null : validateModelPrices(value);
  if (key === META_RATES_CONFIG_KEY) return value === null ? null : validateMetaRates(value, context.now);
  if (key === AVAILABILITY_TTL_CONFIG_KEY) {
    const { min, max } = AVAILABILITY_TTL_BOUNDS;
    if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
      throw new InvalidConfigValueError(`${key} must be a whole number of hours from ${min} to ${max}`, { code: 'out_of_range', field: key, min, max });
    }
    return value;
  }
  throw new InvalidConfigValueError(`${key} is not an editable setting; use one of ${EDITABLE_CONFIG_KEYS.join(', ')}`, { code: 'not_editable', field: key });
}

function validateOperators(value: unknown, context: { readonly author: string; readonly now: string; readonly previous?: unknown }): Record<string, unknown> {
  if (!isPlainObject(value)) throw new InvalidConfigValueError('operators must be an object mapping phone → { role, name }', { code: 'not_an_object', field: OPERATORS_CONFIG_KEY });
  const entries = Object.entries(value);
  if (entries.length > MAX_OPERATORS) throw new InvalidConfigValueError(`operators may list at most ${MAX_OPERATORS} people`, { code: 'too_many', field: OPERATORS_CONFIG_KEY, max: MAX_OPERATORS });
  const previous = isPlainObject(context.previous) ? context.previous : {};
  const stored: Record<string, unknown> = {};
  for (const [phone, entry] of entries) {
    if (!isOperatorPhone(phone)) throw new InvalidConfigValueError(`operators: '${String(phone).slice(0, 20)}' is not a phone of 8 to 15 digits`, { code: 'bad_phone', field: String(phone).slice(0, 20) });
    if (!isPlainObject(entry)) throw new InvalidConfigValueError(`operators.${phone} must be an object { role, name }`, { code: 'not_an_object', field: `operators.${phone}` });
    const unknown = Object.keys(entry).filter((field) => field !== 'role' && field !== 'name');
    if (unknown.length > 0) throw new InvalidConfigValueError(`operators.${phone}: unknown field '${unknown[0].slice(0, 32)}' (use role and name)`, { code: 'unknown_field', field: `operators.${phone}.${unknown[0].slice(0, 32)}` });
    if (!OPERATOR_ROLES.includes(entry.role as OperatorRole)) throw new InvalidConfigValueError(`operators.${phone}.role must be 'operator' or 'admin'`, { code: 'bad_role', field: `operators.${phone}.role` });
    if (entry.name !== undefined && (typeof entry.name !== 'string' || entry.name.length > MAX_NAME_CHARS)) {
      throw new InvalidConfigValueError(`operators.${phone}.name must be text of at most ${MAX_NAME_CHARS} characters`, { code: 'too_long', field: `operators.${phone}.name`, max: MAX_NAME_CHARS });
    }
    const before = isPlainObject(previous[phone]) ? (previous[phone] as Record<string, unknown>) : undefined;
    stored[phone] = {
      role: entry.role,
      ...(entry.name === undefined ? {} : { name: entry.name }),
      added_by: typeof before?.added_by === 'string' ? before.added_by : context.author,
      added_at: typeof before?.added_at === 'string' ? before.added_at : context.now,
    };
  }
  return stored;
}

function validateHandoffTexts(value: unknown): Partial<HandoffTexts> {
  if (!isPlainObject(value)) throw new InvalidConfigValueError(`${HANDOFF_TEXTS_CONFIG_KEY} must be an object with any of ${HANDOFF_TEXT_FIELDS.join(', ')}`, { code: 'not_an_object', field: HANDOFF_TEXTS_CONFIG_KEY });
  for (const [field, text] of Object.entries(value)) {
    if (!HANDOFF_TEXT_FIELDS.includes(field as keyof HandoffTexts)) throw new InvalidConfigValueError(`${HANDOFF_TEXTS_CONFIG_KEY}: unknown text '${field.slice(0, 32)}'`, { code: 'unknown_field', field: `${HANDOFF_TEXTS_CONFIG_KEY}.${field.slice(0, 32)}` });
    if (typeof text !== 'string' || text.trim() === '' || text.length > HANDOFF_TEXT_MAX_CHARACTERS) {
      throw new InvalidConfigValueError(`${HANDOFF_TEXTS_CONFIG_KEY}.${field} must be non-blank text of at most ${HANDOFF_TEXT_MAX_CHARACTERS} characters`, {
        code: 'blank_or_too_long',
        field: `${HANDOFF_TEXTS_CONFIG_KEY}.${field}`,
        max: HANDOFF_TEXT_MAX_CHARACTERS,
      });
    }
    if (field === 'operatorNotification' && misplacesLink(text)) {
      throw new InvalidConfigValueError(`${HANDOFF_TEXTS_CONFIG_KEY}.${field}: the console link goes last; put ${LINK_PLACEHOLDER} at the end of the text, or leave it out`, {
        code: 'link_not_last',
        field: `${HANDOFF_TEXTS_CONFIG_KEY}.${field}`,
        placeholder: LINK_PLACEHOLDER,
      });
    }
  }
  return value as Partial<HandoffTexts>;
}

/** `{ "<model id or part of it>": { input, output } }`, US dollars per million tokens. */
function validateModelPrices(value: unknown): ModelPrices {
  const { maxModels, maxKeyLength, maxPrice } = MODEL_PRICE_LIMITS;
  if (!isPlainObject(value)) throw new InvalidConfigValueError(`${MODEL_PRICES_CONFIG_KEY} must be an object mapping a model id to { input, output }`, { code: 'not_an_object', field: MODEL_PRICES_CONFIG_KEY });
  const entries = Object.entries(value);
  if (entries.length > maxModels) throw new InvalidConfigValueError(`${MODEL_PRICES_CONFIG_KEY} may price at most ${maxModels} models`, { code: 'too_many', field: MODEL_PRICES_CONFIG_KEY, max: maxModels });
  const prices: Record<string, ModelPrice> = {};
  for (const [model, price] of entries) {
    if (model.trim() === '' || model.length > maxKeyLength) {
      throw new InvalidConfigValueError(`${MODEL_PRICES_CONFIG_KEY}: a model id has 1 to ${maxKeyLength} characters`, { code: 'blank_or_too_long', field: MODEL_PRICES_CONFIG_KEY, max: maxKeyLength });
    }
    const field = `${MODEL_PRICES_CONFIG_KEY}.${model.slice(0, 64)}`;
    if (!isPlainObject(price) || Object.keys(price).some((name) => name !== 'input' && name !== 'output')) {
      throw new InvalidConfigValueError(`${field} must be { "input": dollars, "output": dollars } per million tokens`, { code: 'not_an_object', field });
    }
    for (const side of ['input', 'output'] as const) {
      const amount = price[side];
      if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0 || amount > maxPrice) {
        throw new InvalidConfigValueError(`${field}.${side} must be US dollars per million tokens, from 0 to ${maxPrice}`, { code: 'out_of_range', field: `${field}.${side}`, min: 0, max: maxPrice });
      }
    }
    prices[model] = { input: price.input as number, output: price.output as number };
  }
  return prices;
}

/**
 * `{ "checkedOn": "YYYY-MM-DD", "rates": { "<market>": { "<category>": dollars } } }`: the day the
 * admin read Meta's rate card (not after today), and the rates read there, USD per message.
 */
function validateMetaRates(value: unknown, now: string): MetaRateCorrections {
  const field = META_RATES_CONFIG_KEY;
  if (!isPlainObject(value) || !isPlainObject(value.rates)) throw new InvalidConfigValueError(`${field} must be { "checkedOn": "YYYY-MM-DD", "rates": { market: { category: dollars } } }`, { code: 'not_an_object', field });
  const unknown = Object.keys(value).find((name) => name !== 'checkedOn' && name !== 'rates');
  if (unknown !== undefined) throw new InvalidConfigValueError(`${field}: unknown field '${unknown.slice(0, 32)}'`, { code: 'unknown_field', field: `${field}.${unknown.slice(0, 32)}` });
  const { checkedOn } = value;
  if (typeof checkedOn !== 'string' || !isCalendarDay(checkedOn) || checkedOn > now.slice(0, 10)) {
    throw new InvalidConfigValueError(`${field}.checkedOn must be the day Meta's rate card was read, YYYY-MM-DD, not after today`, { code: 'bad_date', field: `${field}.checkedOn` });
  }
  const markets = new Set(marketsOf().map((market) => market.market));
  for (const [market, rates] of Object.entries(value.rates)) {
    const place = `${field}.rates.${market.slice(0, 32)}`;
    if (!markets.has(market)) throw new InvalidConfigValueError(`${place}: not a market of the rate table (${[...markets].join(', ')})`, { code: 'unknown_field', field: place });
    if (!isPlainObject(rates)) throw new InvalidConfigValueError(`${place} must be { category: dollars }`, { code: 'not_an_object', field: place });
    for (const [category, rate] of Object.entries(rates)) {
      if (!isMetaRateCategory(category)) throw new InvalidConfigValueError(`${place}: unknown category '${category.slice(0, 32)}'`, { code: 'unknown_field', field: `${place}.${category.slice(0, 32)}` });
      if (!isMetaRate(rate)) {
        throw new InvalidConfigValueError(`${place}.${category} must be US dollars per message, from 0 to ${META_RATE_LIMITS.maxRate}`, { code: 'out_of_range', field: `${place}.${category}`, min: 0, max: META_RATE_LIMITS.maxRate });
      }
    }
  }
  return { checkedOn, rates: value.rates as MetaRateCorrections['rates'] };
}

/**
 * The shape of a template reference; whether it names a stored, approved template is the admin
 * use case's check (it reads the table).
 */
function validateNoticeTemplate(value: unknown): TemplateRef {
  const ref = isPlainObject(value) ? value : {};
  if (!isPlainObject(value) || Object.keys(value).some((field) => field !== 'name' && field !== 'language') || !isTemplateName(ref.name) || !isLanguageCode(ref.language)) {
    throw new InvalidConfigValueError(`${HANDOFF_NOTICE_TEMPLATE_CONFIG_KEY} must be { "name": "a_template_name", "language": "pt_BR" }, a template of the Templates screen`, {
      code: 'bad_template_ref',
      field: HANDOFF_NOTICE_TEMPLATE_CONFIG_KEY,
    });
  }
  return { name: ref.name, language: ref.language };
}

/** The notice template in force: the admin's setting over the deployment's. */
export function noticeTemplateFrom(stored: unknown, deployed?: TemplateRef): TemplateRef | undefined {
  return isPlainObject(stored) && isTemplateName(stored.name) && isLanguageCode(stored.language) ? { name: stored.name, language: stored.language } : deployed;
}

/** The texts in force: stored overrides over the deployment's texts. */
export function handoffTextsFrom(stored: unknown, deployed: HandoffTexts = DEFAULT_HANDOFF_TEXTS): HandoffTexts {
  if (!isPlainObject(stored)) return deployed;
  const texts: Record<string, string> = { ...deployed };
  for (const field of HANDOFF_TEXT_FIELDS) if (typeof stored[field] === 'string' && stored[field] !== '') texts[field] = stored[field] as string;
  return texts as unknown as HandoffTexts;
}

/** The availability TTL in force. */
export function availabilityTtlHoursFrom(stored: unknown): number {
  return Number.isInteger(stored) && (stored as number) >= AVAILABILITY_TTL_BOUNDS.min && (stored as number) <= AVAILABILITY_TTL_BOUNDS.max ? (stored as number) : DEFAULT_AVAILABILITY_TTL_HOURS;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
