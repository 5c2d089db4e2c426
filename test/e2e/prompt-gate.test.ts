// The prompt gate through the operator API (docs/EVALUATION.md, "The gate in the console"): the
// deployment's suite stored by an admin, a draft that drops the handoff instruction evaluated
// beside the current prompt by the evaluator on the real turn path with the fake Converse model, the
// regression refused at publishing and published only with a reason the audit keeps; a draft
// that keeps the instruction published without one. Evaluation runs send nothing, leave no
// conversation, no report line and no inbox row behind, and count on the budget's evaluation line.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { DEFAULT_SYSTEM_PROMPT } from '../../lib/contract';
import { handoffReportKey } from '../../lambda/core/adapters/dynamodb/keys';
import { openSession, SessionState } from '../../lambda/core/domain/session';
import { FakeConverseModel } from '../../local/fake-bedrock/fake-converse-model';
import { instructedToolCall } from '../../local/fake-bedrock/instructed-tool-calls';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { newOperatorPhone } from '../support/ids';
import { type ConsoleClient, startStaffedPipeline } from '../support/operator-console-client';
import { tableRepositories } from '../support/dynamo-table';
import { waitUntil } from '../support/waiting';

const ASKS_FOR_A_PERSON = JSON.parse(readFileSync(join(__dirname, '..', '..', 'evaluation', 'scenarios', 'asks-for-a-person.json'), 'utf8')) as Record<string, unknown>;
/** The embedded prompt without its handoff instruction: the fake model then never hands over. */
const WITHOUT_HANDOFF = DEFAULT_SYSTEM_PROMPT.replace(/ Hand the conversation to a human[^.]*\./, '');

let pipeline: LocalPipeline;
let repositories: ReturnType<typeof tableRepositories>;
let admin: ConsoleClient;
let operator: ConsoleClient;

beforeAll(async () => {
  ({ pipeline, repositories, admin, operator } = await startStaffedPipeline(newOperatorPhone(), newOperatorPhone(), {
    bedrockAgent: { converse: new FakeConverseModel({ toolCall: instructedToolCall }).converse },
    pipelineBudget: { agentTokensPerDay: 10_000_000 },
  }));
});
afterAll(async () => {
  await pipeline.stop();
});

async function finishedRun(runId: string) {
  let run: any;
  await waitUntil(
    async () => {
      run = (await admin.call('GET', `/api/admin/prompts/system/evaluations/${runId}`)).body.evaluation;
      return run.status !== 'running';
    },
    30_000,
    'the evaluation run to finish',
  );
  return run;
}

async function auditOf(action: string) {
  const events = (await admin.call('GET', '/api/admin/audit?limit=100')).body.items as { action: string; details?: Record<string, unknown> }[];
  return events.filter((event) => event.action === action);
}

it('refuses the gate to operators, and a scenario that breaks the format with every problem, storing nothing', async () => {
  for (const [method, path, body] of [
    ['GET', '/api/admin/scenarios'],
    ['PUT', '/api/admin/scenarios/asks', { scenario: ASKS_FOR_A_PERSON, expectedVersion: 0 }],
    ['PUT', '/api/admin/prompts/system/draft', { content: 'x', expectedVersion: 0 }],
    ['POST', '/api/admin/prompts/system/evaluations', { draftVersion: 1 }],
    ['POST', '/api/admin/prompts/system/draft/publish', { draftVersion: 1, expectedVersion: 0 }],
  ] as const) {
    expect({ path, status: (await operator.call(method, path, body)).status }).toEqual({ path, status: 403 });
  }
  const broken = await admin.call('PUT', '/api/admin/scenarios/broken', { scenario: { ...ASKS_FOR_A_PERSON, turns: [{ customer: { text: 'oi' }, expect: { reply: { startsWith: 'x' } } }], formatVersion: 2 }, expectedVersion: 0 });
  expect(broken.status).toBe(400);
  expect(broken.body.message).toMatch(/formatVersion must be 1/);
  expect(broken.body.message).toMatch(/turns\[0\]\.expect\.reply\.startsWith is not a field of the format/);
  expect((await admin.call('PUT', '/api/admin/scenarios/Bad_Id', { scenario: ASKS_FOR_A_PERSON, expectedVersion: 0 })).status).toBe(400);
  expect((await admin.call('GET', '/api/admin/scenarios')).body.items).toEqual([]);
  expect(await repositories.resources.getCurrent('evaluation_scenario', 'broken')).toBeUndefined();
});

