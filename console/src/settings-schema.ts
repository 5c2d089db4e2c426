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
  | { readonly kind: 'prices'; readonly key: 'model_prices'; readonly heading: MessageKey; readonly help: MessageKey; readonly limits: PriceLimits };

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
];

/** The facts a form's help text names (its bounds). */
export function helpFactsOf(form: SettingForm): Record<string, number> {
  if (form.kind === 'hours') return { min: form.min, max: form.max, byDefault: form.byDefault };
  if (form.kind === 'texts') return { max: form.maxLength };
  if (form.kind === 'prices') return { max: form.limits.maxModels, maxPrice: form.limits.maxPrice };
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
