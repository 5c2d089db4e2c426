// Stages (docs/DESIGN.md#stages): the session's current stage answers, a handover runs the next
// stage in the same turn after checking latest, and the hops of one turn are capped.
import { ScriptedAgent, type ScriptedAgentOptions } from '../../../lambda/core/adapters/agent/scripted-agent';
import { StageRoutingAgents } from '../../../lambda/core/adapters/agent/stage-routing-agents';
import { TurnHarness } from '../../support/turn-harness';

const CUSTOMER = '5511977776666';
let harness: TurnHarness;

afterEach(async () => {
  await harness?.close();
});

/** Scripted stages, each knowing the others as handover targets; `options` per stage. */
function scriptedStages(names: readonly string[], maxHandoversPerTurn: number, options: Record<string, ScriptedAgentOptions> = {}) {
  const agents = new Map(names.map((name) => [name, new ScriptedAgent({ ...options[name], stage: name, handoverTargets: names.filter((other) => other !== name) })]));
  return { agents, stages: new StageRoutingAgents(agents, names[0], maxHandoversPerTurn) };
}

async function startWith(stages: StageRoutingAgents): Promise<TurnHarness> {
  return TurnHarness.start({ wrap: (deps) => ({ ...deps, agent: stages }) });
}

test('the entry stage answers first; its handover runs the next stage in the same turn, which has the conversation from then on', async () => {
  const { agents, stages } = scriptedStages(['qualificacao', 'cadastro'], 3);
  harness = await startWith(stages);

  await harness.receive(CUSTOMER, 'wamid.S1', 'Sou de uma clínica #segmento clínica #intencao orçamento #passar cadastro');
  await harness.process(CUSTOMER, 'wamid.S1');

  expect(harness.sentTo(CUSTOMER)).toEqual(['[cadastro] Olá! Recebi: Sou de uma clínica #segmento clínica #intencao orçamento #passar cadastro (mensagem 1)']);
  expect(agents.get('qualificacao')!.calls).toBe(1);
  // The next stage is told what the first one learned, and that it is now the one asked.
  expect(agents.get('cadastro')!.requests[0].session).toMatchObject({ segment: 'clínica', intent: 'orçamento', agent: 'cadastro', state: 'QUALIFYING' });
  expect(await harness.sessions.getActive(CUSTOMER)).toMatchObject({ currentAgent: 'cadastro', segment: 'clínica', intent: 'orçamento' });

  await harness.receive(CUSTOMER, 'wamid.S2', 'Meu nome: #cadastro nome=Ana Souza #cadastro email=ana@exemplo.com');
  await harness.process(CUSTOMER, 'wamid.S2');

  expect(agents.get('qualificacao')!.calls).toBe(1);
  expect(agents.get('cadastro')!.calls).toBe(2);
  expect(harness.sentTo(CUSTOMER)[1]).toMatch(/^\[cadastro\] /);
  expect(await harness.sessions.getActive(CUSTOMER)).toMatchObject({ currentAgent: 'cadastro', cadastralData: { name: 'Ana Souza', email: 'ana@exemplo.com' } });
});

test('a new session starts with the entry stage and records it as the current agent', async () => {
  const { stages } = scriptedStages(['qualificacao', 'cadastro'], 3);
  harness = await startWith(stages);

  await harness.receive(CUSTOMER, 'wamid.E1', 'Oi');
  await harness.process(CUSTOMER, 'wamid.E1');

  expect(harness.sentTo(CUSTOMER)).toEqual(['[qualificacao] Olá! Recebi: Oi (mensagem 1)']);
  expect(await harness.sessions.getActive(CUSTOMER)).toMatchObject({ currentAgent: 'qualificacao' });
});