it('shows the regression of a draft that drops the handoff, refuses to publish it without a reason, and audits the override', async () => {
  const stored = await admin.call('PUT', '/api/admin/scenarios/asks-for-a-person', { scenario: ASKS_FOR_A_PERSON, expectedVersion: 0 });
  expect(stored.status).toBe(200);
  expect(stored.body.scenario).toMatchObject({ id: 'asks-for-a-person', version: 1, scenario: { name: 'asks-for-a-person' } });

  // With a suite, a direct edit skips the gate only with a reason.
  const direct = await admin.call('PUT', '/api/admin/prompts/system', { content: WITHOUT_HANDOFF, expectedVersion: 0 });
  expect(direct.status).toBe(409);
  expect(direct.body.error).toBe('evaluation_required');
  expect(await repositories.resources.getCurrent('prompt', 'system')).toBeUndefined();

  const draft = await admin.call('PUT', '/api/admin/prompts/system/draft', { content: WITHOUT_HANDOFF, expectedVersion: 0, description: 'shorter' });
  expect(draft.body.draft).toMatchObject({ promptId: 'system', version: 1, published: false });
  const unevaluated = await admin.call('POST', '/api/admin/prompts/system/draft/publish', { draftVersion: 1, expectedVersion: 0 });
  expect(unevaluated.status).toBe(409);
  expect(unevaluated.body.error).toBe('not_evaluated');

  const started = await admin.call('POST', '/api/admin/prompts/system/evaluations', { draftVersion: 1 });
  expect(started.status).toBe(201);
  expect(started.body.evaluation).toMatchObject({ status: 'running', draftVersion: 1, currentVersion: 0 });
  const run = await finishedRun(started.body.evaluation.runId);
  expect(run).toMatchObject({ status: 'done', regressions: ['asks-for-a-person'] });
  expect(run.scenarios).toEqual([
    { name: 'asks-for-a-person', current: { passed: true, problems: [] }, draft: { passed: false, problems: expect.arrayContaining([expect.stringMatching(/^turn 2: .*request_human_handoff/)]) } },
  ]);
  expect(run.usage.outputTokens).toBeGreaterThan(0);
  expect((await admin.call('GET', '/api/admin/prompts/system/evaluations')).body.items.map((listed: { runId: string }) => listed.runId)).toEqual([run.runId]);

  const refused = await admin.call('POST', '/api/admin/prompts/system/draft/publish', { draftVersion: 1, expectedVersion: 0 });
  expect(refused.status).toBe(409);
  expect(refused.body).toMatchObject({ error: 'evaluation_regression', problem: { code: 'evaluation_regression', regressions: 1, runId: run.runId } });
  expect(await repositories.resources.getCurrent('prompt', 'system')).toBeUndefined();

  const overridden = await admin.call('POST', '/api/admin/prompts/system/draft/publish', { draftVersion: 1, expectedVersion: 0, overrideReason: 'Handoffs move to the new menu next week' });
  expect(overridden.status).toBe(200);
  expect(overridden.body.prompt).toMatchObject({ version: 1, content: WITHOUT_HANDOFF, description: 'shorter' });
  expect(await auditOf('prompt.publish')).toEqual([
    expect.objectContaining({ details: expect.objectContaining({ version: 1, draftVersion: 1, runId: run.runId, overridden: 'evaluation_regression', overrideReason: 'Handoffs move to the new menu next week', regressions: ['asks-for-a-person'] }) }),
  ]);
  expect((await admin.call('GET', '/api/admin/prompts/system/draft')).body.draft).toMatchObject({ published: true });
});

it('publishes a draft that passes what the current version passes without a reason', async () => {
  const current = (await admin.call('GET', '/api/admin/prompts/system')).body.prompt;
  const previousDraft = (await admin.call('GET', '/api/admin/prompts/system/draft')).body.draft;
  const draft = await admin.call('PUT', '/api/admin/prompts/system/draft', { content: DEFAULT_SYSTEM_PROMPT, expectedVersion: previousDraft.version });
  const started = await admin.call('POST', '/api/admin/prompts/system/evaluations', { draftVersion: draft.body.draft.version });
  const run = await finishedRun(started.body.evaluation.runId);
  expect(run).toMatchObject({ status: 'done', currentVersion: current.version, regressions: [] });
  expect(run.scenarios[0]).toMatchObject({ current: { passed: false }, draft: { passed: true } });
  const published = await admin.call('POST', '/api/admin/prompts/system/draft/publish', { draftVersion: draft.body.draft.version, expectedVersion: current.version });
  expect(published.status).toBe(200);
  expect(published.body.prompt).toMatchObject({ version: current.version + 1, content: DEFAULT_SYSTEM_PROMPT });
});

