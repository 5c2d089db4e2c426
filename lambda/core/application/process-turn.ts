import { isoMicros, latestOf, nextMicrosecond, toEpochMicros, type IsoTimestamp } from '../domain/timestamps';
import type { InboundTurn } from '../domain/inbound-turn';
import type { LatestInbound, OutboxEntry, PendingInbound } from '../domain/inbound-receipt';
import { customerMessage, isVisibleToAgent, pendingSendMessage, type Message } from '../domain/message';
import { isHumanOwned, isLegalTransition, SessionState, transitionSession, type Session } from '../domain/session';
import type { AgentAction, AgentPort, AgentResponse, ConversationEntry } from '../ports/agent';
import type { Clock, IdGenerator } from '../ports/clock';
import type {
  CompletedInbound,
  DemandRepository,
  InboundReceiptRepository,
  MessageRepository,
  OutboundReply,
  SessionRepository,
  VersionedResourceRepository,
} from '../ports/repositories';
import { WhatsAppSendError, type SentTextMessage, type WhatsAppSender } from '../ports/whatsapp-sender';

/**
 * - `answered`: the agent's reply was persisted and sent;
 * - `resent`: a reply persisted by an earlier attempt was sent, without calling the agent again;
 * - `superseded`: a newer message or a human takeover made the turn's reply obsolete; nothing sent;
 * - `human_owned`: a human owns the session; the messages went to their inbox, the agent was not called;
 * - `failed_permanent`: WhatsApp refused the reply for good (e.g. the 24-hour window closed);
 * - `noop`: nothing was pending (a duplicate delivery, or a turn another record already consumed);
 * - `operator_command`: an operator's `login` was answered with a console link; no session, no agent;
 * - `handed_off`: the agent failed for good; the customer got the fallback text and people have the conversation.
 */
export type TurnOutcome = 'answered' | 'resent' | 'superseded' | 'human_owned' | 'failed_permanent' | 'noop' | 'operator_command' | 'handed_off';

export interface AgentCallReport {
  readonly iterations: number;
  readonly latencyMs: number;
  readonly stopReason: AgentResponse['stopReason'];
  /** Whether the customer's message was marked read (with a typing indicator) while the agent ran. */
  readonly readReceiptSent: boolean;
}

export interface TurnReport {
  readonly outcome: TurnOutcome;
  /** Customer messages this turn consumed. */
  readonly drained: number;
  /** Present when the agent was called. */
  readonly agent?: AgentCallReport;
}

/**
 * The reply is persisted but could not be sent now (WhatsApp unavailable, rate limited, or the
 * outcome of the send is unknown). The SQS record must be retried: the retry re-sends the persisted
 * reply without calling the agent again.
 */
export class ReplyDeliveryError extends Error {
  override readonly name = 'ReplyDeliveryError';
  /**
   * WhatsApp may have accepted the message although no answer arrived (a timeout), or accepted it
   * but recording that failed: the retry will send it again, and the customer may see it twice.
   * Counted, so it shows on the dashboards.
   */
  readonly outcomeUnknown: boolean;

  constructor(
    readonly cause: WhatsAppSendError | Error,
    options: { readonly acceptedButUnrecorded?: boolean } = {},
  ) {
    super(`reply delivery failed: ${cause.message}`, { cause });
    this.outcomeUnknown = options.acceptedButUnrecorded === true || (cause instanceof WhatsAppSendError && cause.outcomeUnknown);
  }
}

export interface TurnSettings {
  /** Model round trips per turn. */
  readonly maxAgentIterations: number;
  /** Time kept back from the invocation deadline for persisting and sending the reply. */
  readonly deliveryReserveMs: number;
  /** Messages of the session the agent is shown. */
  readonly historyLimit: number;
  /** Used when no active prompt resource exists. */
  readonly defaultSystemPrompt: string;
  /** The admin resource holding the system prompt. */
  readonly promptResource: { readonly type: string; readonly id: string };
  /** How long a process reuses the prompt it read. */
  readonly promptCacheMs: number;
}

