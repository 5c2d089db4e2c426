// The price table's form: the stored setting as rows, and the rows back into it, refused with the
// API's own problem codes and bounds (the console words both alike), plus a row of a model twice.
import { MODEL_PRICE_LIMITS } from '../../lib/contract/model-price-defaults';
import { priceRowsOf, priceTableValue } from '../../console/src/settings-schema';

const row = (model: string, input: string, output: string) => ({ model, input, output });

test('the stored prices become rows in model order; anything but an object none', () => {
  expect(priceRowsOf({ 'model-b': { input: 1, output: 2 }, 'model-a': { input: 0.25, output: 1.25 } })).toEqual([row('model-a', '0.25', '1.25'), row('model-b', '1', '2')]);
  expect(priceRowsOf(null)).toEqual([]);
  expect(priceRowsOf(['model-a'])).toEqual([]);
});

test('rows become the setting, a decimal comma read as a point and the model id trimmed', () => {
  expect(priceTableValue([row(' amazon.nova-micro ', '0,035', '0.14'), row('model-a', '3', '15')], MODEL_PRICE_LIMITS)).toEqual({
    value: { 'amazon.nova-micro': { input: 0.035, output: 0.14 }, 'model-a': { input: 3, output: 15 } },
  });
  expect(priceTableValue([], MODEL_PRICE_LIMITS)).toEqual({ value: {} });
});

test.each([
  [[row('model-a', '-1', '1')], { code: 'out_of_range', field: 'model_prices.model-a.input', min: 0, max: 1000 }],
  [[row('model-a', '1', '')], { code: 'out_of_range', field: 'model_prices.model-a.output', min: 0, max: 1000 }],
  [[row('model-a', '1', 'x')], { code: 'out_of_range', field: 'model_prices.model-a.output', min: 0, max: 1000 }],
  [[row('model-a', '1001', '1')], { code: 'out_of_range', field: 'model_prices.model-a.input', min: 0, max: 1000 }],
  [[row('  ', '1', '1')], { code: 'blank_or_too_long', field: 'model_prices', max: 200 }],
  [[row('m'.repeat(201), '1', '1')], { code: 'blank_or_too_long', field: 'model_prices', max: 200 }],
  [[row('model-a', '1', '1'), row('model-a ', '2', '2')], { code: 'duplicate', field: 'model_prices', model: 'model-a' }],
  [Array.from({ length: 51 }, (_, index) => row(`model-${index}`, '1', '1')), { code: 'too_many', field: 'model_prices', max: 50 }],
])('%j is refused as %j', (rows, problem) => {
  expect(priceTableValue(rows, MODEL_PRICE_LIMITS)).toEqual({ problem });
});
