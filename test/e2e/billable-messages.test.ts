// What Meta may bill, scenario by scenario: every message the pipeline sends is one Meta prices
// (free-form replies inside the window too, from 1 October 2026), to the customer and to the
// operators it tells. The counts are pinned, so a change that sends one more message in a scenario
// fails here; docs/DESIGN.md ("Fewer billable messages") says why each scenario sends what it does.
import { DEFAULT_HANDOFF_TEXTS } from '../../lib/contract';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { tableRepositories } from '../support/dynamo-table';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { startOperatorPipeline } from '../support/pipeline';
import { waitUntil } from '../support/waiting';

let pipeline: LocalPipeline;
let repositories: ReturnType<typeof tableRepositories>;
const operatorPhone = newOperatorPhone();
const counted: string[] = [];

beforeAll(async () => {
  // One receive: a turn the agent fails for good ends at its first attempt, with no retry timing.
  pipeline = await startOperatorPipeline([operatorPhone], { queue: { visibilityTimeoutSeconds: 20, maxReceiveCount: 1 } });
  repositories = tableRepositories(pipeline.tableName);
});
afterAll(async () => {
  console.log(`Billable messages per scenario (customer + operators):\n  ${counted.join('\n  ')}`);
  await pipeline.stop();
});

const textsTo = (phone: string) => pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === phone).map((message) => message.text);
const setOperatorAvailable = (available: boolean) => repositories.config.setOperatorAvailability(operatorPhone, available ? new Date().toISOString() : null, operatorPhone);

/** Plays `text` as a new customer's message until the pipeline is idle; answers what it sent to the customer and to the operator. */
async function play(scenario: string, text: string, settled: (customerTexts: string[]) => boolean): Promise<{ customer: string[]; operator: string[] }> {
  const customerId = newCustomer();
  const operatorBefore = textsTo(operatorPhone).length;
  await pipeline.sendCustomerMessage(customerId, text);
  await waitUntil(() => settled(textsTo(customerId)), 15_000, scenario);
  await pipeline.waitForIdle();
  const sent = { customer: textsTo(customerId), operator: textsTo(operatorPhone).slice(operatorBefore) };
  counted.push(`${scenario}: ${sent.customer.length} + ${sent.operator.length}`);
  return sent;
}

it('a question answered: one reply', async () => {
  const sent = await play('a question answered', 'Qual é o prazo do exame?', (texts) => texts.length >= 1);
  expect(sent.customer).toHaveLength(1);
  expect(sent.operator).toEqual([]);
});

it('a handoff while nobody is available: the reply and the notice that nobody is, two messages', async () => {
  await setOperatorAvailable(false);
  const sent = await play('a handoff, nobody available', 'Quero falar com uma pessoa #humano', (texts) => texts.includes(DEFAULT_HANDOFF_TEXTS.noOperatorAvailable));
  expect(sent.customer).toEqual([expect.any(String), DEFAULT_HANDOFF_TEXTS.noOperatorAvailable]);
  expect(sent.operator).toEqual([]);
});

it('a handoff an operator is told of: the reply to the customer, one notice to the operator', async () => {
  await setOperatorAvailable(true);
  const sent = await play('a handoff, an operator available', 'Quero falar com uma pessoa #humano', (texts) => texts.length >= 1);
  await waitUntil(() => textsTo(operatorPhone).length > 0, 10_000, 'the operator notice');
  expect(sent.customer).toHaveLength(1);
  expect(sent.operator).toHaveLength(1);
});

it('a turn the agent fails for good: the fallback text alone to the customer, one notice to the operator', async () => {
  await setOperatorAvailable(true);
  const sent = await play('a turn that fails for good', 'Isto vai falhar #falha', (texts) => texts.includes(DEFAULT_HANDOFF_TEXTS.fallback));
  expect(sent.customer).toEqual([DEFAULT_HANDOFF_TEXTS.fallback]);
  expect(sent.operator).toHaveLength(1);
});