export const DEFAULT_TURN_SETTINGS: TurnSettings = {
  maxAgentIterations: 10,
  deliveryReserveMs: 15_000,
  historyLimit: 50,
  defaultSystemPrompt:
    'You are the WhatsApp assistant of a genetic testing laboratory. Answer briefly and kindly in the customer’s language, ' +
    'qualify what the customer needs, and hand the conversation to a human when asked or when you cannot help.',
  promptResource: { type: 'prompt', id: 'system' },
  promptCacheMs: 60_000,
};

export interface ProcessTurnDependencies {
  readonly receipts: InboundReceiptRepository;
  readonly sessions: SessionRepository;
  readonly messages: MessageRepository;
  readonly demands: DemandRepository;
  readonly resources: VersionedResourceRepository;
  readonly agent: AgentPort;
  readonly whatsapp: WhatsAppSender;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly settings?: Partial<TurnSettings>;
  /** Asked before anything else whether the turn is an operator's command (the operator plane). */
  readonly operatorCommands?: { handle(turn: InboundTurn): Promise<boolean> };
  /** Tells people about handoffs, and hands a conversation to them when the agent fails for good (the operator plane). */
  readonly handoffs?: TurnHandoffHooks;
}

export interface TurnHandoffHooks {
  /** The turn moved the session to AWAITING_HUMAN (called after its reply was settled; never throws). */
  onHandoff(session: Session): Promise<void>;
  /** The final attempt failed before a result was written; `true` when the conversation went to people. */
  onFinalFailure(customerId: string, pending: readonly PendingInbound[]): Promise<boolean>;
}

export interface TurnRequest {
  readonly phoneNumber: string;
  /** Epoch milliseconds at which the invocation is cut off. */
  readonly deadline: number;
  /** The record will go to the dead-letter queue if this attempt fails. */
  readonly finalAttempt?: boolean;
}

/**
 * The orchestrator's use case (SPEC §6): drains a customer's pending messages in registration order,
 * asks the agent once for all of them, and lets the newest message win. The reply is persisted in
 * the outbox before it is sent, so a failed send is retried without calling the agent again, and a
 * reply that a newer message or a human takeover made obsolete is marked superseded, never sent.
 */
export class ProcessTurn {
  private readonly settings: TurnSettings;
  private cachedPrompt?: { readonly text: string; readonly expiresAt: number };

  constructor(private readonly deps: ProcessTurnDependencies) {
    this.settings = { ...DEFAULT_TURN_SETTINGS, ...deps.settings };
  }

  async execute(request: TurnRequest): Promise<TurnReport> {
    const { phoneNumber } = request;
    let { latest, pending } = await this.readPending(phoneNumber);
    if (pending.length === 0 && (await this.migrateLegacyBuffer(phoneNumber))) ({ latest, pending } = await this.readPending(phoneNumber));
    let settled: TurnReport | undefined;
    if (latest?.outbox !== undefined) {
      const drained = prefixThrough(pending, latest.outbox.replyToMessageId);
      settled = { outcome: await this.settleOutbox(latest, latest.outbox, drained, 'resent'), drained: drained.length };
      // Re-read: settling moved the history watermark past the old reply, which places newer messages.
      if (pending.length > drained.length) ({ latest, pending } = await this.readPending(phoneNumber));
      else pending = [];
    }
    if (latest !== undefined && pending.length > 0) return this.answerOrPark(latest, pending, request);
    return settled ?? (await this.replayLegacyPendingReply(phoneNumber));
  }

