import { isMetaRate, marketsOf, META_RATE_CATEGORIES, META_RATE_LIMITS, META_RATES_CONFIG_KEY, type MetaRateCategory, type MetaRateCorrections } from '../../lib/contract/meta-message-rates';
import { MODEL_PRICE_LIMITS, type ModelPrice } from '../../lib/contract/model-price-defaults';
import type { ApiProblem } from '../../lib/contract/operator-api';
import { AVAILABILITY_TTL_BOUNDS, HANDOFF_TEXT_MAX_CHARACTERS, HANDOFF_TEXT_NAMES } from '../../lib/contract/operator-setting-limits';
import type { MessageKey } from './i18n';

/**
 * The settings an admin edits on the Configuration screen, each as the form it needs: its type,
 * its bounds (the same the API checks) and its words. Operators have their own screen.
 */
export type SettingForm =
  | { readonly kind: 'hours'; readonly key: 'availability_ttl_hours'; readonly heading: MessageKey; readonly help: MessageKey; readonly label: MessageKey; readonly min: number; readonly max: number; readonly byDefault: number }
  | { readonly kind: 'texts'; readonly key: 'handoff_texts'; readonly heading: MessageKey; readonly help: MessageKey; readonly fields: readonly HandoffTextField[]; readonly maxLength: number }
  | { readonly kind: 'template'; readonly key: 'handoff_notice_template'; readonly heading: MessageKey; readonly help: MessageKey; readonly label: MessageKey }
  | { readonly kind: 'prices'; readonly key: 'model_prices'; readonly heading: MessageKey; readonly help: MessageKey; readonly limits: PriceLimits }
  | { readonly kind: 'rates'; readonly key: typeof META_RATES_CONFIG_KEY; readonly heading: MessageKey; readonly help: MessageKey };

export type PriceLimits = typeof MODEL_PRICE_LIMITS;

export type HandoffTextName = (typeof HANDOFF_TEXT_NAMES)[number];

export interface HandoffTextField {
  readonly name: HandoffTextName;
  readonly label: MessageKey;
}

export const SETTING_FORMS: readonly SettingForm[] = [
  {
    kind: 'texts',
    key: 'handoff_texts',
    heading: 'config.texts.heading',
    help: 'config.texts.help',
    maxLength: HANDOFF_TEXT_MAX_CHARACTERS,
    fields: [
      { name: 'noOperatorAvailable', label: 'config.texts.noOperatorAvailable' },
      { name: 'customerRenotify', label: 'config.texts.customerRenotify' },
      { name: 'fallback', label: 'config.texts.fallback' },
      { name: 'operatorNotification', label: 'config.texts.operatorNotification' },
    ],
  },
  { kind: 'template', key: 'handoff_notice_template', heading: 'config.template.heading', help: 'config.template.help', label: 'config.template.label' },
  {
    kind: 'hours',
    key: 'availability_ttl_hours',
    heading: 'config.ttl.heading',
    help: 'config.ttl.help',
    label: 'config.ttl.label',
    ...AVAILABILITY_TTL_BOUNDS,
  },
  { kind: 'prices', key: 'model_prices', heading: 'config.prices.heading', help: 'config.prices.help', limits: MODEL_PRICE_LIMITS },
  { kind: 'rates', key: META_RATES_CONFIG_KEY, heading: 'config.rates.heading', help: 'config.rates.help' },
];

/** The facts a form's help text names (its bounds). */
export function helpFactsOf(form: SettingForm): Record<string, number> {
  if (form.kind === 'hours') return { min: form.min, max: form.max, byDefault: form.byDefault };
  if (form.kind === 'texts') return { max: form.maxLength };
  if (form.kind === 'prices') return { max: form.limits.maxModels, maxPrice: form.limits.maxPrice };
  if (form.kind === 'rates') return { maxRate: META_RATE_LIMITS.maxRate };
  return {};
}

/** The stored `handoff_texts` as the form's fields: a text left out shows empty (the deployment's text applies). */
export function handoffTextsOf(value: unknown): Record<HandoffTextName, string> {
  const stored = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  return Object.fromEntries(HANDOFF_TEXT_NAMES.map((name) => [name, typeof stored[name] === 'string' ? stored[name] : ''])) as Record<HandoffTextName, string>;
}

