/**
 * A run of the whole pipeline whose interleaving a fast-check scheduler decides. Every remote call
 * of both functions is a step, and so is every webhook delivery and every poll of the event source. The driver releases one step at a time, and only once nothing is in flight, so a
 * schedule is reproducible from its seed and shrinks to a minimal one — while every call still
 * goes to DynamoDB Local, the SQS emulator and the fake Graph API.
 */
import type fc from 'fast-check';
import { FaultInjector, type FaultPlan } from '../../support/fault-injection';
import { EventSourceDriver, MetaDeliveries, type DeliveryReport } from './drivers';
import { takeAll } from '../../support/inspect';
import { checkInboundInvariants, checkInvariants, evidenceOf, mergeEvidence, type SentMessage } from './invariants';
import { composeOrchestrator, composeWebhook, type OrchestratorUnderTest, type ReliabilityEnvironment, type WebhookUnderTest } from './pipeline-under-test';
import { newCustomer } from '../../support/ids';
import { SignedSqs } from '../../../lambda/core/adapters/sqs/sqs-api';
import { redrive } from './redrive';
import { textNotification } from '../../support/webhook-events';

export interface MessagePlan {
  /** How many times Meta delivers it (more than once: duplicates). */
  readonly deliveries: number;
  /**
   * When the first delivery starts: after a number of steps (spreading arrivals over the run), or
   * right after a given remote call of the orchestrator — exactly inside one of a turn's windows
   * (if the turn never makes that call, the message arrives once everything else is idle).
   */
  readonly arrival: Arrival;
  /** Seconds added to the provider timestamp: ties and regressions happen in real life. */
  readonly clockSkew: number;
}

export type Arrival = number | { readonly after: string; readonly occurrence: number };

export interface CustomerPlan {
  readonly messages: readonly MessagePlan[];
}

export interface RunPlan {
  readonly customers: readonly CustomerPlan[];
  /** `false`: only the webhook runs; the queued turns are checked instead of processed. */
  readonly turns: boolean;
  /**
   * Once the scheduled part is over (the faults stop), an operator redrives the DLQ and the queue
   * is drained again. Without it, a record in the DLQ breaks the run.
   */
  readonly redrive?: boolean;
  readonly faults: readonly FaultPlan[];
  /** Steps each agent call takes, in call order (cycled): the window in which newer messages arrive. */
  readonly agentLatency: readonly number[];
}

export interface ScheduledRunResult {
  /** Every broken invariant, prefixed with the customer (or `meta`, `dlq`). */
  readonly violations: readonly string[];
  /** Scheduler steps the run took. */
  readonly steps: number;
}

/** Counts changes that may have put work in the queue; a waiter wakes on the first change after what it saw. */
class Wakeup {
  private waiters: (() => void)[] = [];
  generation = 0;

  after(seen: number): Promise<void> {
    return this.generation > seen ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }

  notify(): void {
    this.generation++;
    const waiters = this.waiters;
    this.waiters = [];
    waiters.forEach((resolve) => resolve());
  }
}

/** A promise settled from outside. */
class Signal {
  readonly fired: Promise<void>;
  fire!: () => void;

  constructor() {
    this.fired = new Promise((resolve) => (this.fire = resolve));
  }
}

const macrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

export class ScheduledRun {
  readonly injector: FaultInjector;
  private readonly webhook: WebhookUnderTest;
  private readonly orchestrator: OrchestratorUnderTest;
  private readonly queue: EventSourceDriver;
  private readonly meta: MetaDeliveries;
  private readonly wakeup = new Wakeup();
  private readonly invocations = new Set<Promise<void>>();
  /** Functions that ran after the scheduled part (the redrive's turns). */
  private readonly afterwards: OrchestratorUnderTest[] = [];
  /** Messages waiting for a remote call that may never come; released one by one when all is idle. */
  private readonly pendingArrivals: Signal[] = [];
  private readonly sent = new Map<string, SentMessage[]>();
  private deliveriesDone = false;
  private agentCalls = 0;
  private released = 0;

  constructor(
    private readonly env: ReliabilityEnvironment,
    private readonly plan: RunPlan,
    private readonly scheduler: fc.Scheduler,
  ) {
    // A step before each remote call. A step after it would add no observable interleaving: what
    // the caller does between the answer and its next remote call, nobody else can see.
    this.injector = new FaultInjector({ plans: plan.faults, interleave: (point) => (point.phase === 'before' ? this.beforeCall(point.boundary, point.invocation) : Promise.resolve()) });
    this.webhook = composeWebhook(env, this.injector);
    this.orchestrator = composeOrchestrator(env, this.injector);
    this.queue = new EventSourceDriver(env, this.orchestrator);
    this.meta = new MetaDeliveries(this.webhook);
  }

  private step(label: string): Promise<void> {
    return this.scheduler.schedule(Promise.resolve(), label).then(() => undefined);
  }

  private async steps(count: number, label: string): Promise<void> {
    for (let step = 0; step < count; step++) await this.step(label);
  }

  /** The agent has no side effects: its latency is steps others take before it answers. */
  private async beforeCall(boundary: string, invocation: string | undefined): Promise<void> {
    if (boundary === 'agent.respond') {
      const { agentLatency } = this.plan;
      await this.steps(agentLatency.length === 0 ? 0 : agentLatency[this.agentCalls++ % agentLatency.length], `${invocation}: agent thinking`);
    }
    await this.step(`${invocation ?? 'event source'}: ${boundary}`);
  }

