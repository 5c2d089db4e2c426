// Fault injection at every boundary the CRM sync worker crosses (DynamoDB reads and writes, the CRM
// send): crash, transient error or unknown outcome, before or after the real call. Whatever struck,
// a later clean run and, for UNCERTAIN, an operator's retry end with exactly one deal in the CRM
// holding the session's current revision.
import { DynamoCrmSyncRepository } from '../../../lambda/core/adapters/dynamodb/crm-sync-repository';
import { DynamoKit } from '../../../lambda/core/adapters/dynamodb/dynamo-kit';
import { retriedByOperator } from '../../../lambda/core/domain/crm-sync';
import { isoMicros } from '../../../lambda/core/domain/timestamps';
import type { CrmClient, CrmSendOutcome } from '../../../lambda/core/ports/crm-client';
import { newCustomer } from '../../support/ids';
import { newSession } from '../../support/domain-records';
import { SequentialIds } from '../../support/manual-clock';
import { AWS_SDK_FAILURES, FAULT_KINDS, FAULT_PHASES, type FailureModel, FaultInjector, type FaultPlan, InvocationCrash } from '../../support/fault-injection';
import { type CrmWorld, startCrmWorld } from '../../support/crm-world';

jest.setTimeout(240_000);

let world: CrmWorld;
const ids = new SequentialIds('fault-etag');

beforeAll(async () => {
  world = await startCrmWorld('crm-faults');
});
afterAll(() => world.close());

/** An injected CRM failure carries the outcome the client would have reported. */
class InjectedCrmFailure extends Error {
  constructor(readonly outcome: Exclude<CrmSendOutcome, { kind: 'accepted' }>) {
    super(outcome.reason);
  }
}

/** The request left (`applied`) or not: a lost answer is unknown, a refused connection retryable. */
const CRM_FAILURES: FailureModel = {
  transient: (boundary, applied) => new InjectedCrmFailure(applied ? { kind: 'unknown', reason: `injected: ${boundary} cut off` } : { kind: 'retryable', reason: `injected: ${boundary} answered 503` }),
  timeout: (boundary) => new InjectedCrmFailure({ kind: 'unknown', reason: `injected: ${boundary} timed out` }),
};

function injectedWorker(injector: FaultInjector) {
  const kit = injector.remote('dynamodb', new DynamoKit({ tableName: world.table.name }), AWS_SDK_FAILURES);
  const crmSync = injector.port('crmSync', new DynamoCrmSyncRepository(kit, world.clock, ids));
  const remote = injector.remote('crm', world.client, CRM_FAILURES);
  const client: CrmClient = {
    send: async (request, options) => {
      try {
        return await remote.send(request, options);
      } catch (error) {
        if (error instanceof InjectedCrmFailure) return error.outcome;
        throw error;
      }
    },
  };
  return world.worker({ crmSync, client });
}

/** Runs the worker on a fresh qualifying session; clean runs afterwards, as the schedule would. */
async function scenario(plan?: FaultPlan) {
  world.clock.advance(24 * 3_600_000);
  await world.worker({ limits: { maxRowsPerRun: 1_000 } }).run();
  const session = newSession(newCustomer(), { state: 'QUALIFYING', segment: 'PESQUISA' });
  await world.repositories.sessions.put(session);
  const injector = new FaultInjector({ plans: plan ? [plan] : [] });
  const outcome = await injector.runInvocation('crm-sync', () => injectedWorker(injector).run());
  for (let run = 0; run < 3; run++) {
    world.clock.advance(2 * 3_600_000);
    await world.worker().run();
  }
  return { session, injector, outcome };
}

const dealsOf = (sessionId: string) => world.crm.deals().filter((deal) => deal.sessionId === sessionId);
const creationsOf = (sessionId: string) => world.crm.received().filter((entry) => entry.request.sessionId === sessionId && entry.handling === 'created');

test('at every boundary, every fault: never two deals; SYNCED with the CRM ids, or UNCERTAIN only once a create may have left', async () => {
  const clean = await scenario();
  expect(clean.outcome).toMatchObject({ crashed: false, value: { sent: 1 } });
  const crossings = clean.injector.crossings.map(({ boundary, occurrence }) => ({ boundary, occurrence }));
  expect(crossings.map((crossing) => crossing.boundary)).toEqual([
    'crmSync.listDue › dynamodb.queryPage',
    'crmSync.change › dynamodb.get',
    'crmSync.change › dynamodb.put',
    'crm.send',
    'crmSync.change › dynamodb.get',
    'crmSync.change › dynamodb.put',
  ]);
  // The claim's write: from it on, the row carries the creation marker until the answer is recorded.
  const claimWrite = 2;

  let cases = 0;
  for (const [position, crossing] of crossings.entries()) {
    for (const kind of FAULT_KINDS) {
      for (const phase of FAULT_PHASES) {
        const plan: FaultPlan = { ...crossing, kind, phase };
        const { session, outcome } = await scenario(plan);
        const label = `${kind} ${phase} ${crossing.boundary} #${crossing.occurrence}`;
        cases++;
        if (kind === 'crash') expect({ label, crashed: outcome.crashed || outcome.error instanceof InvocationCrash }).toEqual({ label, crashed: true });

        expect({ label, creations: creationsOf(session.sessionId).length <= 1, deals: dealsOf(session.sessionId).length <= 1 }).toEqual({ label, creations: true, deals: true });
        let row = (await world.repositories.crmSync.get(session.sessionId))!;
        const claimTookEffect = position > claimWrite || (position === claimWrite && phase === 'after');
        expect({ label, status: row.status }).toEqual({ label, status: claimTookEffect ? expect.stringMatching(/^(SYNCED|UNCERTAIN)$/) : 'SYNCED' });

        if (row.status === 'UNCERTAIN') {
          // The operator checked the CRM; a retry reuses the idempotency key, so a deal that did reach it is not created again.
          await world.repositories.crmSync.change(session.sessionId, (current) => retriedByOperator(current, isoMicros(world.clock.now())));
          await world.worker().run();
          row = (await world.repositories.crmSync.get(session.sessionId))!;
        }
        const deals = dealsOf(session.sessionId);
        expect({ label, status: row.status, deals: deals.length }).toEqual({ label, status: 'SYNCED', deals: 1 });
        expect({ label, dealId: row.dealId, revision: deals[0].revision }).toEqual({ label, dealId: deals[0].dealId, revision: row.revision });
      }
    }
  }
  expect(cases).toBe(crossings.length * FAULT_KINDS.length * FAULT_PHASES.length);
});
