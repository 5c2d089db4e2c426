import { parseAgentAction, validateAgainstSchema, type JsonSchema } from '../../../../lambda/core/adapters/agent/agent-actions';

/** Tool inputs arrive as JSON: keys such as `__proto__` are own properties there, as here. */
const fromJson = (text: string): unknown => JSON.parse(text) as unknown;

describe('tool inputs are validated by their own properties only', () => {
  it.each([
    { key: 'toString', input: '{"requestedService":"x","toString":{"a":1}}' },
    { key: 'constructor', input: '{"requestedService":"x","constructor":{}}' },
    { key: '__proto__', input: '{"requestedService":"x","__proto__":{"notes":"y"}}' },
    { key: 'hasOwnProperty', input: '{"requestedService":"x","hasOwnProperty":"y"}' },
  ])('refuses an inherited name ($key) under additionalProperties: false, without throwing', ({ key, input }) => {
    const parsed = parseAgentAction('record_out_of_portfolio_demand', fromJson(input));

    expect(parsed).toEqual({ ok: false, problems: [`${key} is not allowed`] });
  });

  it('does not take an inherited value for a required property', () => {
    const input = Object.create({ reason: 'inherited' }) as object;

    expect(parseAgentAction('close_session', input)).toEqual({ ok: false, problems: ['reason is required'] });
  });

  it('does not resolve an action type through the prototype', () => {
    expect(parseAgentAction('constructor', {})).toMatchObject({ ok: false });
  });

  it.each(['__proto__', 'constructor', 'toString', 'Sample Type', 'a'.repeat(41), ''])(
    'refuses the qualification key %p',
    (key) => {
      const parsed = parseAgentAction('update_qualification', fromJson(JSON.stringify({ data: { [key]: 'v' } })));

      expect(parsed.ok).toBe(false);
    },
  );

  it('accepts snake_case qualification keys and keeps only own properties in the action', () => {
    const parsed = parseAgentAction('update_qualification', fromJson('{"data":{"sample_type":"saliva","sample_count":"12"}}'));

    expect(parsed).toEqual({ ok: true, action: { type: 'update_qualification', data: { sample_type: 'saliva', sample_count: '12' } } });
  });

  it('reports a schema node it does not know as a problem instead of treating it as an object', () => {
    const unknownNode = { type: 'number' } as unknown as JsonSchema;

    expect(validateAgainstSchema(unknownNode, 3)).toEqual(['the input has a schema the validator does not support']);
  });
});
