import { createHash } from 'node:crypto';
import type { ScriptedAgentOptions } from '../../../lambda/core/adapters/agent/scripted-agent';
import type { AgentRequest } from '../../../lambda/core/ports/agent';
import type { TurnSettings } from '../../../lambda/core/application/turn-settings';
import { SessionState } from '../../../lambda/core/domain/session';
import { FaultInjector, type FaultPlan } from '../../support/fault-injection';
import { businessEchoNotification, messageNotification, textNotification } from '../../support/webhook-events';
import { EventSourceDriver, MetaDeliveries, type DeliveryReport } from './drivers';
import { takeAll } from '../../support/inspect';
import { checkInvariants, evidenceOf, mergeEvidence, type InvariantReport, type SentMessage } from './invariants';
import { composeOrchestrator, composeWebhook, type OrchestratorUnderTest, type ReliabilityEnvironment, type WebhookUnderTest } from './pipeline-under-test';
import { newCustomer } from '../../support/ids';
import { OrderToolWorld } from './order-tool';

/** Which function the faults strike; the other one runs clean. */
export type Side = 'webhook' | 'orchestrator';

/**
 * One customer's story told to the pipeline: `setup` runs clean (its crossings are not counted),
 * `act` runs with the faults armed on one side.
 */
export interface Scenario {
  readonly name: string;
  readonly agent?: (run: ScenarioRun) => ScriptedAgentOptions;
  /** Turn settings of both orchestrators (e.g. the burst settle wait). */
  readonly settings?: Partial<TurnSettings>;
  /** A boundary the clean run must cross, so the matrix strikes it (e.g. the settle wait's read). */
  readonly crosses?: string;
  /** The agent calls the business's `create_order` tool (`newerMessage`: sent while the model makes its first call). */
  readonly orderTool?: { readonly newerMessage?: (run: ScenarioRun) => Promise<void> };
  setup?(run: ScenarioRun): Promise<void>;
  act(run: ScenarioRun): Promise<void>;
  /** Texts of the messages the agent must answer. Default: every message. */
  readonly answeredByAgent?: readonly string[];
  /** The story's own promises beyond the four invariants, checked once the run is over: its violations. */
  check?(run: ScenarioRun): Promise<string[]>;
}

export interface RunResult {
  readonly customer: string;
  readonly messages: readonly SentMessage[];
  readonly report: InvariantReport;
  readonly metaRetries: number;
  readonly redeliveries: number;
  readonly swallowedCrashes: number;
  readonly faultsFired: number;
  /** Boundary crossings of the armed side during `act`. */
  readonly crossings: readonly { readonly boundary: string; readonly occurrence: number }[];
}

interface FunctionPair {
  readonly webhook: WebhookUnderTest;
  readonly orchestrator: OrchestratorUnderTest;
  readonly meta: MetaDeliveries;
  readonly queue: EventSourceDriver;
}

/** The state of one scenario run: its customer, what was sent, and the clean and armed functions. */
export class ScenarioRun {
  readonly customer = newCustomer();
  readonly messages: SentMessage[] = [];
  /** Meta's timestamps have a resolution of one second: a burst shares it, as here. */
  private readonly providerSecond = Math.floor(Date.now() / 1000);
  readonly faults: FaultInjector;
  /** The order service and what the model read, when the scenario's agent uses the tool. */
  readonly orderTool = new OrderToolWorld();
  readonly clean: FunctionPair;
  readonly live: FunctionPair;
  private metaRetries = 0;
  private redeliveries = 0;
  private swallowedCrashes = 0;
  private echoes = 0;

  constructor(
    readonly env: ReliabilityEnvironment,
    readonly scenario: Scenario,
    readonly side: Side,
    plans: readonly FaultPlan[],
  ) {
    this.faults = new FaultInjector({ plans });
    const recorder = new FaultInjector();
    const agent = scenario.agent?.(this);
    this.clean = this.pair(new FaultInjector(), new FaultInjector(), undefined);
    this.live = side === 'webhook' ? this.pair(this.faults, recorder, agent) : this.pair(recorder, this.faults, agent);
  }

  private pair(webhookInjector: FaultInjector, orchestratorInjector: FaultInjector, agent: ScriptedAgentOptions | undefined): FunctionPair {
    const webhook = composeWebhook(this.env, webhookInjector);
    const { orderTool } = this.scenario;
    const newerMessage = orderTool?.newerMessage && (() => orderTool.newerMessage!(this));
    const orchestrator = composeOrchestrator(this.env, orchestratorInjector, { agent, settings: this.scenario.settings, ...(orderTool && { orderTool: { world: this.orderTool, newerMessage } }) });
    return { webhook, orchestrator, meta: new MetaDeliveries(webhook), queue: new EventSourceDriver(this.env, orchestrator) };
  }

  /** The customer sends one message (a notification Meta delivers until it is accepted), by default now; `ageSeconds` back-dates Meta's timestamp. */
  async send(text: string, through: FunctionPair = this.live, ageSeconds = 0): Promise<DeliveryReport> {
    return this.deliver(text, through, (id) => textNotification(this.customer, id, text, this.providerSecond - ageSeconds));
  }

