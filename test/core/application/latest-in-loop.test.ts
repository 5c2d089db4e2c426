// Latest-message-wins inside the agent's tool loop: a newer message noticed between two tool rounds
// stops the obsolete turn before its next model call, and the turn ends as one superseded at persist.
import { BedrockConverseAgent } from '../../../lambda/core/adapters/agent/bedrock-converse-agent';
import { ProcessTurn, type ProcessTurnDependencies } from '../../../lambda/core/application/process-turn';
import { FakeConverseModel } from '../../../local/fake-bedrock/fake-converse-model';
import { isCompleted } from '../../support/inspect';
import { TurnHarness } from '../../support/turn-harness';

const CUSTOMER = '5511966665555';
const SENT_AT = Math.floor(Date.now() / 1000) - 3600;
let harness: TurnHarness;

afterEach(async () => {
  await harness?.close();
});

/** A harness whose agent is the Bedrock adapter on `model`; `deps` are the turn's ports, to run the use case directly. */
async function withModel(model: FakeConverseModel): Promise<{ deps: () => ProcessTurnDependencies }> {
  let deps: ProcessTurnDependencies | undefined;
  harness = await TurnHarness.start({ wrap: (ports) => (deps = { ...ports, agent: new BedrockConverseAgent({ modelId: 'anthropic.claude-sonnet-4-20250514-v1:0', converse: model.converse }) }) });
  return { deps: () => deps! };
}

test('B arrives during A’s first tool round: A stops without a second model call, ends superseded, and B answers both once', async () => {
  const model = new FakeConverseModel({
    toolRounds: 1,
    answerAfter: async (_input, call) => {
      if (call === 1) await harness.receive(CUSTOMER, 'wamid.B', 'segunda mensagem', SENT_AT + 1);
    },
  });
  const { deps } = await withModel(model);
  await harness.receive(CUSTOMER, 'wamid.A', 'primeira mensagem', SENT_AT);

  const report = await new ProcessTurn(deps()).execute({ customerId: CUSTOMER, deadline: Date.now() + 60_000 });

  expect(model.totals.calls).toBe(1);
  // The outcome a turn superseded at its persist has: the same metric, log and ledger.
  expect(report).toMatchObject({ outcome: 'superseded', drained: 1, agent: { iterations: 1, stopReason: 'superseded' } });
  expect(harness.fake.sent()).toEqual([]);
  expect(await isCompleted(harness.receipts, { customerId: CUSTOMER, messageId: 'wamid.A' })).toBe(true);
  // Nothing of A's turn was persisted: no reply, and its recorded action was dropped.
  expect(await harness.history(CUSTOMER)).toEqual(['user: primeira mensagem']);
  const active = await harness.sessions.getActive(CUSTOMER);
  expect(active?.qualificationData).toEqual({});

  await harness.process(CUSTOMER, 'wamid.B');
  // B's turn: a tool round and the reply, with nothing newer in between.
  expect(model.totals.calls).toBe(3);
  expect(harness.sentTo(CUSTOMER)).toEqual(['Olá! Recebi: primeira mensagem | segunda mensagem']);
});

test('without a newer message the loop runs every round and the reply is sent', async () => {
  const model = new FakeConverseModel({ toolRounds: 2 });
  await withModel(model);
  await harness.receive(CUSTOMER, 'wamid.A', 'uma mensagem só', SENT_AT);

  await harness.process(CUSTOMER, 'wamid.A');

  expect(model.totals.calls).toBe(3);
  expect(harness.sentTo(CUSTOMER)).toEqual(['Olá! Recebi: uma mensagem só']);
});
