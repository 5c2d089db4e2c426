import type { LatestInbound } from '../domain/inbound-receipt';
import { shownReply } from '../domain/interactive-reply';
import type { Message } from '../domain/message';
import { isInsideServiceWindow, lastCustomerMessageOf } from '../domain/service-window';
import { isHumanOwned, SessionState, type Session } from '../domain/session';
import { addUsage, type TokenUsage } from '../domain/customer-budget';
import { newest, prefixThrough } from '../domain/turn';
import type { AgentMediaStore, AgentPort, AgentStages } from '../ports/agent';
import type { Clock, IdGenerator } from '../ports/clock';
import type {
  DemandRepository,
  InboundReceiptRepository,
  LegacyDebounceRepository,
  MessageRepository,
  OperationalConfigRepository,
  PendingWork,
  SessionRepository,
  TurnLedger,
  VersionedResourceRepository,
} from '../ports/repositories';
import type { WhatsAppSender } from '../ports/whatsapp-sender';
import { DrainLegacyDebounce } from './drain-legacy-debounce';
import { FailureNotice } from './failure-notice';
import { OutboxSettlement } from './outbox-settlement';
import { isStillLatest } from './still-latest';
import { type AgentAnswer, markReadTyping, type StoredConversation, TurnAgent, type TurnAgentDependencies } from './turn-agent';
import { TurnTraces } from './turn-trace';
import type { GateTrace } from '../ports/agent-tools';
import { TurnFailure, type TurnFailureDependencies } from './turn-failure';
import type { GateTurn, GateVerdict, TurnReportExtras, Unanswered } from './turn-gates/turn-gate';
import { type TurnGateDependencies, TurnGates } from './turn-gates/turn-gates';
import { TurnHistory, type TurnHistoryDependencies } from './turn-history';
import { TurnProgress } from './turn-progress';
import { type TurnAnswer, TurnResults } from './turn-results';
import { type AgentCallReport, DEFAULT_TURN_SETTINGS, type TurnOutcome, type TurnReport, type TurnSettings, withEarlierReply } from './turn-settings';

export type { TurnHandoffHooks } from './turn-failure';

export interface ProcessTurnDependencies extends TurnGateDependencies, TurnHistoryDependencies, TurnFailureDependencies, Pick<TurnAgentDependencies, 'checkpoints' | 'locale'> {
  /** The turn's reads and transactions across the customer's entities. */
  readonly ledger: TurnLedger;
  readonly receipts: InboundReceiptRepository;
  readonly legacy: LegacyDebounceRepository;
  readonly sessions: SessionRepository;
  readonly messages: MessageRepository;
  readonly demands: DemandRepository;
  readonly resources: VersionedResourceRepository;
  /** One agent, or the stages of `AgentBackend.stages()`. */
  readonly agent: AgentPort | AgentStages;
  readonly whatsapp: WhatsAppSender;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly settings?: Partial<TurnSettings>;
  /**
   * The system prompt set in the construct and the config store of its deployment marker: adopted
   * as the prompt resource's next version when a deployment changes it.
   * @default - none: the resource, else the default prompt
   */
  readonly deployedSystemPrompt?: { readonly text: string; readonly config: OperationalConfigRepository };
  /**
   * With stages, the prompt the construct set for each stage that has one, adopted as that stage's
   * prompt resource (`system.<stage>`) the same way.
   * @default - none: each stage's resource, else the default prompt
   */
  readonly deployedStagePrompts?: { readonly texts: Readonly<Record<string, string>>; readonly config: OperationalConfigRepository };
  /**
   * The media bucket: the agent reads the history's stored attachments from it (Bedrock's image and
   * document blocks, a function's presigned URLs).
   * @default - none: attachments are described in text
   */
  readonly mediaStore?: AgentMediaStore;
}

export interface TurnRequest {
  readonly customerId: string;
  /** Epoch milliseconds at which the invocation is cut off. */
  readonly deadline: number;
  /** The record will go to the dead-letter queue if this attempt fails. */
  readonly finalAttempt?: boolean;
}

/** What a turn read before deciding anything. */
interface TurnState extends PendingWork {
  readonly latest?: LatestInbound;
  /** That session's stored history (of the session the ACTIVE pointer names), asked for alongside when the agent was likely to be asked. */
  readonly storedHistory?: Promise<Message[]>;
}

