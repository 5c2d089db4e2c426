/**
 * What Meta charges per delivered message, by the recipient's market and the message's pricing
 * category (docs/DESIGN.md#metas-fees). Imports nothing: the console may bundle it. Internal: not
 * part of the jsii API.
 *
 * Meta publishes its rate card (developers.facebook.com, WhatsApp Business Platform › Pricing) as
 * downloadable files per currency; they could not be read from where this table was written. The
 * figures below are USD list rates as solution providers republish the card, some of them not found
 * in a source at all: they are NOT verified against Meta's own file. Treat every fee priced from them
 * as an estimate, and check the card before relying on a number. Volume tiers (lower utility and
 * authentication rates at volume) and authentication-international rates are not modelled: a
 * category the table has no rate for is left unpriced rather than guessed.
 *
 * `service` is the market's utility rate: solution providers report that from 1 Oct 2026 Meta bills
 * service messages (free-form replies in the 24-hour window) at it; a status Meta marks free
 * (`free_customer_service`, `free_entry_point`, or `billable: false`) costs nothing whatever this says.
 */

/** Meta's pricing categories the table has rates for (`pricing.category` of a status). */
export const META_RATE_CATEGORIES = ['marketing', 'utility', 'authentication', 'service'] as const;
export type MetaRateCategory = (typeof META_RATE_CATEGORIES)[number];

/** USD per delivered message, per category. */
export type MetaCategoryRates = Readonly<Record<MetaRateCategory, number>>;

/** A market of Meta's rate card: the countries whose calling codes it prices. */
export interface MetaMarket {
  readonly market: string;
  /** Country calling codes without `+` (`1`, `55`); the longest one a phone starts with wins. */
  readonly callingCodes: readonly string[];
  readonly rates: MetaCategoryRates;
}

export interface MetaRateTable {
  /** When the figures were written down (ISO date); see the file's comment for how far they are verified. */
  readonly checkedOn: string;
  readonly currency: 'USD';
  readonly markets: readonly MetaMarket[];
  /** Every calling code no market names, and customers known only by their business-scoped user id. */
  readonly restOfWorld: MetaMarket;
}

export const META_MESSAGE_RATES: MetaRateTable = {
  checkedOn: '2026-12-07',
  currency: 'USD',
  markets: [
    { market: 'north-america', callingCodes: ['1'], rates: { marketing: 0.025, utility: 0.0034, authentication: 0.0034, service: 0.0034 } },
    { market: 'brazil', callingCodes: ['55'], rates: { marketing: 0.0625, utility: 0.0068, authentication: 0.0068, service: 0.0068 } },
    { market: 'india', callingCodes: ['91'], rates: { marketing: 0.0118, utility: 0.0014, authentication: 0.0014, service: 0.0014 } },
  ],
  restOfWorld: { market: 'rest-of-world', callingCodes: [], rates: { marketing: 0.0604, utility: 0.0077, authentication: 0.0077, service: 0.0077 } },
};

/** The market of a customer: the one whose calling code is the longest prefix of their phone; rest of world otherwise. */
export function marketOf(customerId: string, table: MetaRateTable = META_MESSAGE_RATES): MetaMarket {
  if (!/^\d+$/.test(customerId)) return table.restOfWorld;
  let found: MetaMarket | undefined;
  let foundLength = 0;
  for (const market of table.markets) {
    for (const code of market.callingCodes) {
      if (code.length > foundLength && customerId.startsWith(code)) {
        found = market;
        foundLength = code.length;
      }
    }
  }
  return found ?? table.restOfWorld;
}

export function isMetaRateCategory(category: string): category is MetaRateCategory {
  return (META_RATE_CATEGORIES as readonly string[]).includes(category);
}

/** The admin's corrections of the rate table: the setting's key (the Configuration screen). */
export const META_RATES_CONFIG_KEY = 'meta_rates';

/** The highest rate the setting takes, in USD per message (Meta's dearest marketing rate is a fraction of it). */
export const META_RATE_LIMITS = { maxRate: 1 } as const;

/**
 * The admin's `meta_rates`: the day they checked Meta's rate card, and the rates they read there, by
 * market (`brazil`, `rest-of-world`, …) and category. A rate left out keeps the packaged one.
 */
export interface MetaRateCorrections {
  readonly checkedOn: string;
  readonly rates: Readonly<Record<string, Partial<MetaCategoryRates>>>;
}

/** Every market of `table`, the rest of the world last. */
export function marketsOf(table: MetaRateTable = META_MESSAGE_RATES): readonly MetaMarket[] {
  return [...table.markets, table.restOfWorld];
}

/**
 * The rate table in force: the packaged one with the admin's stored corrections over it. What is not
 * a correction of a known market and category at a rate in bounds is ignored (the API refuses such a
 * value on write; this reads what is stored, whatever wrote it).
 */
export function metaRateTableFrom(stored: unknown, table: MetaRateTable = META_MESSAGE_RATES): MetaRateTable {
  if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) return table;
  const { checkedOn, rates } = stored as Partial<Record<keyof MetaRateCorrections, unknown>>;
  if (typeof checkedOn !== 'string' || rates === null || typeof rates !== 'object') return table;
  const corrected = (market: MetaMarket): MetaMarket => {
    const given = (rates as Record<string, unknown>)[market.market];
    if (given === null || typeof given !== 'object') return market;
    const valid = Object.entries(given).filter(([category, rate]) => isMetaRateCategory(category) && isMetaRate(rate));
    return { ...market, rates: { ...market.rates, ...Object.fromEntries(valid) } };
  };
  return { ...table, checkedOn, markets: table.markets.map(corrected), restOfWorld: corrected(table.restOfWorld) };
}

/** A rate the setting takes: US dollars per message, from 0 to {@link META_RATE_LIMITS}`.maxRate`. */
export function isMetaRate(rate: unknown): rate is number {
  return typeof rate === 'number' && Number.isFinite(rate) && rate >= 0 && rate <= META_RATE_LIMITS.maxRate;
}
