// Meta's rates form: the stored corrections as a field per market and category (empty where the
// packaged rate applies), and the fields back into the setting, refused with the API's own codes.
import { marketsOf, META_RATE_CATEGORIES, metaRateTableFrom, META_MESSAGE_RATES } from '../../lib/contract/meta-message-rates';
import { metaRatesValue, rateFieldsOf, type RateFields } from '../../console/src/settings-schema';

const withRate = (fields: RateFields, market: string, category: string, text: string): RateFields => ({ ...fields, rates: { ...fields.rates, [market]: { ...fields.rates[market], [category]: text } } });

test('every market and category has a field, filled where the admin corrected the rate', () => {
  const fields = rateFieldsOf({ checkedOn: '2026-12-01', rates: { brazil: { service: 0.0055 } } });
  expect(Object.keys(fields.rates)).toEqual(marketsOf().map(({ market }) => market));
  for (const categories of Object.values(fields.rates)) expect(Object.keys(categories)).toEqual([...META_RATE_CATEGORIES]);
  expect(fields.checkedOn).toBe('2026-12-01');
  expect(fields.rates.brazil).toEqual({ marketing: '', utility: '', authentication: '', service: '0.0055' });
  expect(rateFieldsOf(null)).toEqual({ ...rateFieldsOf({ checkedOn: '', rates: {} }), checkedOn: '' });
});

test('the fields become the setting, a decimal comma read as a point; no rate given clears it', () => {
  const fields = withRate(withRate({ ...rateFieldsOf(null), checkedOn: '2026-12-01' }, 'brazil', 'service', '0,0055'), 'rest-of-world', 'marketing', '0.06');
  expect(metaRatesValue(fields)).toEqual({ value: { checkedOn: '2026-12-01', rates: { brazil: { service: 0.0055 }, 'rest-of-world': { marketing: 0.06 } } } });
  expect(metaRatesValue({ ...rateFieldsOf(null), checkedOn: '2026-12-01' })).toEqual({ value: null });
});

test.each([
  ['a rate above the bound', withRate({ ...rateFieldsOf(null), checkedOn: '2026-12-01' }, 'india', 'utility', '2'), { code: 'out_of_range', field: 'meta_rates.rates.india.utility', min: 0, max: 1 }],
  ['a rate that is not a number', withRate({ ...rateFieldsOf(null), checkedOn: '2026-12-01' }, 'india', 'utility', 'abc'), { code: 'out_of_range', field: 'meta_rates.rates.india.utility', min: 0, max: 1 }],
  ['rates without the day the card was read', withRate(rateFieldsOf(null), 'india', 'utility', '0.001'), { code: 'bad_date', field: 'meta_rates.checkedOn' }],
])('%s is refused as the API would', (_, fields, problem) => {
  expect(metaRatesValue(fields)).toEqual({ problem });
});

test('what is stored outside the bounds is ignored when the table is read: the packaged rate stays', () => {
  const table = metaRateTableFrom({ checkedOn: '2026-12-01', rates: { brazil: { service: 5, utility: 0.006 }, mars: { service: 0.1 } } });
  const brazil = table.markets.find(({ market }) => market === 'brazil')!;
  const packagedBrazil = META_MESSAGE_RATES.markets.find(({ market }) => market === 'brazil')!;
  expect(brazil.rates).toEqual({ ...packagedBrazil.rates, utility: 0.006 });
  expect(table.checkedOn).toBe('2026-12-01');
  expect(metaRateTableFrom('nonsense')).toBe(META_MESSAGE_RATES);
});