/** The form's texts back into the setting: an empty field leaves the deployment's text in force. */
export function handoffTextsValue(texts: Readonly<Record<HandoffTextName, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(texts).filter(([, text]) => text.trim() !== ''));
}

/** One model of the price table as typed: the prices are the fields' text until the form is saved. */
export interface PriceRow {
  readonly model: string;
  readonly input: string;
  readonly output: string;
}

/** The stored `model_prices` (US dollars per million tokens) as the form's rows, in model order. */
export function priceRowsOf(value: unknown): PriceRow[] {
  const stored = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, Partial<ModelPrice>>) : {};
  return Object.entries(stored)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([model, price]) => ({ model, input: String(price?.input ?? ''), output: String(price?.output ?? '') }));
}

/**
 * The rows back into the setting, checked with the bounds the API checks: the first refusal comes
 * as the API's problem would (same code and facts), so the console words both alike. Two rows of
 * one model are refused here (the stored object cannot hold them).
 */
export function priceTableValue(rows: readonly PriceRow[], limits: PriceLimits): { readonly value: Record<string, ModelPrice> } | { readonly problem: ApiProblem } {
  const field = 'model_prices';
  if (rows.length > limits.maxModels) return { problem: { code: 'too_many', field, max: limits.maxModels } };
  const value: Record<string, ModelPrice> = {};
  for (const row of rows) {
    const model = row.model.trim();
    if (model === '' || model.length > limits.maxKeyLength) return { problem: { code: 'blank_or_too_long', field, max: limits.maxKeyLength } };
    if (Object.hasOwn(value, model)) return { problem: { code: 'duplicate', field, model } };
    const [input, output] = [row.input, row.output].map((text) => (text.trim() === '' ? NaN : Number(text.trim().replace(',', '.'))));
    for (const [side, amount] of [['input', input], ['output', output]] as const) {
      if (!Number.isFinite(amount) || amount < 0 || amount > limits.maxPrice) return { problem: { code: 'out_of_range', field: `${field}.${model}.${side}`, min: 0, max: limits.maxPrice } };
    }
    value[model] = { input, output };
  }
  return { value };
}

/** The rate table's corrections as typed: the day Meta's card was read, and a field per market and category (empty: the packaged rate). */
export interface RateFields {
  readonly checkedOn: string;
  readonly rates: Readonly<Record<string, Readonly<Record<MetaRateCategory, string>>>>;
}

/** The stored `meta_rates` as the form's fields, every market of the table and every category. */
export function rateFieldsOf(value: unknown): RateFields {
  const stored = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Partial<MetaRateCorrections>) : {};
  const rates = Object.fromEntries(
    marketsOf().map(({ market }) => {
      const given: Partial<Record<string, unknown>> = stored.rates?.[market] ?? {};
      return [market, Object.fromEntries(META_RATE_CATEGORIES.map((category) => [category, typeof given[category] === 'number' ? String(given[category]) : ''])) as Record<MetaRateCategory, string>];
    }),
  );
  return { checkedOn: typeof stored.checkedOn === 'string' ? stored.checkedOn : '', rates };
}

/**
 * The fields back into the setting, checked with the bounds the API checks and refused as it would
 * refuse them; null (the packaged table alone) when no rate is given. The date is the browser's
 * check only of being given: the API refuses one after its today.
 */
export function metaRatesValue(fields: RateFields): { readonly value: MetaRateCorrections | null } | { readonly problem: ApiProblem } {
  const rates: Record<string, Partial<Record<MetaRateCategory, number>>> = {};
  for (const [market, categories] of Object.entries(fields.rates)) {
    for (const category of META_RATE_CATEGORIES) {
      const text = categories[category].trim();
      if (text === '') continue;
      const rate = Number(text.replace(',', '.'));
      if (!isMetaRate(rate)) return { problem: { code: 'out_of_range', field: `${META_RATES_CONFIG_KEY}.rates.${market}.${category}`, min: 0, max: META_RATE_LIMITS.maxRate } };
      rates[market] = { ...rates[market], [category]: rate };
    }
  }
  if (Object.keys(rates).length === 0) return { value: null };
  if (!/^\d{4}-\d{2}-\d{2}$/.test(fields.checkedOn)) return { problem: { code: 'bad_date', field: `${META_RATES_CONFIG_KEY}.checkedOn` } };
  return { value: { checkedOn: fields.checkedOn, rates } };
}