/** An answer as the turn ends with it: written, then settled and reported. */
interface Conclusion extends TurnAnswer {
  /** The agent's call, for an answer of the agent's. */
  readonly call?: AgentAnswer['call'];
  /** The agent stopped between its tool rounds for a newer message: nothing to write, the turn ends superseded. */
  readonly obsolete?: boolean;
  /** The model tokens to count against the budgets once the result is written. */
  readonly usage?: TokenUsage;
  /** How a written answer without a reply ends. */
  readonly outcome?: TurnOutcome;
  readonly onAnswered?: () => Promise<void>;
  readonly report?: TurnReportExtras;
}

/**
 * The orchestrator's use case (docs/DESIGN.md#turn-protocol): drains a customer's pending messages
 * in registration order, asks the agent once for all of them, and lets the newest message win. The
 * reply is persisted in the outbox before it is sent, so a failed send is retried without calling
 * the agent again, and a reply that a newer message or a human takeover made obsolete is marked
 * superseded, never sent. What may answer instead of the agent are the turn's gates
 * (turn-gates/), asked in order.
 */
export class ProcessTurn {
  private readonly legacy: DrainLegacyDebounce;
  private readonly turnAgent: TurnAgent;
  private readonly outbox: OutboxSettlement;
  private readonly results: TurnResults;
  private readonly history: TurnHistory;
  private readonly gates: TurnGates;
  private readonly failure: TurnFailure;
  private readonly traces: TurnTraces;

  constructor(private readonly deps: ProcessTurnDependencies) {
    const settings = { ...DEFAULT_TURN_SETTINGS, ...deps.settings };
    this.legacy = new DrainLegacyDebounce(deps);
    this.turnAgent = new TurnAgent(deps, settings);
    this.outbox = new OutboxSettlement(deps);
    this.results = new TurnResults(deps, this.outbox);
    this.history = new TurnHistory(deps);
    this.gates = new TurnGates(deps, settings.unsupportedMessageText, { settleMs: settings.burstSettleMs, pollMs: settings.burstSettlePollMs, deliveryReserveMs: settings.deliveryReserveMs });
    this.failure = new TurnFailure(deps, this.results, new FailureNotice(deps), settings.fallbackText);
    this.traces = new TurnTraces(deps.checkpoints, deps.clock);
  }

  async execute(request: TurnRequest): Promise<TurnReport> {
    const { customerId } = request;
    let state = await this.readState(customerId);
    // Only a turn that finds nothing pending looks for what an older deployment left; a turn that
    // returns the legacy reply below always read it here (it had nothing pending at first).
    const leftover = state.pending.length === 0 ? await this.legacy.find(customerId) : {};
    if (await this.legacy.migrateBuffer(customerId, leftover.buffer)) state = await this.readState(customerId);
    let settled: TurnReport | undefined;
    const { latest } = state;
    if (latest?.outbox !== undefined) {
      const drained = prefixThrough(state.pending, latest.outbox.replyToMessageId);
      settled = { outcome: await this.outbox.settle(latest, latest.outbox, drained, 'resent', { ...state, reply: state.outboxReply }), drained: drained.length };
      // Re-read: settling moved the history watermark past the old reply, which places newer messages.
      state = state.pending.length > drained.length ? await this.readState(customerId) : { ...state, pending: [] };
    }
    if (state.latest !== undefined && state.pending.length > 0) return withEarlierReply(await this.answerOrPark({ ...state, latest: state.latest }, request), settled);
    return settled ?? (await this.legacy.replayPendingReply(customerId, leftover.pendingReply));
  }

  /**
   * Steps 1 and 2 (docs/DESIGN.md#a-normal-turn-step-by-step): the marker and the ACTIVE pointer
   * together; then, together, the pending messages the marker lists, the session the pointer names,
   * the reply in the outbox, the customer's messaging consent and — when the agent is likely to be
   * asked — that session's history. Nothing is read past the marker when nothing waits.
   */
  private async readState(customerId: string): Promise<TurnState> {
    const { latest, activeSessionId, activeSessionState } = await this.deps.ledger.readMarker(customerId);
    if (latest === undefined || (latest.pendingMessageIds.length === 0 && latest.outbox === undefined)) return { latest, pending: [], optedOut: false };
    const agentLikelyAsked = activeSessionId !== undefined && latest.outbox === undefined && activeSessionState !== SessionState.CLOSED && !(activeSessionState && isHumanOwned(activeSessionState));
    const storedHistory = agentLikelyAsked ? this.turnAgent.storedHistory(customerId, activeSessionId, latest.pendingMessageIds.length) : undefined;
    // Awaited only if the agent is asked; a failure then surfaces there.
    storedHistory?.catch(() => undefined);
    return { latest, storedHistory, ...(await this.deps.ledger.readPending(latest, activeSessionId)) };
  }

