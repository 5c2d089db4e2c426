import type { AgentAction } from '../domain/agent-action';
import type { LatestInbound, OutboxEntry, PendingInbound } from '../domain/inbound-receipt';
import type { MessagingConsent } from './privacy/messaging-consent';
import type { InboundTurn } from '../domain/inbound-turn';
import { customerMessage, isVisibleToAgent, pendingSendMessage, type Message } from '../domain/message';
import { isHumanOwned, SessionState, type Session } from '../domain/session';
import { isoMicros, latestOf, nextMicrosecond } from '../domain/timestamps';
import { applyActions, completion, demandsOfTurn, completionsAfter, isStillDeliverable, newest, newestWithin, prefixThrough, qualificationAsText } from '../domain/turn';
import type { AgentPort, AgentResponse, ConversationEntry } from '../ports/agent';
import type { Clock, IdGenerator } from '../ports/clock';
import type {
  DemandRepository,
  InboundReceiptRepository,
  LegacyDebounceRepository,
  MessageRepository,
  OperationalConfigRepository,
  OutboundReply,
  SessionRepository,
  VersionedResourceRepository,
} from '../ports/repositories';
import { WhatsAppSendError, type SentTextMessage, type WhatsAppSender } from '../ports/whatsapp-sender';
import type { CustomerBudgetGate, OverBudget } from './customer-budget-gate';
import { DrainLegacyDebounce } from './drain-legacy-debounce';
import { ReplyDeliveryError } from './reply-delivery-error';
import { SystemPromptSource } from './system-prompt';
import { DEFAULT_TURN_SETTINGS, type AgentCallReport, type TurnOutcome, type TurnReport, type TurnSettings } from './turn-settings';

export interface ProcessTurnDependencies {
  readonly receipts: InboundReceiptRepository;
  readonly legacy: LegacyDebounceRepository;
  readonly sessions: SessionRepository;
  readonly messages: MessageRepository;
  readonly demands: DemandRepository;
  readonly resources: VersionedResourceRepository;
  readonly agent: AgentPort;
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
  /** Asked before anything else whether the turn is an operator's command (the operator plane). */
  readonly operatorCommands?: { handle(turn: InboundTurn): Promise<boolean> };
  /** Opt-out and back: confirms the words, and nothing else is sent while the customer is opted out. */
  readonly consent?: Pick<MessagingConsent, 'gate' | 'isOptedOut'>;
  /** Tells people about handoffs, and hands a conversation to them when the agent fails for good (the operator plane). */
  readonly handoffs?: TurnHandoffHooks;
  /** Counts each turn and its tokens against the customer's budget; a refused turn gets a short reply and no agent call. */
  readonly budget?: CustomerBudgetGate;
}

export interface TurnHandoffHooks {
  /** The turn moved the session to AWAITING_HUMAN (called after its reply was settled; never throws). */
  onHandoff(session: Session): Promise<void>;
  /** The final attempt failed before a result was written; `true` when the conversation went to people. */
  onFinalFailure(customerId: string, pending: readonly PendingInbound[]): Promise<boolean>;
}

export interface TurnRequest {
  readonly customerId: string;
  /** Epoch milliseconds at which the invocation is cut off. */
  readonly deadline: number;
  /** The record will go to the dead-letter queue if this attempt fails. */
  readonly finalAttempt?: boolean;
}

/** How far a turn got: before its result write, during it (outcome unknown if it failed), or past it. */
interface TurnProgress {
  writeAttempted: boolean;
  resultWritten: boolean;
}

/**
 * The orchestrator's use case (docs/DESIGN.md#turn-protocol): drains a customer's pending messages
 * in registration order, asks the agent once for all of them, and lets the newest message win. The
 * reply is persisted in the outbox before it is sent, so a failed send is retried without calling
 * the agent again, and a reply that a newer message or a human takeover made obsolete is marked
 * superseded, never sent.
 */
export class ProcessTurn {
  private readonly settings: TurnSettings;
  private readonly systemPrompt: SystemPromptSource;
  private readonly legacy: DrainLegacyDebounce;

  constructor(private readonly deps: ProcessTurnDependencies) {
    this.settings = { ...DEFAULT_TURN_SETTINGS, ...deps.settings };
    this.systemPrompt = new SystemPromptSource(deps.resources, deps.clock, this.settings, deps.deployedSystemPrompt);
    this.legacy = new DrainLegacyDebounce(deps);
  }

