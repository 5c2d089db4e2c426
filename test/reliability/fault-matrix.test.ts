// The fault matrix: every remote call a scenario makes, struck before and after the call by a
// crash, a transient error and a timeout with an unknown outcome — then Meta's and SQS's
// redeliveries run, and the four invariants (and the scenario's own promises) are checked. One test
// per channel, scenario and side (the same matrix over the Cloud API and End User Messaging); the
// result table is printed (and written to $RELIABILITY_REPORT_DIR/fault-matrix.md when set).
import { mkdirSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { FAULT_KINDS, FAULT_PHASES, type FaultKind, type FaultPhase, type FaultPlan } from '../support/fault-injection';
import type { LocalChannel } from '../../local/runtime/local-pipeline';
import { ONE_PIXEL_PNG, VOICE_NOTE_OGG } from '../support/media-bucket';
import { CHANNELS } from '../support/pipeline';
import { SessionState } from '../../lambda/core/domain/session';
import { startReliabilityEnvironment, type ReliabilityEnvironment, VOICE_NOTE_WORDS } from './harness/pipeline-under-test';
import { checkAttachmentCount, checkAttachmentInvariants, checkVoiceNoteInvariants } from './harness/invariants';
import { ScenarioRun, type RunResult, type Scenario, type Side } from './harness/scenario-run';
import { BURST, HUMAN_INBOX, ONE_MESSAGE } from './harness/scenarios';

const LANES = 2;

const newerMessageDuringTheAgentCall: Scenario = {
  name: 'a newer message while the agent runs',
  agent: (run) => ({
    respondAfter: async (_request, call) => {
      if (call === 1) await run.send('Na verdade, dois exames');
    },
  }),
  act: async (run) => {
    await run.send('Quero um exame');
    await run.drain();
  },
};

const newerMessageAfterThePersist: Scenario = {
  name: 'a newer message after the reply was persisted',
  act: async (run) => {
    run.live.orchestrator.injector.hook({ boundary: 'ledger.persistResult › dynamodb.transact', phase: 'after', action: () => run.send('Mudei de ideia').then(() => undefined) });
    await run.send('Quero um exame');
    await run.drain();
  },
};

const resentAfterOutage: Scenario = {
  name: 'a reply resent after a WhatsApp outage',
  act: async (run) => {
    run.env.fake.failNext(1, { httpStatus: 503, code: 131016, message: 'Service temporarily unavailable' });
    await run.send('Oi');
    await run.drain();
  },
};

const takeoverWhileWaiting: Scenario = {
  name: 'a human takes over while a message waits',
  setup: async (run) => {
    await run.send('Oi', run.clean);
    await run.drain(run.clean);
  },
  act: async (run) => {
    await run.send('Quero falar com alguém');
    await run.humanTakesOver();
    await run.drain();
  },
  answeredByAgent: ['Oi'],
};

/** A message that waited more than a day for its turn (a backlog, a late redrive): under every fault, nothing is sent. */
const pastTheWindow: Scenario = {
  name: 'a message that reaches its turn after the 24-hour window',
  act: async (run) => {
    await run.send('Ainda dá para marcar?', run.live, 25 * 3600);
    await run.drain();
  },
  answeredByAgent: [],
};

const PHOTO = { caption: 'Minha receita', bytes: ONE_PIXEL_PNG, mimeType: 'image/png' } as const;

/**
 * A photo the turn downloads (from the Graph API, or written into the bucket by End User
 * Messaging) with a fault at every step of the download: one object at most, and the agent sees
 * the image — or the download note, once the last attempt gave up.
 */
const customersPhoto: Scenario = {
  name: "a customer's photo",
  act: async (run) => {
    await run.sendPhoto(PHOTO.caption, PHOTO);
    await run.drain();
  },
  check: (run) => checkAttachmentInvariants(run.env, { customer: run.customer, text: PHOTO.caption, bytes: PHOTO.bytes }, run.agentRequests),
};

/**
 * A voice note the turn downloads and transcribes, with a fault at every call of the download and
 * of Amazon Transcribe (its start, each read of the job, its deletion): at most one object, no job
 * left in Transcribe holding the customer's words, and the agent hears the transcript (or reads
 * the note, once the last attempt gave up).
 */
const customersVoiceNote: Scenario = {
  name: "a customer's voice note",
  act: async (run) => {
    await run.sendVoiceNote('[audio]', VOICE_NOTE_OGG);
    await run.drain();
  },
  check: async (run) => [
    ...(await checkAttachmentCount(run.env, run.customer, '[audio]')),
    ...(await checkVoiceNoteInvariants(run.env, { customer: run.customer, text: '[audio]', words: VOICE_NOTE_WORDS }, run.agentRequests)),
  ],
};

/**
 * A customer asks for an order and the agent calls the business's `create_order` tool (side
 * effects): struck before and after the tool's call, the intent's and the result's persist and
 * every other step, exactly one order is created, and the model only ever reads that order.
 */
const customerOrders: Scenario = {
  name: 'a customer who asks for an order (a tool with side effects)',
  orderTool: {},
  act: async (run) => {
    await run.send('Quero fazer um pedido de 2 pães');
    await run.drain();
  },
  check: async (run) => run.orderTool.violations(run.customer, 1),
};

/** The customer writes again while the model chooses the tool: under every fault, no order is ever created. */
const orderSuperseded: Scenario = {
  name: 'a newer message while the model chooses the tool',
  orderTool: { newerMessage: (run) => run.send('Espera, não quero mais').then(() => undefined) },
  act: async (run) => {
    await run.send('Quero fazer um pedido de 2 pães');
    await run.drain();
  },
  check: async (run) => run.orderTool.violations(run.customer, 0),
};

/**
 * A settle wait short enough for the matrix's hundreds of runs, long enough that a turn started
 * right after the message waits; one read of the marker per wait (the poll is the whole wait), so
 * every run crosses the same boundaries.
 */
const SETTLE = { burstSettleMs: 800, burstSettlePollMs: 800 } as const;
/** The marker read of the settle wait (the turn's own reads are the ledger's). */
const SETTLE_READ = 'receipts.getLatest › dynamodb.get';
/** Run clean first: the lane's first requests are slow, and the turn under test must start inside its wait. */
const WARM_CONVERSATION = async (run: ScenarioRun) => {
  await run.send('Oi', run.clean);
  await run.drain(run.clean);
};

/** One message whose turn waits for the customer to go quiet: struck during the wait too, it is answered once. */
const settleWait: Scenario = {
  name: 'one message, its turn in the settle wait',
  settings: SETTLE,
  crosses: SETTLE_READ,
  setup: WARM_CONVERSATION,
  act: async (run) => {
    await run.send('Quero um exame');
    await run.drain();
  },
};

/**
 * The customer writes again while the turn waits: the waiting turn ends without the agent and
 * leaves its message pending, and the newer message's turn answers both — under a fault at any
 * step, each message is answered once and nothing is lost. The newer message is settled by the
 * time its turn runs (it waits no more), so every run crosses the same boundaries.
 */
const newerMessageDuringTheSettleWait: Scenario = {
  name: 'a newer message during the settle wait',
  settings: SETTLE,
  crosses: SETTLE_READ,
  setup: WARM_CONVERSATION,
  act: async (run) => {
    run.live.orchestrator.injector.hook({
      boundary: SETTLE_READ,
      phase: 'before',
      action: async () => {
        await run.send('E o preço?');
        await sleep(SETTLE.burstSettleMs);
      },
    });
    await run.send('Quero um exame');
    await run.drain();
  },
};

const ECHO = 'Oi! Aqui é a Ana, da recepção: já te respondo.';

/**
 * A person of the business answers from the WhatsApp Business app while the customer's turn is in
 * flight, at `step` (a boundary of the orchestrator, before or after it), before the reply could
 * go out: the echo pauses the agent on that conversation and no reply of the agent's reaches the
 * customer. Under any fault, the customer's message is in the history once and completed, the
 * echo once, and the conversation is with people.
 */
function echoDuring(name: string, step: { readonly boundary: string; readonly phase: 'before' | 'after' }): Scenario {
  return {
    name,
    act: async (run) => {
      // At the first crossing of the step that is reached: a fault may strike its first crossing before the call.
      let answered: Promise<void> | undefined;
      for (let occurrence = 1; occurrence <= 3; occurrence++) run.live.orchestrator.injector.hook({ ...step, occurrence, action: () => (answered ??= run.answerFromThePhone(ECHO)) });
      await run.send('Vocês abrem amanhã?');
      await run.drain();
    },
    answeredByAgent: [],
    check: async (run) => {
      const violations: string[] = [];
      const session = await run.env.repositories.sessions.getActive(run.customer);
      if (session?.state !== SessionState.AWAITING_HUMAN) violations.push(`E1 the conversation is ${session?.state}, not with people`);
      const history = await run.env.repositories.messages.historyForSession(run.customer, session?.sessionId ?? '', 50);
      if (history.filter((message) => message.role === 'business_app' && message.text === ECHO).length !== 1) violations.push('E2 the echo is not in the history once');
      const sent = run.env.fake.sent().filter((message) => message.recipient === run.customer).length;
      if (sent > 0) violations.push(`E3 ${sent} message(s) of the agent went out after the echo paused it`);
      return violations;
    },
  };
}

const echoBeforeTheModelCall = echoDuring('an answer from the phone before the model call', { boundary: 'agent.respond', phase: 'before' });
const echoAfterThePersist = echoDuring('an answer from the phone after the reply was persisted, before it was sent', { boundary: 'ledger.persistResult › dynamodb.transact', phase: 'after' });

/**
 * The settle wait is the orchestrator's own, the same whichever channel wrote the marker it reads:
 * its scenarios run over one channel, which keeps the matrix's sleeping to half.
 */
const SETTLE_CHANNELS: readonly LocalChannel[] = ['cloud-api'];

const MATRIX: readonly { readonly scenario: Scenario; readonly side: Side; readonly channels?: readonly LocalChannel[] }[] = [
  { scenario: ONE_MESSAGE, side: 'webhook' },
  { scenario: HUMAN_INBOX, side: 'webhook' },
  { scenario: ONE_MESSAGE, side: 'orchestrator' },
  { scenario: BURST, side: 'orchestrator' },
  { scenario: newerMessageDuringTheAgentCall, side: 'orchestrator' },
  { scenario: newerMessageAfterThePersist, side: 'orchestrator' },
  { scenario: resentAfterOutage, side: 'orchestrator' },
  { scenario: takeoverWhileWaiting, side: 'orchestrator' },
  { scenario: pastTheWindow, side: 'orchestrator' },
  { scenario: customersPhoto, side: 'orchestrator' },
  { scenario: customersVoiceNote, side: 'orchestrator' },
  { scenario: customerOrders, side: 'orchestrator' },
  { scenario: orderSuperseded, side: 'orchestrator' },
  { scenario: settleWait, side: 'orchestrator', channels: SETTLE_CHANNELS },
  { scenario: newerMessageDuringTheSettleWait, side: 'orchestrator', channels: SETTLE_CHANNELS },
  { scenario: echoBeforeTheModelCall, side: 'orchestrator' },
  { scenario: echoAfterThePersist, side: 'orchestrator' },
];

const COMBINATIONS = FAULT_KINDS.flatMap((kind) => FAULT_PHASES.map((phase) => ({ kind, phase })));

interface Cell {
  readonly boundary: string;
  readonly occurrence: number;
  readonly kind: FaultKind;
  readonly phase: FaultPhase;
  readonly result: RunResult;
}

const tables: string[] = [];
let lanes: ReliabilityEnvironment[];

async function startLanes(channel: LocalChannel): Promise<void> {
  const first = await startReliabilityEnvironment('matrix', undefined, channel);
  lanes = [first, ...(await Promise.all(Array.from({ length: LANES - 1 }, () => startReliabilityEnvironment('matrix', first.tableName, channel))))];
}

async function closeLanes(): Promise<void> {
  // The table's owner goes last.
  for (const lane of [...(lanes ?? [])].reverse()) await lane.close();
}

afterAll(() => {
  if (tables.length === 0) return;
  const report = tables.join('\n\n');
  console.log(report);
  if (process.env.RELIABILITY_REPORT_DIR) {
    mkdirSync(process.env.RELIABILITY_REPORT_DIR, { recursive: true });
    writeFileSync(join(process.env.RELIABILITY_REPORT_DIR, 'fault-matrix.md'), `${report}\n`);
  }
});

describe.each(CHANNELS)('over the %s channel', (channel) => {
  beforeAll(() => startLanes(channel), 60_000);
  afterAll(() => closeLanes());

  describe.each(MATRIX.filter((entry) => entry.channels?.includes(channel) ?? true))('faults in the $side: $scenario.name', ({ scenario, side }) => {
    test('every boundary × {before, after} × {crash, transient, timeout}: redelivered, the invariants hold', async () => {
      const clean = await new ScenarioRun(lanes[0], scenario, side, []).execute();
      expect(clean.report.violations).toEqual([]);
      expect(clean.crossings.length).toBeGreaterThan(0);
      if (scenario.crosses !== undefined) expect(clean.crossings.map(({ boundary }) => boundary)).toContain(scenario.crosses);

      const plans: FaultPlan[] = clean.crossings.flatMap(({ boundary, occurrence }) => COMBINATIONS.map(({ kind, phase }) => ({ boundary, occurrence, kind, phase })));
      const cells = await inLanes(plans, async (plan, lane): Promise<Cell> => {
        const result = await new ScenarioRun(lane, scenario, side, [plan]).execute();
        return { boundary: plan.boundary, occurrence: plan.occurrence!, kind: plan.kind, phase: plan.phase, result };
      });
      tables.push(renderTable(`Faults in the ${side} (${channel}): ${scenario.name}`, cells));

      const failures = cells.flatMap((cell) => {
        const where = `${cell.kind} ${cell.phase} ${cell.boundary} #${cell.occurrence}`;
        if (cell.result.faultsFired === 0) return [`${where}: the fault was never reached`];
        return cell.result.report.violations.map((violation) => `${where}: ${violation}`);
      });
      expect(failures).toEqual([]);
    }, 900_000);
  });
});

/** Runs the plans on the lanes, each lane one run at a time (its queue and fake are its own). */
async function inLanes<T, R>(items: readonly T[], work: (item: T, lane: ReliabilityEnvironment) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    lanes.map(async (lane) => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index], lane);
      }
    }),
  );
  return results;
}