  /** The pending messages answered; a failure is the failure path's to judge (turn-failure.ts): answered with the fallback, parked, or left to a retry. */
  private async answerOrPark(state: TurnState & { readonly latest: LatestInbound }, request: TurnRequest): Promise<TurnReport> {
    const progress = new TurnProgress(request.finalAttempt === true);
    try {
      return await this.answer(this.gateTurn(state, request.deadline), state, progress);
    } catch (error) {
      return this.failure.recover(error, state.pending, progress);
    }
  }

  /**
   * Steps 3 to 10 (docs/DESIGN.md#a-normal-turn-step-by-step): the gates before the history; the
   * session and the messages' append, with the gates that decide alongside those writes; then the
   * answer — a gate's, else the agent's — written under the latest-message guard and settled.
   */
  private async answer(turn: GateTurn, state: TurnState, progress: TurnProgress): Promise<TurnReport> {
    const trail: GateTrace[] = [];
    const early = await this.gates.verdict('before_history', turn, trail);
    if (early?.kind === 'unanswered') {
      if (early.appendTo !== undefined) await this.history.append(turn.pending, early.appendTo, progress.finalAttempt);
      return this.leaveUnanswered(turn, early);
    }
    const placement = this.history.sessionFor(turn.last, turn.session);
    const decided = early === undefined ? this.gates.verdict('with_history', { ...turn, session: placement.session }, trail) : Promise.resolve(early);
    // Awaited once the messages are in the history; a failure of those writes fails the turn first, and the retry counts nothing twice.
    decided.catch(() => undefined);
    const appended = await this.history.place(turn.pending, placement, progress.finalAttempt);
    progress.appended(placement.session);
    const verdict = await decided;
    if (verdict?.kind === 'unanswered') return this.leaveUnanswered(turn, verdict);
    const answer = verdict === undefined ? await this.askAgent(turn, state, placement.session, appended, progress) : gateAnswer(verdict);
    return this.conclude(turn, placement.session, answer, progress, trail);
  }

  /** Step 6 (`TurnAgent.ask`): the agent's answer to the messages, shown the stored history and the messages just appended. */
  private async askAgent(turn: GateTurn, state: TurnState, session: Session, appended: readonly Message[], progress: TurnProgress): Promise<Conclusion> {
    const { response, call, model, stage, memory } = await progress.askingAgent(() => this.turnAgent.ask(session, turn.last, turn.deadline, this.historyShown(state, session), appended, turn.pending, turn.showTyping));
    const fold = call.memoryFold?.outcome === 'folded' ? call.memoryFold : undefined;
    // The fold's tokens are the turn's: counted against the budgets with the agent's, and stored with the reply for the usage report.
    const usage = fold === undefined ? response.usage : addUsage(response.usage ?? { inputTokens: 0, outputTokens: 0 }, fold.usage);
    const memoryFold = fold && { model: fold.model, inputTokens: fold.usage.inputTokens, outputTokens: fold.usage.outputTokens };
    const llm = { model, latencyMs: call.latencyMs, ...response.usage, ...(memoryFold && { memoryFold }) };
    // Buttons or a list beyond WhatsApp's limits go as text: the customer still gets every option.
    const { text, interactive, outcome } = shownReply(response.reply, response.interactive);
    return { reply: text, interactive, actions: response.actions, stage, llm, knowledgeSources: response.knowledgeSources, memory, call: outcome === undefined ? call : { ...call, interactive: outcome }, obsolete: response.stopReason === 'superseded', usage };
  }