  async execute(request: TurnRequest): Promise<TurnReport> {
    const { customerId } = request;
    let { latest, pending } = await this.readPending(customerId);
    if (pending.length === 0 && (await this.legacy.migrateBuffer(customerId))) ({ latest, pending } = await this.readPending(customerId));
    let settled: TurnReport | undefined;
    if (latest?.outbox !== undefined) {
      const drained = prefixThrough(pending, latest.outbox.replyToMessageId);
      settled = { outcome: await this.settleOutbox(latest, latest.outbox, drained, 'resent'), drained: drained.length };
      // Re-read: settling moved the history watermark past the old reply, which places newer messages.
      if (pending.length > drained.length) ({ latest, pending } = await this.readPending(customerId));
      else pending = [];
    }
    if (latest !== undefined && pending.length > 0) return this.answerOrPark(latest, pending, request);
    return settled ?? (await this.legacy.replayPendingReply(customerId));
  }

  /** The latest-inbound marker and the pending messages read from that same marker. */
  private async readPending(customerId: string): Promise<{ latest?: LatestInbound; pending: PendingInbound[] }> {
    const latest = await this.deps.receipts.getLatest(customerId);
    return { latest, pending: latest === undefined ? [] : await this.deps.receipts.pendingInbounds(customerId, latest) };
  }

  /**
   * On the record's last delivery attempt, a failure parks the drained messages (dead-lettered and
   * hidden from the agent) before the record goes to the DLQ, so one poisonous message cannot fail
   * every later turn of the customer. A failure after the turn's result was written needs no
   * parking — a failed send included: the reply waits in the outbox (or a newer message's turn
   * takes the messages over) and whatever runs next settles it. Parking then would hide messages
   * that were answered, and a redrive would ask the agent to answer them again.
   */
  private async answerOrPark(latest: LatestInbound, pending: PendingInbound[], request: TurnRequest): Promise<TurnReport> {
    const progress: TurnProgress = { writeAttempted: false, resultWritten: false };
    try {
      return await this.answer(latest, pending, request.deadline, progress);
    } catch (error) {
      if (request.finalAttempt && !(await this.resultWritten(progress, latest.customerId, newest(pending)))) {
        // A handled technical handoff is a success: the record is not retried or dead-lettered.
        if (await this.deps.handoffs?.onFinalFailure(latest.customerId, pending).catch(() => false)) {
          await this.deps.receipts.markCompleted(...pending.map(completion));
          return { outcome: 'handed_off', drained: pending.length };
        }
        await this.park(pending).catch(() => undefined);
      }
      throw error;
    }
  }

  /**
   * Whether the turn's result is written. A write that failed may have been applied anyway (DynamoDB
   * can commit a transaction and still answer an error): then the marker shows this turn's reply in
   * the outbox. When even that cannot be read, the messages are left unparked — on the pending list
   * they are answered later; parked by mistake they would be answered twice.
   */
  private async resultWritten(progress: TurnProgress, customerId: string, last: PendingInbound): Promise<boolean> {
    if (progress.resultWritten || !progress.writeAttempted) return progress.resultWritten;
    const latest = await this.deps.receipts.getLatest(customerId).catch(() => undefined);
    return latest === undefined || latest.outbox?.replyToMessageId === last.messageId;
  }

  private async park(pending: readonly PendingInbound[]): Promise<void> {
    await this.deps.receipts.markDeadLettered(...pending.map(completion));
  }

