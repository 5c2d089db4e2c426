import { agentTools, parseAgentAction, validateAgainstSchema, type JsonSchema } from '../../../../lambda/core/adapters/agent/agent-actions';

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

describe('what the agent learns', () => {
  it('accepts the registration fields it knows, each within its bounds', () => {
    const data = { name: 'Ana Souza', email: 'ana@exemplo.com', document_id: '123.456.789-09', company: 'Clínica Boa Saúde', city: 'Campinas' };

    expect(parseAgentAction('update_cadastral_data', { data })).toEqual({ ok: true, action: { type: 'update_cadastral_data', data } });
  });

  it.each([
    [{ data: {} }, 'data needs at least 1 entries'],
    [{ data: { phone: '5511' } }, 'data.phone is not allowed'],
    [{ data: { email: 'not an address' } }, 'data.email must match'],
    [{ data: { document_id: '12' } }, 'data.document_id must match'],
    [{ data: { document_id: '1234; DROP' } }, 'data.document_id must match'],
    [{ data: { name: 'x'.repeat(121) } }, 'data.name must be at most 120 characters'],
    [{ data: { city: '  ' } }, 'data.city must not be empty'],
    [{ data: { name: 7 } }, 'data.name must be a string'],
  ])('refuses registration data %j', (input, problem) => {
    const parsed = parseAgentAction('update_cadastral_data', input);

    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? [] : parsed.problems.join('; ')).toContain(problem);
  });

  it('takes a segment and an intent of at most 100 characters', () => {
    expect(parseAgentAction('set_segment', { segment: 'clínica' })).toEqual({ ok: true, action: { type: 'set_segment', segment: 'clínica' } });
    expect(parseAgentAction('set_intent', { intent: 'orçamento' })).toEqual({ ok: true, action: { type: 'set_intent', intent: 'orçamento' } });
    expect(parseAgentAction('set_segment', { segment: 'x'.repeat(101) })).toEqual({ ok: false, problems: ['segment must be at most 100 characters'] });
    expect(parseAgentAction('set_intent', { intent: '' })).toEqual({ ok: false, problems: ['intent must not be empty'] });
  });
});

describe('handover between stages', () => {
  const tools = agentTools(['cadastro', 'pos-venda']);

  it('is a tool only with stages, naming the other stages and nothing else', () => {
    expect(agentTools().map((tool) => tool.name)).not.toContain('handover_to_agent');
    expect(parseAgentAction('handover_to_agent', { agent: 'cadastro', reason: 'dados' })).toMatchObject({ ok: false, problems: [expect.stringContaining('unknown action "handover_to_agent"')] });

    expect(parseAgentAction('handover_to_agent', { agent: 'pos-venda', reason: 'pedido fechado' }, tools)).toEqual({
      ok: true,
      action: { type: 'handover_to_agent', agent: 'pos-venda', reason: 'pedido fechado' },
    });
    for (const agent of ['qualificacao', 'cadastro2', 'cadastro|pos-venda', 'CADASTRO', '']) {
      expect(parseAgentAction('handover_to_agent', { agent, reason: 'x' }, tools).ok).toBe(false);
    }
    expect(parseAgentAction('handover_to_agent', { agent: 'cadastro' }, tools)).toEqual({ ok: false, problems: ['reason is required'] });
  });
});