it('answers the prompt without the handoff sentence', () => {
  expect(WITHOUT_HANDOFF).not.toBe(DEFAULT_SYSTEM_PROMPT);
  expect(WITHOUT_HANDOFF).not.toMatch(/human/);
});

it('leaves nothing of its runs in the inbox, the reports or WhatsApp, and counts their tokens on the budget line', async () => {
  expect(pipeline.fakeWhatsApp.sent().filter((message) => message.recipient.startsWith('eval'))).toEqual([]);
  expect((await admin.call('GET', '/api/conversations?state=AWAITING_HUMAN')).body.items).toEqual([]);
  const today = new Date().toISOString().slice(0, 10);
  const handoffs = (await admin.call('GET', `/api/admin/reports/handoffs?from=${today}&to=${today}`)).body;
  expect(handoffs.total.handoffs).toBe(0);
  const usage = (await admin.call('GET', `/api/admin/reports/usage?from=${today}&to=${today}`)).body;
  expect(usage.total.replies).toBe(0);
  expect(usage.evaluation.tokens).toBeGreaterThan(0);
  expect(usage.evaluation.days).toEqual([{ day: today, tokens: usage.evaluation.tokens }]);
  expect(await repositories.pipelineBudget.tokensOfDay(new Date())).toBeGreaterThan(0);
  const { Items = [] } = await new DynamoDBClient({}).send(new ScanCommand({ TableName: pipeline.tableName }));
  const evaluationItems = Items.map((item) => unmarshall(item)).filter((item) => JSON.stringify([item.PK, item.SK, item.GSI1PK]).includes('eval-'));
  expect(evaluationItems).toEqual([]);
});

it('while a scenario plays, its handoff is in no inbox and the sweeper neither notifies operators of it nor reminds its customer', async () => {
  const at = new Date(Date.now() - 10 * 60_000).toISOString();
  const playing = { ...openSession({ customerId: 'eval-playing-0', customerIdKind: 'phone', businessPhoneNumberId: '100000000000000' }, 'session-playing', at, { state: SessionState.AWAITING_HUMAN }), handoffRequestedAt: at };
  await tableRepositories(pipeline.tableName, pipeline.keyLayout).sessions.put(playing);
  const sentBefore = pipeline.fakeWhatsApp.sent().length;
  const report = await pipeline.sweepHandoffs();
  expect(report).toMatchObject({ waiting: 0, notified: 0, customersReminded: 0 });
  expect(pipeline.fakeWhatsApp.sent().slice(sentBefore)).toEqual([]);
  expect((await admin.call('GET', '/api/conversations?state=AWAITING_HUMAN')).body.items).toEqual([]);
});

it('a scenario left waiting for a person by a run that did not finish is erased by the sweeper once no run could still play it', async () => {
  const repositories = tableRepositories(pipeline.tableName, pipeline.keyLayout);
  const waitingSince = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
  const seed = async (customerId: string, at: string) => {
    const session = { ...openSession({ customerId, customerIdKind: 'phone', businessPhoneNumberId: '100000000000000' }, `session-${customerId}`, at, { state: SessionState.AWAITING_HUMAN }), handoffRequestedAt: at };
    await repositories.sessions.put(session);
    await repositories.handoffReport.recordStep(session);
  };
  const left = waitingSince(61);
  await seed('eval-left-0', left);
  await seed('eval-still-playing-0', waitingSince(50));

  expect(await pipeline.sweepHandoffs()).toMatchObject({ waiting: 0, notified: 0, evaluationLeftoversErased: 1 });
  expect(await repositories.customerData.evaluationCustomerItems('eval-left-0')).toEqual([]);
  expect(await repositories.kit.get({ key: handoffReportKey(left, 'session-eval-left-0') })).toBeUndefined();
  expect(await repositories.customerData.evaluationCustomerItems('eval-still-playing-0')).not.toEqual([]);
  expect((await pipeline.sweepHandoffs()).evaluationLeftoversErased).toBeUndefined();
});
