import { ScriptedAgent, ScriptedAgentFailure } from '../../../../lambda/core/adapters/agent/scripted-agent';
import type { AgentRequest, ConversationEntry } from '../../../../lambda/core/ports/agent';

const at = '2026-11-30T12:00:00.000Z';
const customer = (text: string): ConversationEntry => ({ role: 'customer', text, at });
const assistant = (text: string): ConversationEntry => ({ role: 'assistant', text, at });

function requestWith(...history: ConversationEntry[]): AgentRequest {
  return {
    systemPrompt: 'prompt',
    history,
    session: { sessionId: 'session-1', customerId: '5511987654321', state: 'QUALIFYING', qualificationData: {} },
    deadline: Date.now() + 60_000,
    maxIterations: 10,
  };
}

describe('replies', () => {
  it('echoes the messages of the turn with the count of customer messages', async () => {
    const request = requestWith(customer('Oi'), assistant('Olá! Recebi: Oi (mensagem 1)'), customer('Quanto custa?'), customer('E o prazo?'));

    await expect(new ScriptedAgent().respond(request)).resolves.toEqual({
      reply: 'Olá! Recebi: Quanto custa? | E o prazo? (mensagem 3)',
      actions: [],
      iterations: 1,
      stopReason: 'completed',
    });
  });

  it('is deterministic: the same history gives the same answer', async () => {
    const agent = new ScriptedAgent();
    const request = requestWith(customer('Oi #dado amostra=saliva #humano'));

    expect(await agent.respond(request)).toEqual(await new ScriptedAgent().respond(structuredClone(request)));
  });

  it('refuses a history without customer messages to answer', async () => {
    await expect(new ScriptedAgent().respond(requestWith(customer('Oi'), assistant('Olá!')))).rejects.toThrow(RangeError);
  });
});

describe('keywords', () => {
  it.each([
    { text: 'Quero uma pessoa #humano', actions: [{ type: 'request_human_handoff', reason: 'O cliente pediu atendimento humano (#humano)' }] },
    { text: 'Obrigado, #fim', actions: [{ type: 'close_session', reason: 'O cliente encerrou a conversa (#fim)' }] },
    {
      text: 'Vocês fazem #fora teste de paternidade ou #fora ancestralidade?',
      actions: [
        { type: 'record_out_of_portfolio_demand', requestedService: 'teste de paternidade ou' },
        { type: 'record_out_of_portfolio_demand', requestedService: 'ancestralidade?' },
      ],
    },
    {
      text: '#dado tipo_amostra=saliva fresca #dado quantidade=12',
      actions: [{ type: 'update_qualification', data: { tipo_amostra: 'saliva fresca', quantidade: '12' } }],
    },
    { text: 'Só uma pergunta sobre #hashtags', actions: [] },
    {
      text: 'Sou #cadastro nome=Ana Souza #cadastro email=ana@exemplo.com #cadastro cpf=123 #segmento clínica #intencao orçamento',
      actions: [
        { type: 'update_cadastral_data', data: { name: 'Ana Souza', email: 'ana@exemplo.com' } },
        { type: 'set_segment', segment: 'clínica' },
        { type: 'set_intent', intent: 'orçamento' },
      ],
    },
    // Without stages there is nobody to hand over to.
    { text: 'Quero me cadastrar #passar cadastro', actions: [] },
  ])('"$text" gives its actions', async ({ text, actions }) => {
    const response = await new ScriptedAgent().respond(requestWith(customer(text)));

    expect(response.actions).toEqual(actions);
  });

  it('reads keywords across all messages of the turn, in a fixed action order', async () => {
    const response = await new ScriptedAgent().respond(requestWith(customer('#fim'), customer('#humano'), customer('#dado a=1'), customer('#fora exoma')));

    expect(response.actions.map((action) => action.type)).toEqual([
      'record_out_of_portfolio_demand',
      'update_qualification',
      'request_human_handoff',
      'close_session',
    ]);
  });

  it('ignores keywords of earlier, already answered turns', async () => {
    const response = await new ScriptedAgent().respond(requestWith(customer('#humano'), assistant('Ok'), customer('Voltei')));

    expect(response.actions).toEqual([]);
  });

  it('fails on #falha, every time', async () => {
    const agent = new ScriptedAgent();
    const request = requestWith(customer('isso vai dar #falha'));

    await expect(agent.respond(request)).rejects.toThrow(ScriptedAgentFailure);
    await expect(agent.respond(request)).rejects.toThrow(ScriptedAgentFailure);
  });
});

