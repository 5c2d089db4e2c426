// Scenario evaluations on the local runtime (docs/EVALUATION.md): the shipped suite played through
// the real turn path on DynamoDB Local with the fake Converse model behind the fake Bedrock Runtime;
// a prompt that drops the handoff instruction fails its scenario; consumer tools answer from the
// scenario's recordings and never run; rubric checks are graded by the judge.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DescribeTableCommand, DynamoDBClient, ResourceNotFoundException, ScanCommand } from '@aws-sdk/client-dynamodb';
import { DEFAULT_SYSTEM_PROMPT, TABLE_PARTITIONS } from '../../lib/contract';
import { parseScenarios } from '../../lambda/core/application/evaluation/scenario-format';
import type { Scenario } from '../../lambda/core/domain/evaluation/scenario';
import { FakeConverseModel } from '../../local/fake-bedrock/fake-converse-model';
import { instructedToolCall } from '../../local/fake-bedrock/instructed-tool-calls';
import { startLocalEvaluation, type LocalEvaluationOptions } from '../../local/runtime/local-evaluation';
import { tableRepositories } from '../support/dynamo-table';

const SHIPPED = join(__dirname, '..', '..', 'evaluation', 'scenarios');
const shippedSuite = () => parseScenarios(readdirSync(SHIPPED).map((file) => ({ file, text: readFileSync(join(SHIPPED, file), 'utf8') })));

async function evaluate(scenarios: readonly Scenario[], options: LocalEvaluationOptions = {}) {
  const local = await startLocalEvaluation(options);
  try {
    const result = await local.runner.execute(scenarios, 2);
    const { Items = [] } = await new DynamoDBClient({}).send(new ScanCommand({ TableName: local.tableName }));
    return { result, items: Items, tableName: local.tableName };
  } finally {
    await local.close();
  }
}

test('the shipped suite passes on the local runtime, with its tokens and estimated cost, writing only in the evaluation key space of a table dropped after', async () => {
  const { result, items, tableName } = await evaluate(shippedSuite());
  // Nothing of the run outlives it.
  await expect(new DynamoDBClient({}).send(new DescribeTableCommand({ TableName: tableName }))).rejects.toThrow(ResourceNotFoundException);
  expect(result.scenarios.map(({ name, passed, error, turns }) => ({ name, passed, error, problems: turns.flatMap((turn) => turn.problems) }))).toEqual([
    { name: 'asks-for-a-person', passed: true, error: undefined, problems: [] },
    { name: 'records-registration', passed: true, error: undefined, problems: [] },
    { name: 'tap-and-photo', passed: true, error: undefined, problems: [] },
  ]);
  expect(result.usage.outputTokens).toBeGreaterThan(0);
  expect(result.costUsd).toBeGreaterThan(0);
  // Every customer partition the run wrote is one of the evaluation key space's, of this run.
  const { session, inbound, budget, customer } = TABLE_PARTITIONS.prefixes;
  const customerPartitions = items.map((item) => item.PK.S!).filter((partition) => [session, inbound, budget, customer].some((prefix) => partition.startsWith(prefix)));
  expect(customerPartitions.length).toBeGreaterThan(0);
  expect(customerPartitions.filter((partition) => !partition.includes(`eval-${result.runId}-`))).toEqual([]);
});

test('a prompt edited to drop the handoff instruction fails the scenario of the customer who asks for a person', async () => {
  const withoutHandoff = DEFAULT_SYSTEM_PROMPT.replace(/Hand the conversation to a human[^.]*\./, '').trim();
  expect(withoutHandoff).not.toBe(DEFAULT_SYSTEM_PROMPT);
  const prepare = async (tableName: string) => {
    const repositories = tableRepositories(tableName);
    await repositories.resources.putNextVersion({ resourceType: 'prompt', resourceId: 'system', content: withoutHandoff, author: 'admin', active: true });
  };
  const { result } = await evaluate(shippedSuite(), { prepare });
  const asksForAPerson = result.scenarios.find((scenario) => scenario.name === 'asks-for-a-person')!;
  expect(asksForAPerson.passed).toBe(false);
  expect(asksForAPerson.turns[1].problems).toEqual(['toolsCalled: request_human_handoff was not called (called: update_qualification)', 'handoff: the conversation did not go to people']);
  expect(result.scenarios.filter((scenario) => scenario.name !== 'asks-for-a-person').every((scenario) => scenario.passed)).toBe(true);
});