  /** The latest-inbound marker and the pending messages read from that same marker. */
  private async readPending(phoneNumber: string): Promise<{ latest?: LatestInbound; pending: PendingInbound[] }> {
    const latest = await this.deps.receipts.getLatest(phoneNumber);
    return { latest, pending: latest === undefined ? [] : await this.deps.receipts.pendingInbounds(phoneNumber, latest) };
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
      if (request.finalAttempt && !(await this.resultWritten(progress, latest.phoneNumber, newest(pending)))) {
        // A handled technical handoff is a success: the record is not retried or dead-lettered.
        if (await this.deps.handoffs?.onFinalFailure(latest.phoneNumber, pending).catch(() => false)) {
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
  private async resultWritten(progress: TurnProgress, phoneNumber: string, last: PendingInbound): Promise<boolean> {
    if (progress.resultWritten || !progress.writeAttempted) return progress.resultWritten;
    const latest = await this.deps.receipts.getLatest(phoneNumber).catch(() => undefined);
    return latest === undefined || latest.outbox?.replyToMessageId === last.messageId;
  }

  private async park(pending: readonly PendingInbound[]): Promise<void> {
    await this.deps.receipts.markDeadLettered(...pending.map(completion));
  }

  private async answer(latest: LatestInbound, pending: PendingInbound[], deadline: number, progress: TurnProgress): Promise<TurnReport> {
    const { phoneNumber } = latest;
    const last = newest(pending);
    if (await this.deps.operatorCommands?.handle(last)) {
      await this.deps.receipts.markCompleted(...pending.map(completion));
      return { outcome: 'operator_command', drained: pending.length };
    }
    const active = await this.deps.sessions.getActive(phoneNumber);
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

    // Blue ticks and a typing indicator while the agent thinks: best effort, alongside the agent
    // call, so it adds no latency and its failure never fails the turn.
    const readReceipt = this.deps.whatsapp.markAsRead({ phoneNumberId: last.phoneNumberId, messageId: last.messageId, showTypingIndicator: true }).then(
      () => true,
      () => false,
    );
    const agentStarted = Date.now();
    const response = await this.deps.agent.respond({
      systemPrompt: await this.systemPrompt(),
      history: await this.conversation(session),
      session: { sessionId: session.sessionId, customerId: phoneNumber, state: session.state, qualificationData: stringValues(session.qualificationData) },
      deadline: deadline - this.settings.deliveryReserveMs,
      maxIterations: this.settings.maxAgentIterations,
    });
    const agent: AgentCallReport = { iterations: response.iterations, latencyMs: Date.now() - agentStarted, stopReason: response.stopReason, readReceiptSent: await readReceipt };

    // The conditional write below IS the latest-message guard: it persists the session and the
    // reply only if this turn's last message is still the latest and pointer and state are as found.
    // Never before the messages it answers, whatever the provider's clock said.
    const replyAt = latestOf(isoMicros(this.deps.clock.now()), nextMicrosecond(last.historyTimestamp));
    const updated = applyActions({ ...session, whatsappInstance: last.phoneNumberId, customerIdKind: last.customerIdKind }, response.actions, replyAt);
    const reply: OutboundReply = { messageId: this.deps.ids.newId(), text: response.reply, replyToMessageId: last.messageId, createdAt: replyAt, llm: { latencyMs: agent.latencyMs } };
    progress.writeAttempted = true;
    const persisted = await this.deps.sessions.tryPutAgentResult({
      session: updated,
      expectedState: session.state,
      expectedLatestMessageId: last.messageId,
      expectedActiveSessionId: undefined,
      reply,
    });
    progress.resultWritten = true;
    if (!persisted) {
      await this.deps.receipts.markCompleted(...pending.map(completion));
      return { outcome: 'superseded', drained: pending.length, agent };
    }
    await this.recordDemands(response.actions, updated, last);

    // The guard before sending reads the marker again: a newer message may have arrived meanwhile.
    const current = await this.deps.receipts.getLatest(phoneNumber);
    const outbox = current?.outbox;
    if (current === undefined || outbox === undefined || outbox.replyToMessageId !== last.messageId) {
      // Another record settled this outbox meanwhile; the receipts are completed by it.
      return { outcome: 'superseded', drained: pending.length, agent };
    }
    const outcome = await this.settleOutbox(current, outbox, pending, 'answered', pendingSendMessage(updated, reply));
    if (updated.state === SessionState.AWAITING_HUMAN && session.state !== SessionState.AWAITING_HUMAN) await this.deps.handoffs?.onHandoff(updated);
    return { outcome, drained: pending.length, agent };
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
      const session = await this.deps.sessions.getActive(latest.phoneNumber);
      if (session !== undefined && isStillDeliverable(latest, outbox, reply, session)) {
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
        phoneNumberId: session.whatsappInstance ?? '',
        customerId: session.phoneNumber,
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
      phoneNumber: first.phoneNumber,
      customerIdKind: first.customerIdKind,
      whatsappInstance: first.phoneNumberId,
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
    const history = await this.deps.messages.historyForSession(session.phoneNumber, session.sessionId, this.settings.historyLimit);
    return history.filter(isVisibleToAgent).map((message) => ({ role: message.role === 'user' ? 'customer' : 'assistant', text: message.text, at: message.timestamp }));
  }

  /** Cached per process for `promptCacheMs`: an edited prompt reaches every warm instance within that time. */
  private async systemPrompt(): Promise<string> {
    const now = Date.now();
    if (this.cachedPrompt === undefined || now >= this.cachedPrompt.expiresAt) {
      const { type, id } = this.settings.promptResource;
      const resource = await this.deps.resources.getCurrent(type, id);
      this.cachedPrompt = { text: resource?.active ? resource.content : this.settings.defaultSystemPrompt, expiresAt: now + this.settings.promptCacheMs };
    }
    return this.cachedPrompt.text;
  }

  /** After the persist, so a superseded turn leaves no demand behind; keyed by source message for retries. */
  private async recordDemands(actions: readonly AgentAction[], session: Session, last: PendingInbound): Promise<void> {
    const demands = actions.filter((action) => action.type === 'record_out_of_portfolio_demand');
    await Promise.all(
      demands.map((demand, index) =>
        this.deps.demands.record({
          demandId: this.deps.ids.newId(),
          sourceMessageId: index === 0 ? last.messageId : `${last.messageId}#${index}`,
          phoneNumber: session.phoneNumber,
          sessionId: session.sessionId,
          requestedService: demand.requestedService,
          originalMessage: last.text,
          estimatedSegment: demand.estimatedSegment,
          whatsappInstance: last.phoneNumberId,
          recordedAt: isoMicros(this.deps.clock.now()),
        }),
      ),
    );
  }

  /**
   * A debounce buffer left by an older deployment is moved into receipts (registered and routed to
   * the agent like any new message), so it is answered by the same latest-message-wins protocol.
   */
  private async migrateLegacyBuffer(phoneNumber: string): Promise<boolean> {
    const buffer = await this.deps.receipts.getBuffer(phoneNumber);
    if (buffer === undefined) return false;
    const session = await this.deps.sessions.getActive(phoneNumber);
    for (const [index, messageId] of buffer.messageIds.entries()) {
      const turn: InboundTurn = {
        phoneNumber,
        customerIdKind: session?.customerIdKind ?? 'phone',
        messageId,
        providerTimestamp: index === 0 ? buffer.firstMessageAt : buffer.lastMessageAt,
        receivedAt: buffer.lastMessageAt,
        messageType: 'text',
        text: buffer.texts[index] ?? '',
        phoneNumberId: buffer.whatsappInstance ?? session?.whatsappInstance ?? '',
      };
      await this.deps.receipts.registerInbound(turn);
      await this.deps.receipts.markAgentRouted(turn);
    }
    await this.deps.receipts.deleteBufferIfFirstMessageAt(phoneNumber, buffer.firstMessageAt);
    return true;
  }

  /** A reply an older deployment computed but did not deliver: replayed once if still valid, never recomputed. */
  private async replayLegacyPendingReply(phoneNumber: string): Promise<TurnReport> {
    const legacy = await this.deps.receipts.getPendingOutbound(phoneNumber);
    if (legacy === undefined) return { outcome: 'noop', drained: 0 };
    const session = await this.deps.sessions.getActive(phoneNumber);
    let outcome: TurnOutcome = 'superseded';
    if (session?.sessionId === legacy.sessionId && session.state === legacy.state && !isHumanOwned(session.state)) {
      try {
        await this.deps.whatsapp.sendText({ phoneNumberId: session.whatsappInstance ?? '', customerId: phoneNumber, customerIdKind: session.customerIdKind ?? 'phone', text: legacy.text });
        outcome = 'resent';
      } catch (error) {
        if (!(error instanceof WhatsAppSendError) || error.retryable) throw new ReplyDeliveryError(error as Error);
        outcome = 'failed_permanent';
      }
    }
    await this.deps.receipts.deletePendingOutbound(phoneNumber);
    return { outcome, drained: 0 };
  }
}

/**
 * The message a turn answers: the newest in the history. It is the last registered, except that a
 * redriven message is listed after the messages registered while it was parked, which are newer.
 */
function newest(pending: readonly PendingInbound[]): PendingInbound {
  return pending.reduce((found, turn) => (toEpochMicros(turn.historyTimestamp) > toEpochMicros(found.historyTimestamp) ? turn : found));
}

/** How far a turn got: before its result write, during it (outcome unknown if it failed), or past it. */
interface TurnProgress {
  writeAttempted: boolean;
  resultWritten: boolean;
}

function completion(turn: PendingInbound): CompletedInbound {
  return { phoneNumber: turn.phoneNumber, messageId: turn.messageId, historyTimestamp: turn.historyTimestamp };
}

/**
 * Completions whose history watermark ends at the reply, so the customer's next message is placed
 * after the reply in the history even when the provider's clock is behind ours.
 */
function completionsAfter(answered: readonly PendingInbound[], replyTimestamp: IsoTimestamp | undefined): CompletedInbound[] {
  const completions = answered.map(completion);
  if (replyTimestamp !== undefined && completions.length > 0) {
    const last = completions[completions.length - 1];
    completions[completions.length - 1] = { ...last, historyTimestamp: latestOf(last.historyTimestamp ?? replyTimestamp, replyTimestamp) };
  }
  return completions;
}

/** The pending messages a persisted reply answered: all registered up to the one it replies to. */
function prefixThrough(pending: readonly PendingInbound[], messageId: string): PendingInbound[] {
  const index = pending.findIndex((turn) => turn.messageId === messageId);
  return pending.slice(0, index + 1);
}

/**
 * A persisted reply may go out only while it answers the latest message, in the same session, and
 * no human took over (or the session was closed) after it was written.
 */
function isStillDeliverable(latest: LatestInbound, outbox: OutboxEntry, reply: Message, session: Session): boolean {
  if (latest.latestMessageId !== outbox.replyToMessageId || latest.invalidatedAt !== undefined) return false;
  if (session.sessionId !== reply.sessionId) return false;
  const changedSinceReply = toEpochMicros(session.updatedAt) > toEpochMicros(reply.timestamp);
  return !(changedSinceReply && (isHumanOwned(session.state) || session.state === SessionState.CLOSED));
}


function stringValues(data: Readonly<Record<string, unknown>>): Record<string, string> {
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]));
}

/**
 * The session as the agent's decisions leave it. The first answer moves a NEW session to
 * QUALIFYING; a transition the state machine refuses (e.g. a handoff after closing in the same
 * response) is dropped rather than failing the turn.
 */
/** A new handoff starts with no notification sent (the markers of an earlier handoff are cleared). */
const NEW_HANDOFF_MARKERS: Partial<Session> = { handoffNotifiedAt: undefined, handoffRenotifiedAt: undefined, handoffRenotifyCount: 0, handoffCustomerRenotifiedAt: undefined };

function applyActions(session: Session, actions: readonly AgentAction[], at: IsoTimestamp): Session {
  let next: Session = { ...session, updatedAt: at };
  const moveTo = (state: SessionState, extra: Partial<Session> = {}) => {
    if (isLegalTransition(next.state, state)) next = { ...transitionSession(next, state, at), ...extra };
  };
  for (const action of actions) {
    if (action.type === 'update_qualification') next = { ...next, qualificationData: { ...next.qualificationData, ...action.data } };
    else if (action.type === 'request_human_handoff') moveTo(SessionState.AWAITING_HUMAN, { handoffRequestedAt: at, ...NEW_HANDOFF_MARKERS });
    else if (action.type === 'close_session') moveTo(SessionState.CLOSED);
  }
  if (next.state === SessionState.NEW) moveTo(SessionState.QUALIFYING);
  return next;
}