  /**
   * Steps 7 to 10 for `answer`: written under the latest-message guard (a lost condition: the
   * messages are completed, `superseded`), the tokens counted and the demands recorded alongside
   * the guard before sending, the reply settled through the outbox — or, without a reply, the
   * messages completed — and people told when the answer handed the conversation to them.
   */
  private async conclude(turn: GateTurn, found: Session, answer: Conclusion, progress: TurnProgress, trail: readonly GateTrace[]): Promise<TurnReport> {
    const { latest, pending, last } = turn;
    // Alongside the result's write: it adds a request, not a wait.
    const traced = this.traces.record(last, trail, answer.call && { call: answer.call, stage: answer.stage });
    const result = this.results.compose(last, found, answer);
    const persisted = await progress.writingResult(this.results.replyRef(result), async () => !answer.obsolete && (await this.results.persist(result, found, last)));
    // The read receipt went out alongside the agent call: awaited before anything is sent, so the customer's typing indicator never follows the reply.
    const agent: AgentCallReport | undefined = answer.call && { ...answer.call, readReceiptSent: await answer.call.readReceiptSent };
    await traced;
    // An agent's turn reports the pipeline's tokens as they are when it ends, its own counted.
    const report = (outcome: TurnOutcome): TurnReport => ({ outcome, drained: pending.length, ...(agent && { agent, pipelineTokensToday: this.deps.budget?.pipelineTokensToday }), ...answer.report });
    // After the result write: a failure of the token count retries the turn without calling the agent again.
    const usage = this.deps.budget?.recordUsage(latest.customerId, answer.usage);
    const { session, reply } = result;
    if (!persisted || reply === undefined) {
      await Promise.all([usage, this.results.complete(latest, pending)]);
      if (!persisted) return report('superseded');
      await this.toldOfHandoff(found, session);
      return report(answer.outcome ?? 'answered');
    }
    const outcome = await this.results.settle(session, reply, pending, [this.results.recordDemands(answer.actions, session, last), usage]);
    // Another record settled this outbox meanwhile; the receipts are completed by it.
    if (outcome === undefined) return report('superseded');
    // A lost mark (the budget's "told") only means the customer is told once more: the turn itself is done.
    if (outcome === 'answered') await answer.onAnswered?.().catch(() => undefined);
    await this.toldOfHandoff(found, session);
    return report(outcome);
  }

  /** A verdict that leaves the messages unanswered: they are completed, unless a newer message's turn will drain them. */
  private async leaveUnanswered(turn: GateTurn, verdict: Unanswered): Promise<TurnReport> {
    if (verdict.keepPending === true) return { outcome: verdict.outcome, drained: 0, ...verdict.report };
    await this.results.complete(turn.latest, turn.pending);
    return { outcome: verdict.outcome, drained: turn.pending.length, ...verdict.report };
  }

  /** People are told of a conversation the turn's result handed to them. */
  private async toldOfHandoff(found: Session, written: Session): Promise<void> {
    if (written.state === SessionState.AWAITING_HUMAN && found.state !== SessionState.AWAITING_HUMAN) await this.deps.handoffs?.onHandoff(written);
  }

  /** What the gates are asked about: what the turn read, its window and its deadline. */
  private gateTurn({ latest, pending, session, optedOut }: TurnState & { readonly latest: LatestInbound }, deadline: number): GateTurn {
    const last = newest(pending);
    const { whatsapp } = this.deps;
    let typing: Promise<boolean> | undefined;
    return {
      latest,
      pending,
      last,
      session,
      optedOut,
      // Free text no longer reaches a customer who last wrote more than 24 hours ago (a late redrive, a backlog).
      windowOpen: isInsideServiceWindow(lastCustomerMessageOf(latest.historyWatermark, pending), this.deps.clock.now()),
      deadline,
      stillLatest: () => isStillLatest(this.deps.receipts, last),
      showTyping: () => (typing ??= markReadTyping(whatsapp, last)),
    };
  }

  /**
   * What the agent is shown of the stored messages: the session's own history (none yet in a new
   * session) and, in a session opened after a close, the closed one's last messages as the earlier
   * conversation, so a customer back after the idle timeout is not greeted as a stranger. Only such
   * a session reads it: one more Query per turn, alongside the prompt.
   */
  private historyShown(state: TurnState, session: Session): StoredConversation {
    const history = session === state.session ? state.storedHistory : Promise.resolve([]);
    const { previousSessionId } = session;
    return { history, ...(previousSessionId === undefined ? {} : { earlier: this.turnAgent.earlierConversation(session.customerId, previousSessionId) }) };
  }
}

/** A gate's answer, as the turn ends with it. */
function gateAnswer(verdict: Exclude<GateVerdict, Unanswered>): Conclusion {
  return { ...verdict, actions: verdict.actions ?? [] };
}