function cellText({ result }: Cell): string {
  if (result.faultsFired === 0) return 'not reached';
  if (result.report.violations.length > 0) return '✗';
  const notes = [
    result.metaRetries > 0 ? `M${result.metaRetries}` : '',
    result.redeliveries > 0 ? `Q${result.redeliveries}` : '',
    result.report.duplicates > 0 ? `dup${result.report.duplicates}` : '',
  ].filter(Boolean);
  return ['✓', ...notes].join(' ');
}

function renderTable(title: string, cells: readonly Cell[]): string {
  const rows = new Map<string, Map<string, string>>();
  const repeated = new Set(cells.filter((cell) => cell.occurrence > 1).map((cell) => cell.boundary));
  for (const cell of cells) {
    const row = `\`${cell.boundary}\`${repeated.has(cell.boundary) ? ` #${cell.occurrence}` : ''}`;
    if (!rows.has(row)) rows.set(row, new Map());
    rows.get(row)!.set(`${cell.kind} ${cell.phase}`, cellText(cell));
  }
  const columns = COMBINATIONS.map(({ kind, phase }) => `${kind} ${phase}`);
  return [
    `**${title}**`,
    '',
    `| boundary | ${columns.join(' | ')} |`,
    `|---|${columns.map(() => '---').join('|')}|`,
    ...[...rows].map(([row, results]) => `| ${row} | ${columns.map((column) => results.get(column) ?? '').join(' | ')} |`),
  ].join('\n');
}
