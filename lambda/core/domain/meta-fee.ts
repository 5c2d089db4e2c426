import { isMetaRateCategory, marketOf, META_MESSAGE_RATES, type MetaRateTable } from '../../../lib/contract/meta-message-rates';

/**
 * The `pricing` object of a status of Meta's (docs/DESIGN.md#metas-fees): how Meta bills the
 * message. Recorded as Meta says it, so a fee can be priced again with another rate table.
 */
export interface MetaPricing {
  readonly billable: boolean;
  /** `marketing`, `utility`, `authentication`, `service`, or another of Meta's (`authentication_international`, …). */
  readonly category: string;
  /** `regular`, `free_customer_service` or `free_entry_point`; absent from older webhook versions. */
  readonly type?: string;
  /** `PMP` (per message), or `CBP` inside a free entry point conversation. */
  readonly pricingModel?: string;
}

/** What a message costs at the table's rates. */
export interface MetaFee {
  readonly category: string;
  /** The rate card market the customer's calling code falls in. */
  readonly market: string;
  /** USD; 0 for a free message; absent when the table has no rate for the category (left unpriced, never guessed). */
  readonly usd?: number;
}

/** Free whatever the category: Meta says so (`billable: false`), or the message fell in a free window. */
export function isFreeMessage(pricing: MetaPricing): boolean {
  return !pricing.billable || pricing.type?.startsWith('free_') === true;
}

/** The fee of a message Meta reported `pricing` for, sent to `customerId`. */
export function metaFeeOf(pricing: MetaPricing, customerId: string, table: MetaRateTable = META_MESSAGE_RATES): MetaFee {
  const market = marketOf(customerId, table);
  const fee = { category: pricing.category, market: market.market };
  if (isFreeMessage(pricing)) return { ...fee, usd: 0 };
  return isMetaRateCategory(pricing.category) ? { ...fee, usd: market.rates[pricing.category] } : fee;
}
