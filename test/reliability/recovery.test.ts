// Recovery after a fault at the places the fault matrix found fragile, told as stories: each test
// strikes every remote call of one step (discovered from a clean run, so it survives a redesign of
// the step) and checks the invariants once Meta and SQS redelivered.
import { FAULT_KINDS, FAULT_PHASES, type FaultPlan } from '../support/fault-injection';
import { startReliabilityEnvironment, type ReliabilityEnvironment } from './harness/pipeline-under-test';
import { ScenarioRun, type Scenario, type Side } from './harness/scenario-run';
import { BURST, HUMAN_INBOX, ONE_MESSAGE } from './harness/scenarios';

let env: ReliabilityEnvironment;
beforeAll(async () => {
  env = await startReliabilityEnvironment('recovery');
});
afterAll(async () => {
  await env?.close();
});

/** Every fault at every remote call a clean run of the scenario makes on behalf of `step`. */
async function strikeEveryCallOf(step: string, scenario: Scenario, side: Side): Promise<string[]> {
  const clean = await new ScenarioRun(env, scenario, side, []).execute();
  expect(clean.report.violations).toEqual([]);
  const targets = clean.crossings.filter((crossing) => crossing.boundary.startsWith(`${step} › `) || crossing.boundary === step);
  expect(targets.length).toBeGreaterThan(0);
  const violations: string[] = [];
  for (const { boundary, occurrence } of targets) {
    for (const kind of FAULT_KINDS) {
      for (const phase of FAULT_PHASES) {
        const plan: FaultPlan = { boundary, occurrence, kind, phase };
        const { report } = await new ScenarioRun(env, scenario, side, [plan]).execute();
        violations.push(...report.violations.map((violation) => `${kind} ${phase} ${boundary} #${occurrence}: ${violation}`));
      }
    }
  }
  return violations;
}

test('a completion cut short is finished by the retry: nothing stays pending, nothing is answered twice', async () => {
  expect(await strikeEveryCallOf('ledger.complete', BURST, 'orchestrator')).toEqual([]);
}, 300_000);

test('a reply WhatsApp accepted but the table did not record as sent is counted when it is sent again', async () => {
  expect(await strikeEveryCallOf('ledger.complete', ONE_MESSAGE, 'orchestrator')).toEqual([]);
}, 300_000);

test('Meta redelivering a message for the human inbox stores it once', async () => {
  expect(await strikeEveryCallOf('receipts.markHumanRouted', HUMAN_INBOX, 'webhook')).toEqual([]);
  expect(await strikeEveryCallOf('messages.appendInboundIfSessionState', HUMAN_INBOX, 'webhook')).toEqual([]);
}, 300_000);