test('a consumer tool answers from the recordings of the scenario, never from its function; an input nothing recorded fails the turn', async () => {
  const handlerCalls: unknown[] = [];
  const converse = new FakeConverseModel({
    toolCall: (turn, roundsDone, input) => {
      const order = /pedido (\d+)/.exec(turn.at(-1) ?? '')?.[1];
      return order !== undefined && roundsDone === 0 ? { name: 'lookup_order', input: { order_id: order } } : instructedToolCall(turn, roundsDone, input);
    },
  }).converse;
  const scenario: Scenario = {
    formatVersion: 1,
    name: 'order-status',
    tools: { lookup_order: [{ input: { order_id: '123' }, result: { status: 'enviado' } }] },
    turns: [
      { customer: { text: 'Cadê o pedido 123?' }, expect: { toolsCalled: [{ name: 'lookup_order', input: { order_id: '123' } }], reply: { contains: ['enviado'] } } },
      { customer: { text: 'E o pedido 999?' } },
    ],
  };
  const tools = [{ name: 'lookup_order', description: 'Finds an order.', inputSchema: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] }, sideEffects: false, handler: async (event: unknown) => handlerCalls.push(event) }];
  const { result } = await evaluate([scenario], { converse, tools });
  const [played] = result.scenarios;
  expect(played.turns[0].problems).toEqual([]);
  expect(played.turns[1].problems).toEqual(['tools: lookup_order was called with {"order_id":"999"}, which no recorded answer of the scenario matches']);
  expect(played.passed).toBe(false);
  expect(handlerCalls).toEqual([]);
});

test('rubric checks are graded by the judge model, whose tokens count in the run', async () => {
  const scenario = (criterion: string): Scenario => ({ formatVersion: 1, name: criterion.length > 30 ? 'strict' : 'lenient', turns: [{ customer: { text: 'Oi, tudo bem?' }, expect: { rubric: [criterion] } }] });
  const { result } = await evaluate([scenario('Greets the customer.'), scenario('The reply offers a "desconto" to the customer.')]);
  expect(result.scenarios.map((played) => [played.name, played.passed, played.turns[0].problems])).toEqual([
    ['lenient', true, []],
    ['strict', false, ['rubric: "The reply offers a "desconto" to the customer." failed: The reply lacks "desconto".']],
  ]);
  // The same turn without its rubric: the fake model bills the same, so the difference is the judge's.
  const graded = await evaluate([scenario('Greets the customer.')]);
  const ungraded = await evaluate([{ ...scenario('Greets the customer.'), turns: [{ customer: { text: 'Oi, tudo bem?' } }] }]);
  expect(graded.result.usage.inputTokens).toBeGreaterThan(ungraded.result.usage.inputTokens);
  expect(graded.result.usage.outputTokens).toBeGreaterThan(ungraded.result.usage.outputTokens);
});

test('with stages, a scenario starts at the stage it names and sees the handover the agent makes, through each stage\'s watched agent', async () => {
  const agentEnvironment = { AGENT_BACKEND: 'stages', AGENT_STAGES: JSON.stringify({ entry: 'qualificacao', agents: { qualificacao: { AGENT_BACKEND: 'scripted' }, cadastro: { AGENT_BACKEND: 'scripted' } } }) };
  const handsOver: Scenario = {
    formatVersion: 1,
    name: 'hands-over',
    turns: [{ customer: { text: 'Quero me cadastrar #passar cadastro' }, expect: { toolsCalled: [{ name: 'handover_to_agent', input: { agent: 'cadastro' } }], handover: 'cadastro', handoff: false } }],
  };
  const startsLater: Scenario = {
    formatVersion: 1,
    name: 'starts-at-cadastro',
    start: { stage: 'cadastro', learned: { cadastral: { name: 'Ana Souza' } } },
    turns: [{ customer: { text: 'Quero falar com alguém #humano' }, expect: { toolsCalled: [{ name: 'request_human_handoff' }], toolsNotCalled: ['handover_to_agent'], handover: 'cadastro', handoff: true, learned: { cadastral: { name: 'Ana Souza' } } } }],
  };
  const { result } = await evaluate([handsOver, startsLater, { ...handsOver, name: 'expects-the-wrong-stage', turns: [{ ...handsOver.turns[0], expect: { handover: 'qualificacao' } }] }], { agentEnvironment });
  expect(result.scenarios.map(({ name, passed, turns }) => [name, passed, turns.flatMap((turn) => turn.problems)])).toEqual([
    ['hands-over', true, []],
    ['starts-at-cadastro', true, []],
    ['expects-the-wrong-stage', false, ['handover: the stage is cadastro, not qualificacao']],
  ]);
});