describe('choices', () => {
  it.each([
    ['#botoes Sim | Não', { kind: 'buttons', buttons: [{ id: 'opcao-1', title: 'Sim' }, { id: 'opcao-2', title: 'Não' }] }],
    ['#lista Hemograma | TSH', { kind: 'list', button: 'Ver opções', sections: [{ rows: [{ id: 'opcao-1', title: 'Hemograma' }, { id: 'opcao-2', title: 'TSH' }] }] }],
    ['#link Acompanhar https://example.com/p/1', { kind: 'cta_url', displayText: 'Acompanhar', url: 'https://example.com/p/1' }],
  ])('%s offers them under the reply', async (text, interactive) => {
    const response = await new ScriptedAgent().respond(requestWith(customer(`Qual? ${text}`)));
    expect(response.interactive).toEqual(interactive);
    expect(response.reply).toContain('Qual?');
  });

  it('offers none without a keyword', async () => {
    expect((await new ScriptedAgent().respond(requestWith(customer('Oi')))).interactive).toBeUndefined();
  });
});

describe('as a stage', () => {
  it('opens its replies with its name and hands over only to the stages it knows, the first one named', async () => {
    const agent = new ScriptedAgent({ stage: 'qualificacao', handoverTargets: ['cadastro', 'vendas'] });

    const response = await agent.respond(requestWith(customer('Vamos #passar qualificacao #passar suporte #passar vendas #passar cadastro')));

    expect(response.reply).toBe('[qualificacao] Olá! Recebi: Vamos #passar qualificacao #passar suporte #passar vendas #passar cadastro (mensagem 1)');
    expect(response.actions).toEqual([{ type: 'handover_to_agent', agent: 'vendas', reason: 'O cliente pediu a etapa vendas (#passar)' }]);
  });
});

describe('hooks for timing and failure', () => {
  it('holds the answer until the test releases it, keeping every request it saw', async () => {
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const agent = new ScriptedAgent({ respondAfter: (_request, call) => (call === 1 ? held : Promise.resolve()) });

    let firstSettled = false;
    const first = agent.respond(requestWith(customer('A'))).then((response) => ((firstSettled = true), response));
    const second = await agent.respond(requestWith(customer('A'), customer('B')));
    await Promise.resolve();

    expect(firstSettled).toBe(false);
    expect(second.reply).toBe('Olá! Recebi: A | B (mensagem 2)');
    release();
    expect((await first).reply).toBe('Olá! Recebi: A (mensagem 1)');
    expect(agent.requests.map((request) => request.history.length)).toEqual([1, 2]);
  });

  it('throws the injected error for the chosen calls only', async () => {
    const agent = new ScriptedAgent({ failWhen: (_request, call) => (call <= 2 ? new Error(`outage ${call}`) : undefined) });
    const request = requestWith(customer('Oi'));

    await expect(agent.respond(request)).rejects.toThrow('outage 1');
    await expect(agent.respond(request)).rejects.toThrow('outage 2');
    await expect(agent.respond(request)).resolves.toMatchObject({ reply: 'Olá! Recebi: Oi (mensagem 1)' });
  });
});

it('keeps only the latest requests, so a warm function does not grow with every turn, and counts them all', async () => {
  const agent = new ScriptedAgent({ keptRequests: 2 });
  for (const text of ['um', 'dois', 'três']) {
    await agent.respond({ ...REQUEST_FOR_CAP, history: [{ role: 'customer', text, at: '2026-11-30T12:00:00.000Z' }] });
  }

  expect(agent.requests.map((request) => request.history[0].text)).toEqual(['dois', 'três']);
  expect(agent.calls).toBe(3);
});

it('keeps at most 100 requests by default', async () => {
  const agent = new ScriptedAgent();
  for (let call = 0; call < 101; call++) await agent.respond(REQUEST_FOR_CAP);

  expect(agent.requests).toHaveLength(100);
});

const REQUEST_FOR_CAP = {
  systemPrompt: 'p',
  history: [{ role: 'customer' as const, text: 'oi', at: '2026-11-30T12:00:00.000Z' }],
  session: { sessionId: 's', customerId: '5511987654321', state: 'QUALIFYING', qualificationData: {} },
  deadline: Number.MAX_SAFE_INTEGER,
  maxIterations: 1,
};
