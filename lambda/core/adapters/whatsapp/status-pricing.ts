import type { MetaPricing } from '../../domain/meta-fee';
import { isObject } from './webhook-json';

/** Meta's names of categories and pricing types: short lowercase words (`free_customer_service`). */
const PRICING_WORD = /^[a-z_]{1,40}$/;
const PRICING_MODEL = /^[A-Z]{1,10}$/;

/**
 * A status's `pricing {billable, category, type, pricing_model}`; undefined when there is none or it
 * has not that shape. A pricing object Meta changed is no reason to lose the status it came with:
 * the status is still recorded, without a fee.
 */
export function statusPricingOf(value: unknown): MetaPricing | undefined {
  if (!isObject(value) || typeof value.billable !== 'boolean' || typeof value.category !== 'string' || !PRICING_WORD.test(value.category)) return undefined;
  const type = typeof value.type === 'string' && PRICING_WORD.test(value.type) ? value.type : undefined;
  const pricingModel = typeof value.pricing_model === 'string' && PRICING_MODEL.test(value.pricing_model) ? value.pricing_model : undefined;
  return { billable: value.billable, category: value.category, ...(type !== undefined && { type }), ...(pricingModel !== undefined && { pricingModel }) };
}