  private async answer(latest: LatestInbound, pending: PendingInbound[], deadline: number, progress: TurnProgress): Promise<TurnReport> {
    const { customerId } = latest;
    const last = newest(pending);
    if (await this.deps.operatorCommands?.handle(last)) {
      await this.deps.receipts.markCompleted(...pending.map(completion));
      return { outcome: 'operator_command', drained: pending.length };
    }
    if (((await this.deps.consent?.gate(last)) ?? 'answer') !== 'answer') {
      await this.deps.receipts.markCompleted(...pending.map(completion));
      return { outcome: 'consent', drained: pending.length };
    }
    const active = await this.deps.sessions.getActive(customerId);
    if (active !== undefined && isHumanOwned(active.state)) {
      // A human took the conversation after these messages were routed to the agent.
      await this.appendInbound(pending, active);
      await this.deps.receipts.markCompleted(...pending.map(completion));
      return { outcome: 'human_owned', drained: pending.length };
    }
    const session = active === undefined || active.state === SessionState.CLOSED ? await this.openSession(last) : active;
    await this.appendInbound(pending, session);
    if (latest.latestMessageId !== last.messageId) {
      // A newer message was already consumed (e.g. these were redriven from the DLQ after it was
      // answered): any reply would lose the latest-message guard, so the agent is not even asked.
      await this.deps.receipts.markCompleted(...pending.map(completion));
      return { outcome: 'superseded', drained: pending.length };
    }

    const overBudget = await this.deps.budget?.admit(customerId);
    const { response, agent } = overBudget === undefined ? await this.askAgent(session, last, deadline) : { response: overBudgetResponse(overBudget), agent: undefined };

    // The conditional write below IS the latest-message guard: it persists the session and the
    // reply only if this turn's last message is still the latest and pointer and state are as found.
    // Never before the messages it answers, whatever the provider's clock said.
    const replyAt = latestOf(isoMicros(this.deps.clock.now()), nextMicrosecond(last.historyTimestamp));
    const updated = applyActions({ ...session, businessPhoneNumberId: last.businessPhoneNumberId, customerIdKind: last.customerIdKind }, response.actions, replyAt);
    const reply: OutboundReply = {
      messageId: this.deps.ids.newId(),
      text: response.reply,
      replyToMessageId: last.messageId,
      createdAt: replyAt,
      ...(agent === undefined ? { role: 'system' } : { llm: { latencyMs: agent.latencyMs, ...response.usage } }),
    };
    progress.writeAttempted = true;
    const persisted = await this.deps.sessions.tryPutAgentResult({
      session: updated,
      expectedState: session.state,
      expectedLatestMessageId: last.messageId,
      expectedActiveSessionId: undefined,
      reply,
    });
    progress.resultWritten = true;
    // After the result write: a failure here retries the turn without calling the agent again.
    await this.deps.budget?.recordUsage(customerId, response.usage);
    const report = { drained: pending.length, agent, overBudget: overBudget?.limit };
    if (!persisted) {
      await this.deps.receipts.markCompleted(...pending.map(completion));
      return { outcome: 'superseded', ...report };
    }
    await this.recordDemands(response.actions, updated, last);

    // The guard before sending reads the marker again: a newer message may have arrived meanwhile.
    const current = await this.deps.receipts.getLatest(customerId);
    const outbox = current?.outbox;
    if (current === undefined || outbox === undefined || outbox.replyToMessageId !== last.messageId) {
      // Another record settled this outbox meanwhile; the receipts are completed by it.
      return { outcome: 'superseded', ...report };
    }
    const outcome = await this.settleOutbox(current, outbox, pending, 'answered', pendingSendMessage(updated, reply));
    if (updated.state === SessionState.AWAITING_HUMAN && session.state !== SessionState.AWAITING_HUMAN) await this.deps.handoffs?.onHandoff(updated);
    return { outcome, ...report };
  }

  private async askAgent(session: Session, last: PendingInbound, deadline: number): Promise<{ response: AgentResponse; agent: AgentCallReport }> {
    // Blue ticks and a typing indicator while the agent thinks: best effort, alongside the agent
    // call, so it adds no latency and its failure never fails the turn.
    const readReceipt = this.deps.whatsapp.markAsRead({ businessPhoneNumberId: last.businessPhoneNumberId, messageId: last.messageId, showTypingIndicator: true }).then(
      () => true,
      () => false,
    );
    const agentStarted = this.deps.clock.now().getTime();
    const response = await this.deps.agent.respond({
      systemPrompt: await this.systemPrompt.current(),
      history: await this.conversation(session),
      session: { sessionId: session.sessionId, customerId: session.customerId, state: session.state, qualificationData: qualificationAsText(session.qualificationData) },
      deadline: deadline - this.settings.deliveryReserveMs,
      maxIterations: this.settings.maxAgentIterations,
    });
    const agent: AgentCallReport = { iterations: response.iterations, latencyMs: this.deps.clock.now().getTime() - agentStarted, stopReason: response.stopReason, readReceiptSent: await readReceipt, usage: response.usage };
    return { response, agent };
  }