  /**
   * The customer sends a photo with `caption` (the text the history keeps of it): `bytes`
   * registered on the fake Graph API, which End User Messaging reads too, under a fresh media id.
   */
  async sendPhoto(caption: string, image: { readonly bytes: Uint8Array; readonly mimeType: string }, through: FunctionPair = this.live): Promise<DeliveryReport> {
    const mediaId = `${this.customer}${this.messages.length + 1}`;
    this.env.fake.registerMedia(mediaId, image);
    const sha256 = createHash('sha256').update(image.bytes).digest('base64');
    const photo = { id: mediaId, mime_type: image.mimeType, sha256, caption };
    return this.deliver(caption, through, (id) => messageNotification(this.customer, { id, timestamp: String(this.providerSecond), type: 'image', image: photo }));
  }

  /** The customer sends a voice note (`audio/ogg`, recorded in WhatsApp); `text` is what the history keeps of it before its transcript. */
  async sendVoiceNote(text: string, bytes: Uint8Array, through: FunctionPair = this.live): Promise<DeliveryReport> {
    const mediaId = `${this.customer}${this.messages.length + 1}`;
    this.env.fake.registerMedia(mediaId, { bytes, mimeType: 'audio/ogg; codecs=opus' });
    const sha256 = createHash('sha256').update(bytes).digest('base64');
    const audio = { id: mediaId, mime_type: 'audio/ogg; codecs=opus', sha256, voice: true };
    return this.deliver(text, through, (id) => messageNotification(this.customer, { id, timestamp: String(this.providerSecond), type: 'audio', audio }));
  }

  /** A person of the business answers the customer from the WhatsApp Business app (Meta's echo, delivered until accepted). */
  async answerFromThePhone(text: string, through: FunctionPair = this.clean): Promise<void> {
    const report = await through.meta.deliver(businessEchoNotification(this.customer, `wamid.${this.customer}.echo${++this.echoes}`, text, this.providerSecond));
    if (!report.accepted) throw new Error(`Meta gave up on the echo "${text}": ${report.statuses.join(', ')}`);
  }

  private async deliver(text: string, through: FunctionPair, notification: (id: string) => string): Promise<DeliveryReport> {
    const id = `wamid.${this.customer}.${this.messages.length + 1}`;
    this.messages.push({ id, text });
    const report = await through.meta.deliver(notification(id));
    this.metaRetries += report.statuses.length - 1;
    this.swallowedCrashes += report.swallowedCrashes;
    if (!report.accepted) throw new Error(`Meta gave up on "${text}": ${report.statuses.join(', ')}`);
    return report;
  }

  /** The event source runs until the queue is empty. */
  async drain(through: FunctionPair = this.live): Promise<void> {
    const report = await through.queue.drain();
    this.redeliveries += report.redeliveries;
    this.swallowedCrashes += report.swallowedCrashes;
    if (report.exhausted) throw new Error(`the queue was still busy after ${report.invocations} invocations`);
  }

  /** An operator takes the conversation over (outside the pipeline's functions). */
  async humanTakesOver(): Promise<void> {
    const { sessions } = this.env.repositories;
    const session = (await sessions.getActive(this.customer))!;
    const waiting = await sessions.transitionState(session, session.state, SessionState.AWAITING_HUMAN);
    await sessions.transitionState(waiting, SessionState.AWAITING_HUMAN, SessionState.HUMAN_ACTIVE, { changes: { assignedTo: '5511900000000' } });
  }

  /** Every request the agent of either pair received, in call order per pair. */
  get agentRequests(): readonly AgentRequest[] {
    return [...this.clean.orchestrator.agent.requests, ...this.live.orchestrator.agent.requests];
  }

  idOf(text: string): string {
    return this.messages.find((message) => message.text === text)!.id;
  }

  async execute(): Promise<RunResult> {
    await this.scenario.setup?.(this);
    await this.scenario.act(this);
    const deadLettered = (await takeAll(this.env.deadLetterQueueUrl)).length;
    const evidence = mergeEvidence(...[this.clean, this.live].flatMap((pair) => [evidenceOf(pair.webhook), evidenceOf(pair.orchestrator)]));
    const answeredByAgent = this.scenario.answeredByAgent?.map((text) => this.idOf(text));
    const report = await checkInvariants(this.env, { customer: this.customer, messages: this.messages, answeredByAgent, deadLettered }, evidence);
    if (this.swallowedCrashes > 0) report.violations.push(`a crashed invocation reported success ${this.swallowedCrashes} time(s)`);
    report.violations.push(...((await this.scenario.check?.(this)) ?? []));
    return {
      customer: this.customer,
      messages: this.messages,
      report,
      metaRetries: this.metaRetries,
      redeliveries: this.redeliveries,
      swallowedCrashes: this.swallowedCrashes,
      faultsFired: this.faults.fired.length,
      crossings: this.faults.crossings.map(({ boundary, occurrence }) => ({ boundary, occurrence })),
    };
  }
}