  async execute(): Promise<ScheduledRunResult> {
    const second = Math.floor(Date.now() / 1000);
    const deliveries = this.plan.customers.flatMap(({ messages }) => {
      const customer = newCustomer();
      const sent = messages.map((_, index) => ({ id: `wamid.${customer}.${index + 1}`, text: `m${index + 1}` }));
      this.sent.set(customer, sent);
      return messages.flatMap((message, index) =>
        Array.from({ length: message.deliveries }, (_, copy) => ({
          label: `${customer} ${sent[index].text} #${copy + 1}`,
          arrival: copy === 0 ? message.arrival : 0,
          body: textNotification(customer, sent[index].id, sent[index].text, second + message.clockSkew),
        })),
      );
    });

    const reports: DeliveryReport[] = [];
    const delivering = Promise.all(
      deliveries.map(async ({ label, arrival, body }) => {
        const delivered = new Signal();
        if (typeof arrival === 'number') await this.steps(arrival, `meta: ${label} not sent yet`);
        else {
          // The turn making that call waits until the message is registered, then goes on.
          const arrived = new Signal();
          this.pendingArrivals.push(arrived);
          this.injector.hook({ boundary: arrival.after, occurrence: arrival.occurrence, phase: 'after', action: () => (arrived.fire(), delivered.fired) });
          await arrived.fired;
        }
        await this.step(`meta: deliver ${label}`);
        reports.push(await this.meta.deliver(body, 10));
        delivered.fire();
        this.wakeup.notify();
      }),
    ).finally(() => {
      this.deliveriesDone = true;
      this.wakeup.notify();
    });
    await this.runToCompletion(Promise.all([delivering, this.plan.turns ? this.poll() : undefined]).then(() => undefined));

    const evidence = mergeEvidence(evidenceOf(this.webhook), evidenceOf(this.orchestrator));
    const violations = new Map<string, string[]>();
    const unaccepted = reports.filter((report) => !report.accepted).length;
    if (unaccepted > 0) violations.set('meta', [`${unaccepted} deliveries never got a 200`]);
    if (this.plan.turns) {
      const parked = this.plan.redrive ? await this.redriveAfterTheFaults(violations) : new Map<string, string[]>();
      const deadLettered = (await takeAll(this.env.deadLetterQueueUrl)).length;
      if (deadLettered > 0) violations.set('dlq', [`${deadLettered} record(s) in the DLQ`]);
      const all = mergeEvidence(evidence, ...this.afterwards.map(evidenceOf));
      for (const [customer, messages] of this.sent) {
        violations.set(customer, (await checkInvariants(this.env, { customer, messages, parked: parked.get(customer) }, all)).violations);
      }
    } else {
      const queued = (await takeAll(this.env.turnQueueUrl)).map((message) => JSON.parse(message.Body!) as { phone_number: string; message_id: string });
      for (const [customer, messages] of this.sent) {
        const ids = queued.filter((body) => body.phone_number === customer).map((body) => body.message_id);
        violations.set(customer, await checkInboundInvariants(this.env, { customer, messages }, ids, evidence));
      }
    }
    return { violations: [...violations].flatMap(([who, found]) => found.map((violation) => `${who}: ${violation}`)), steps: this.released };
  }

  /**
   * The operator's redrive of whatever reached the DLQ, then the queue drained by a fault-free
   * orchestrator. Returns the messages each customer had parked.
   */
  private async redriveAfterTheFaults(violations: Map<string, string[]>): Promise<Map<string, string[]>> {
    const { env } = this;
    const outcomes = await redrive({ ...env, sqs: new SignedSqs() });
    const unusual = outcomes.filter(({ action }) => action === 'held').map(({ inspection }) => `a DLQ record needed a confirmation: ${inspection.reasons.join(' ')}`);
    if (unusual.length > 0) violations.set('redrive', unusual);
    const parked = new Map<string, string[]>();
    for (const { inspection } of outcomes) {
      const ids = inspection.parked.map((message) => message.messageId);
      if (inspection.customer !== undefined) parked.set(inspection.customer, [...(parked.get(inspection.customer) ?? []), ...ids]);
    }
    const orchestrator = composeOrchestrator(env, new FaultInjector());
    this.afterwards.push(orchestrator);
    const drained = await new EventSourceDriver(env, orchestrator).drain(50);
    if (drained.exhausted) violations.set('redrive', [...(violations.get('redrive') ?? []), 'the queue was still busy after the redrive']);
    return parked;
  }

  /** The event source: receives while there may be work, one invocation per record, groups in parallel. */
  private async poll(): Promise<void> {
    for (;;) {
      await this.step('event source: receive');
      const seen = this.wakeup.generation;
      const message = await this.queue.receive();
      if (message !== undefined) {
        const invocation = this.queue.process(message).then(() => {
          this.invocations.delete(invocation);
          this.wakeup.notify();
        });
        this.invocations.add(invocation);
        continue;
      }
      if (this.deliveriesDone && this.invocations.size === 0) return;
      await this.wakeup.after(seen);
    }
  }

  /** Releases one scheduled step at a time, each once nothing is in flight any more. */
  private async runToCompletion(work: Promise<void>): Promise<void> {
    let finished = false;
    let failure: unknown;
    work.then(
      () => (finished = true),
      (error: unknown) => ((finished = true), (failure = error)),
    );
    while (!finished) {
      // Idle, then one macrotask for the continuations to reach their next step (or start a call).
      do {
        await this.injector.idle();
        await macrotask();
      } while (this.injector.inFlight > 0);
      if (finished) break;
      if (this.scheduler.count() === 0) {
        const arrival = this.pendingArrivals.shift();
        if (arrival === undefined) throw new Error(`the run is stuck: nothing scheduled, nothing in flight\n${String(this.scheduler)}`);
        arrival.fire();
        continue;
      }
      this.released++;
      await this.scheduler.waitNext(1);
    }
    if (failure !== undefined) throw failure;
  }
}