  /**
   * Sends or supersedes the persisted reply, then completes the messages it answered and clears the
   * outbox. Runs right after a persist and again on every retry of the record, so each step checks
   * what an earlier attempt already did.
   */
  private async settleOutbox(
    latest: LatestInbound,
    outbox: OutboxEntry,
    answered: readonly PendingInbound[],
    sentOutcome: 'answered' | 'resent',
    knownReply?: Message,
  ): Promise<TurnOutcome> {
    const reply = knownReply ?? (await this.deps.messages.getOutbound(outbox.ref));
    let outcome: TurnOutcome = 'superseded';
    if (reply?.deliveryStatus === 'sent') outcome = sentOutcome;
    else if (reply?.deliveryStatus === 'failed_permanent') outcome = 'failed_permanent';
    else if (reply?.deliveryStatus === 'pending_send') {
      const session = await this.deps.sessions.getActive(latest.customerId);
      // An opt-out that arrived while the agent was thinking stops the reply too.
      if (session !== undefined && isStillDeliverable(latest, outbox, reply, session) && !(await this.deps.consent?.isOptedOut(latest.customerId))) {
        outcome = (await this.deliver(outbox, reply, session)) ? sentOutcome : 'failed_permanent';
      } else {
        await this.deps.messages.markSuperseded(outbox.ref);
      }
    }
    await this.deps.receipts.markCompleted(...completionsAfter(answered, reply?.timestamp));
    await this.deps.receipts.clearOutbox(outbox.ref);
    return outcome;
  }

  /** `true` when sent; `false` when WhatsApp refused it for good. Throws ReplyDeliveryError to retry. */
  private async deliver(outbox: OutboxEntry, reply: Message, session: Session): Promise<boolean> {
    let sent: SentTextMessage;
    try {
      sent = await this.deps.whatsapp.sendText({
        businessPhoneNumberId: session.businessPhoneNumberId ?? '',
        customerId: session.customerId,
        customerIdKind: session.customerIdKind ?? 'phone',
        text: reply.text,
      });
    } catch (error) {
      if (error instanceof WhatsAppSendError && !error.retryable) {
        await this.deps.messages.markFailedPermanent(outbox.ref, `${error.category}${error.code === undefined ? '' : `:${error.code}`}`);
        return false;
      }
      throw new ReplyDeliveryError(error as Error);
    }
    try {
      await this.deps.messages.markOutboundSent(outbox.ref, sent.providerMessageId, isoMicros(this.deps.clock.now()));
    } catch (error) {
      // The customer has the reply, but the table still says pending_send: the retry sends it again.
      throw new ReplyDeliveryError(error as Error, { acceptedButUnrecorded: true });
    }
    return true;
  }

  private async openSession(first: InboundTurn): Promise<Session> {
    const now = isoMicros(this.deps.clock.now());
    const session: Session = {
      sessionId: this.deps.ids.newId(),
      customerId: first.customerId,
      customerIdKind: first.customerIdKind,
      businessPhoneNumberId: first.businessPhoneNumberId,
      state: SessionState.NEW,
      qualificationData: {},
      cadastralData: {},
      handoffRenotifyCount: 0,
      createdAt: now,
      updatedAt: now,
    };
    // Persisted at once so the messages appended next belong to a session the next turn will find,
    // even if this turn is superseded. Turns of one customer never overlap (one FIFO group).
    await this.deps.sessions.put(session);
    return session;
  }

  private async appendInbound(pending: readonly PendingInbound[], session: Session): Promise<void> {
    await Promise.all(pending.map((turn) => this.deps.messages.append(customerMessage(turn, session.sessionId, turn.historyTimestamp))));
  }

  private async conversation(session: Session): Promise<ConversationEntry[]> {
    const history = await this.deps.messages.historyForSession(session.customerId, session.sessionId, this.settings.historyLimit);
    const entries = history.filter(isVisibleToAgent).map((message): ConversationEntry => ({ role: message.role === 'user' ? 'customer' : 'assistant', text: message.text, at: message.timestamp }));
    return newestWithin(entries, this.settings.historyMaxCharacters);
  }

  /** After the persist, so a superseded turn leaves no demand behind; keyed by source message for retries. */
  private async recordDemands(actions: readonly AgentAction[], session: Session, last: PendingInbound): Promise<void> {
    const demands = demandsOfTurn(actions);
    await Promise.all(
      demands.map((demand, index) =>
        this.deps.demands.record({
          demandId: this.deps.ids.newId(),
          sourceMessageId: index === 0 ? last.messageId : `${last.messageId}#${index}`,
          customerId: session.customerId,
          sessionId: session.sessionId,
          requestedService: demand.requestedService,
          originalMessage: last.text,
          estimatedSegment: demand.estimatedSegment,
          businessPhoneNumberId: last.businessPhoneNumberId,
          recordedAt: isoMicros(this.deps.clock.now()),
        }),
      ),
    );
  }
}

/** What a refused turn persists and sends in place of the agent's answer: the budget's reply, no actions. */
function overBudgetResponse(overBudget: OverBudget): AgentResponse {
  return { reply: overBudget.reply, actions: [], iterations: 0, stopReason: 'completed' };
}