test('a newer message that arrived while the first stage answered stops the handover: the next stage is not asked for the obsolete turn', async () => {
  let newer: Promise<number> | undefined;
  const { agents, stages } = scriptedStages(['qualificacao', 'cadastro'], 3, {
    qualificacao: {
      respondAfter: async (_request, call) => {
        if (call === 1) newer = harness.receive(CUSTOMER, 'wamid.L2', 'Ainda estou aqui');
        await newer;
      },
    },
  });
  harness = await startWith(stages);

  await harness.receive(CUSTOMER, 'wamid.L1', 'Quero me cadastrar #passar cadastro');
  await harness.process(CUSTOMER, 'wamid.L1');

  expect(agents.get('cadastro')!.calls).toBe(0);
  expect(harness.sentTo(CUSTOMER)).toEqual([]);

  await harness.process(CUSTOMER, 'wamid.L2');
  // The newer turn answers both messages; its first stage hands over again, and only then is cadastro asked.
  expect([agents.get('qualificacao')!.calls, agents.get('cadastro')!.calls]).toEqual([2, 1]);
  expect(harness.sentTo(CUSTOMER)).toEqual(['[cadastro] Olá! Recebi: Quero me cadastrar #passar cadastro | Ainda estou aqui (mensagem 2)']);
});

test('stages handing the conversation back and forth stop at the cap; the last handover applies from the next turn', async () => {
  const { agents, stages } = scriptedStages(['a', 'b'], 2);
  harness = await startWith(stages);

  await harness.receive(CUSTOMER, 'wamid.P1', 'Ping-pong #passar a #passar b');
  await harness.process(CUSTOMER, 'wamid.P1');

  expect([agents.get('a')!.calls, agents.get('b')!.calls]).toEqual([2, 1]);
  expect(harness.sentTo(CUSTOMER)).toEqual(['[a] Olá! Recebi: Ping-pong #passar a #passar b (mensagem 1)']);
  expect(await harness.sessions.getActive(CUSTOMER)).toMatchObject({ currentAgent: 'b' });
});

test('a handoff to a human ends the turn\'s stages even with a handover in the same answer', async () => {
  const { agents, stages } = scriptedStages(['qualificacao', 'cadastro'], 3);
  harness = await startWith(stages);

  await harness.receive(CUSTOMER, 'wamid.H1', 'Quero uma pessoa #humano #passar cadastro');
  await harness.process(CUSTOMER, 'wamid.H1');

  expect(agents.get('cadastro')!.calls).toBe(0);
  expect(await harness.sessions.getActive(CUSTOMER)).toMatchObject({ state: 'AWAITING_HUMAN', currentAgent: 'cadastro' });
});

test("the stages share the turn's model round trips: none is asked once they are spent", async () => {
  const { agents, stages } = scriptedStages(['a', 'b'], 3);
  harness = await TurnHarness.start({ wrap: (deps) => ({ ...deps, agent: stages }), settings: { maxAgentIterations: 2 } });

  await harness.receive(CUSTOMER, 'wamid.R1', 'Ping-pong #passar a #passar b');
  await harness.process(CUSTOMER, 'wamid.R1');

  expect([agents.get('a')!.calls, agents.get('b')!.calls]).toEqual([1, 1]);
  expect(agents.get('b')!.requests[0].maxIterations).toBe(1);
  expect(harness.sentTo(CUSTOMER)).toEqual(['[b] Olá! Recebi: Ping-pong #passar a #passar b (mensagem 1)']);
  // b's own handover, not followed in this turn, starts the next one at a.
  expect(await harness.sessions.getActive(CUSTOMER)).toMatchObject({ currentAgent: 'a' });
});

test('a demand both stages record from the same messages is recorded once', async () => {
  const { stages } = scriptedStages(['qualificacao', 'cadastro'], 3);
  harness = await startWith(stages);

  await harness.receive(CUSTOMER, 'wamid.D1', 'Vocês fazem #fora teste de paternidade #segmento particular #passar cadastro');
  await harness.process(CUSTOMER, 'wamid.D1');

  const { items } = await harness.demands.listRecent({ limit: 10 });
  expect(items.filter((demand) => demand.customerId === CUSTOMER).map((demand) => demand.requestedService)).toEqual(['teste de paternidade']);
  expect(await harness.sessions.getActive(CUSTOMER)).toMatchObject({ currentAgent: 'cadastro', segment: 'particular' });
});
