import { META_MESSAGE_RATES, marketOf, type MetaRateTable } from '../../../lib/contract/meta-message-rates';
import { metaFeeOf, type MetaPricing } from '../../../lambda/core/domain/meta-fee';

const billed = (category: string): MetaPricing => ({ billable: true, category, type: 'regular', pricingModel: 'PMP' });

const table: MetaRateTable = {
  checkedOn: '2026-12-07',
  currency: 'USD',
  markets: [
    { market: 'north-america', callingCodes: ['1'], rates: { marketing: 0.02, utility: 0.003, authentication: 0.004, service: 0.005 } },
    { market: 'caribbean', callingCodes: ['1876'], rates: { marketing: 0.1, utility: 0.01, authentication: 0.01, service: 0.01 } },
  ],
  restOfWorld: { market: 'rest-of-world', callingCodes: [], rates: { marketing: 0.06, utility: 0.007, authentication: 0.008, service: 0.009 } },
};

describe('the market of a customer', () => {
  test('is the longest calling code their phone starts with', () => {
    expect(marketOf('15551234567', table).market).toBe('north-america');
    expect(marketOf('18765551234', table).market).toBe('caribbean');
  });

  test('is the rest of the world for a code no market names, and for a customer known only by user id', () => {
    expect(marketOf('447700900123', table).market).toBe('rest-of-world');
    expect(marketOf('US.13491208655302741918', table).market).toBe('rest-of-world');
  });
});

describe('the fee of a message', () => {
  test('is the rate of the market and category', () => {
    expect(metaFeeOf(billed('marketing'), '15551234567', table)).toEqual({ category: 'marketing', market: 'north-america', usd: 0.02 });
    expect(metaFeeOf(billed('authentication'), '18765551234', table)).toEqual({ category: 'authentication', market: 'caribbean', usd: 0.01 });
    expect(metaFeeOf(billed('service'), '447700900123', table)).toEqual({ category: 'service', market: 'rest-of-world', usd: 0.009 });
  });

  test('is nothing when Meta does not bill it or it fell in a free window', () => {
    expect(metaFeeOf({ ...billed('service'), billable: false }, '15551234567', table).usd).toBe(0);
    expect(metaFeeOf({ ...billed('utility'), type: 'free_customer_service' }, '15551234567', table).usd).toBe(0);
    expect(metaFeeOf({ ...billed('marketing'), type: 'free_entry_point' }, '15551234567', table).usd).toBe(0);
  });

  test('is left unpriced for a category the table has no rate for', () => {
    expect(metaFeeOf(billed('authentication_international'), '15551234567', table)).toEqual({ category: 'authentication_international', market: 'north-america' });
  });

  test('is priced from the documented table by default', () => {
    expect(metaFeeOf(billed('utility'), '5511988887777').usd).toBe(META_MESSAGE_RATES.markets.find((market) => market.market === 'brazil')?.rates.utility);
  });
});
