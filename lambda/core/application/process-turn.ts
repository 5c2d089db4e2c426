import type { AgentAction, RequestHumanHandoffAction } from '../domain/agent-action';
import { isPermanentFailure } from '../domain/errors';
import type { LatestInbound, PendingInbound } from '../domain/inbound-receipt';
import type { InboundTurn } from '../domain/inbound-turn';
import { customerMessage, pendingSendMessage, type Message, type OutboundRef } from '../domain/message';
import { isInsideServiceWindow, lastCustomerMessageOf } from '../domain/service-window';
import type { StoredMedia } from '../domain/media';
import { textWithMediaNote } from '../domain/media-limits';
import { isHumanOwned, SessionState, type Session } from '../domain/session';
import { isoMicros } from '../domain/timestamps';
import { withCustomerMessage } from '../domain/inbox-summary';
import { answerTimestamp, applyActions, completion, demandsOfTurn, newest, prefixThrough } from '../domain/turn';
import type { AgentMediaStore, AgentPort, AgentResponse, AgentStages } from '../ports/agent';
import type { Clock, IdGenerator } from '../ports/clock';
import type {
  DemandRepository,
  InboundReceiptRepository,
  LegacyDebounceRepository,
  MessageRepository,
  OperationalConfigRepository,
  OutboundReply,
  PendingWork,
  SessionRepository,
  TurnLedger,
  VersionedResourceRepository,
} from '../ports/repositories';
import type { WhatsAppSender } from '../ports/whatsapp-sender';
import type { CustomerBudgetGate } from './customer-budget-gate';
import type { DownloadInboundMedia } from './download-inbound-media';
import type { TranscribeVoiceNotes } from './transcribe-voice-note';
import { DrainLegacyDebounce } from './drain-legacy-debounce';
import { FailureNotice, type FailureNoticeOutcome } from './failure-notice';
import { OutboxSettlement } from './outbox-settlement';
import type { MessagingConsent } from './privacy/messaging-consent';
import { ReplyDeliveryError } from './reply-delivery-error';
import { type StoredConversation, TurnAgent } from './turn-agent';
import { DEFAULT_TURN_SETTINGS, type AgentCallReport, type TurnOutcome, type TurnReport, type TurnSettings, withEarlierReply } from './turn-settings';

export interface ProcessTurnDependencies {
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
   * With stages: the prompt the construct set for each stage that has one, adopted as that stage's
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
  /** Asked before anything else whether the turn is an operator's command (the operator plane). */
  readonly operatorCommands?: { handle(turn: InboundTurn): Promise<boolean> };
  /** Opt-out and back: confirms the words, and nothing else is sent while the customer is opted out. */
  readonly consent?: Pick<MessagingConsent, 'gate'>;
  /** Tells people about handoffs, and gives the text a conversation handed to them gets when the agent fails for good (the operator plane). */
  readonly handoffs?: TurnHandoffHooks;
  /** Counts each turn and its tokens against the customer's budget; a refused turn gets a short reply and no agent call. */
  readonly budget?: CustomerBudgetGate;
  /**
   * Downloads the attachments of the drained messages into the media bucket before they reach the
   * history (`media`): a message without one costs nothing more.
   * @default - none: an attachment stays its placeholder text
   */
  readonly media?: Pick<DownloadInboundMedia, 'resolve'>;
  /**
   * Transcribes the stored voice notes of the drained messages (`media.transcription`): the
   * transcript is what the agent and the history read.
   * @default - none: a voice note is described to the agent, which cannot hear it
   */
  readonly voiceNotes?: Pick<TranscribeVoiceNotes, 'withTranscript'>;
  /**
   * Told how the failure notice of parked messages went (a metric, a log line): it never changes
   * the turn's outcome, so nothing else reports it.
   * @default - not reported
   */
  readonly onFailureNotice?: (outcome: FailureNoticeOutcome | 'failed', error?: unknown) => void;
}

export interface TurnHandoffHooks {
  /** The turn moved the session to AWAITING_HUMAN (called after its reply was settled; never throws). */
  onHandoff(session: Session): Promise<void>;
  /** What the customer is told when the agent failed for good and the conversation goes to people. */
  fallbackText(): Promise<string>;
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

/** How far a turn got: before its result write, during it (outcome unknown if it failed), or past it. */
interface TurnProgress {
  writeAttempted: boolean;
  resultWritten: boolean;
  /** The session the drained messages were appended to, once they were. */
  session?: Session;
  /** The agent was asked and has not answered: a failure now is the agent's. */
  awaitingAgent: boolean;
  /** Where the reply this turn writes is stored, once the write is attempted. */
  reply?: OutboundRef;
  /** The record goes to the dead-letter queue if this attempt fails: a failed download no longer waits for a retry. */
  readonly finalAttempt: boolean;
}

/** The fallback a failed turn persisted as its result. */
interface PersistedFallback {
  readonly session: Session;
  readonly reply: OutboundReply;
  /** The same write gave the conversation to people. */
  readonly handedOver: boolean;
}

/** The move to people when the agent failed for good: the state machine's handoff, as an agent's request makes it. */
const FALLBACK_HANDOFF: RequestHumanHandoffAction = { type: 'request_human_handoff', reason: 'The agent failed to answer' };

/** The move to people when the customer's 24-hour window closed before the turn could answer: only a template reaches them now. */
const WINDOW_CLOSED_HANDOFF: RequestHumanHandoffAction = { type: 'request_human_handoff', reason: "The customer's 24-hour window closed before the agent answered: only an approved template reaches them" };

/**
 * The orchestrator's use case (docs/DESIGN.md#turn-protocol): drains a customer's pending messages
 * in registration order, asks the agent once for all of them, and lets the newest message win. The
 * reply is persisted in the outbox before it is sent, so a failed send is retried without calling
 * the agent again, and a reply that a newer message or a human takeover made obsolete is marked
 * superseded, never sent.
 */
export class ProcessTurn {
  private readonly legacy: DrainLegacyDebounce;
  private readonly turnAgent: TurnAgent;
  private readonly outboxSettlement: OutboxSettlement;
  private readonly failureNotice: FailureNotice;
  private readonly settings: TurnSettings;

  constructor(private readonly deps: ProcessTurnDependencies) {
    this.settings = { ...DEFAULT_TURN_SETTINGS, ...deps.settings };
    this.legacy = new DrainLegacyDebounce(deps);
    this.turnAgent = new TurnAgent(deps, this.settings);
    this.outboxSettlement = new OutboxSettlement(deps);
    this.failureNotice = new FailureNotice(deps);
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
      settled = { outcome: await this.outboxSettlement.settle(latest, latest.outbox, drained, 'resent', { ...state, reply: state.outboxReply }), drained: drained.length };
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
    const storedHistory = agentLikelyAsked ? this.turnAgent.storedHistory(customerId, activeSessionId) : undefined;
    // Awaited only if the agent is asked; a failure then surfaces there.
    storedHistory?.catch(() => undefined);
    return { latest, storedHistory, ...(await this.deps.ledger.readPending(latest, activeSessionId)) };
  }

  /**
   * A turn that fails for good — on the record's last delivery attempt, or on any attempt when no
   * retry can fix the failure (`isPermanentFailure`: bad agent output, a refusing model) — answers
   * the fallback text when that ends the matter: with the operator plane the same write hands the
   * conversation to people; without it, a failure no retry can fix is answered and done. The
   * fallback is the turn's result, persisted under the latest-message guard and settled through the
   * outbox like any reply, so a redelivery finds it and never sends it twice. Otherwise, on the
   * last attempt, the drained messages are parked (dead-lettered and hidden from the agent) before
   * the record goes to the DLQ, so one poisonous message cannot fail every later turn of the
   * customer, and a redrive asks the agent again; the customer is told once, with a failure
   * notice that answers nothing (`notifyParked`). A failure after the turn's result was written
   * needs neither — a failed send included: the reply waits in the outbox (or a newer message's
   * turn takes the messages over) and whatever runs next settles it. Parking then would hide
   * messages that were answered, and a redrive would ask the agent to answer them again.
   */
  private async answerOrPark(state: TurnState & { readonly latest: LatestInbound }, request: TurnRequest): Promise<TurnReport> {
    const { latest, pending } = state;
    const progress: TurnProgress = { writeAttempted: false, resultWritten: false, awaitingAgent: false, finalAttempt: request.finalAttempt === true };
    try {
      return await this.answer(state, request.deadline, progress);
    } catch (error) {
      // This attempt ends without having handed its persisted reply to WhatsApp (a failed send
      // says so itself): the retry must not take it for a reply that may have reached the customer.
      if (progress.reply !== undefined && !(error instanceof ReplyDeliveryError)) await this.deps.messages.markUnsent(progress.reply, isoMicros(this.deps.clock.now())).catch(() => false);
      // Only the agent's failures are judged: anywhere else a lost condition is a race the retry reads again.
      const permanent = progress.awaitingAgent && isPermanentFailure(error);
      if (!(request.finalAttempt || permanent) || (await this.resultWritten(progress, latest.customerId, newest(pending)))) throw error;
      // The fallback answers the messages when people take the conversation, or when no retry or
      // redrive could get the agent to answer them; otherwise they are parked for the redrive.
      const answersMessages = this.deps.handoffs !== undefined || permanent;
      const fallback = answersMessages && progress.session ? await this.persistFallback(pending, progress.session).catch(() => undefined) : undefined;
      if (fallback === undefined) {
        if (request.finalAttempt && (await this.park(pending))) await this.notifyParked(pending, progress.session);
        throw error;
      }
      const outcome = await this.settlePersisted(latest.customerId, fallback.session, fallback.reply, pending);
      if (!fallback.handedOver) return { outcome: outcome === 'answered' ? 'fallback' : (outcome ?? 'superseded'), drained: pending.length };
      await this.deps.handoffs?.onHandoff(fallback.session);
      return { outcome: 'handed_off', drained: pending.length };
    }
  }

  /**
   * The fallback text as the turn's result, in the write a reply takes: with the operator plane
   * the session goes to people (the admin's text), without it the deployment's `fallbackText`.
   * `undefined` when a newer message superseded the turn meanwhile (its turn answers these messages).
   */
  private async persistFallback(pending: readonly PendingInbound[], session: Session): Promise<PersistedFallback | undefined> {
    const { handoffs } = this.deps;
    const text = handoffs ? await handoffs.fallbackText() : this.settings.fallbackText;
    const persisted = await this.persistSystemReply(newest(pending), session, text, (answered, at) => applyActions(answered, handoffs ? [FALLBACK_HANDOFF] : [], at));
    return persisted && { ...persisted, handedOver: persisted.session.state === SessionState.AWAITING_HUMAN };
  }

  /**
   * A text of the pipeline's own (not the agent's) as the turn's result, in the write a reply
   * takes, with `change` applied to the session; `undefined` when a newer message superseded the turn.
   */
  private async persistSystemReply(last: PendingInbound, session: Session, text: string, change: (answered: Session, at: string) => Session): Promise<{ session: Session; reply: OutboundReply } | undefined> {
    const replyAt = answerTimestamp(this.deps.clock.now(), last);
    const answered = withCustomerMessage({ ...session, businessPhoneNumberId: last.businessPhoneNumberId, customerIdKind: last.customerIdKind }, last, last.historyTimestamp);
    const updated = change(answered, replyAt);
    const reply: OutboundReply = { messageId: this.deps.ids.newId(), text, replyToMessageId: last.messageId, createdAt: replyAt, role: 'system' };
    const persisted = await this.deps.ledger.persistResult({ session: updated, expectedState: session.state, expectedLatestMessageId: last.messageId, expectedActiveSessionId: undefined, reply });
    return persisted ? { session: updated, reply } : undefined;
  }

  /**
   * Messages of a type the pipeline cannot read get no agent turn: the customer is told so once
   * per conversation (the session records it with the notice, in the same write), then nothing.
   */
  private async answerUnsupported(latest: LatestInbound, pending: readonly PendingInbound[], session: Session, progress: TurnProgress): Promise<TurnReport> {
    const drained = pending.length;
    if (session.unsupportedNoticeAt !== undefined) {
      await this.complete(latest, pending);
      return { outcome: 'unsupported_told_already', drained };
    }
    progress.writeAttempted = true;
    const persisted = await this.persistSystemReply(newest(pending), session, this.settings.unsupportedMessageText, (answered, at) => ({ ...applyActions(answered, [], at), unsupportedNoticeAt: at }));
    progress.resultWritten = true;
    if (persisted === undefined) {
      await this.complete(latest, pending);
      return { outcome: 'superseded', drained };
    }
    return { outcome: (await this.settlePersisted(latest.customerId, persisted.session, persisted.reply, pending)) ?? 'superseded', drained };
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

  /** Whether the messages are parked now; if not, they stay on the pending list and a later turn answers them. */
  private park(pending: readonly PendingInbound[]): Promise<boolean> {
    return this.deps.ledger.park(pending.map(completion)).then(
      () => true,
      () => false,
    );
  }

  /**
   * Parked messages leave the customer without an answer until a redrive: without the operator
   * plane nobody else tells them, so they get the fallback text once, as a notice (failure-notice.ts).
   * Best effort: the turn fails as it would without it, and a failed notice is only reported.
   */
  private async notifyParked(parked: readonly PendingInbound[], session: Session | undefined): Promise<void> {
    // No session: the turn failed before the messages reached the history, not in the agent.
    if (session === undefined) return;
    const outcome = await this.failureNotice.send(parked, session, this.settings.fallbackText).catch((error: unknown) => {
      this.deps.onFailureNotice?.('failed', error);
      return undefined;
    });
    if (outcome !== undefined) this.deps.onFailureNotice?.(outcome);
  }

  private async answer(state: TurnState & { readonly latest: LatestInbound }, deadline: number, progress: TurnProgress): Promise<TurnReport> {
    const { latest, pending, session: active } = state;
    const { customerId } = latest;
    const last = newest(pending);
    // Free text no longer reaches a customer who last wrote more than 24 hours ago (a late redrive,
    // a backlog): nothing free-form is sent to them below.
    const windowOpen = isInsideServiceWindow(lastCustomerMessageOf(latest.historyWatermark, pending), this.deps.clock.now());
    if (await this.deps.operatorCommands?.handle(last)) {
      await this.complete(latest, pending);
      return { outcome: 'operator_command', drained: pending.length };
    }
    if (((await this.deps.consent?.gate(last, state.optedOut, windowOpen)) ?? 'answer') !== 'answer') {
      await this.complete(latest, pending);
      return { outcome: 'consent', drained: pending.length };
    }
    if (active !== undefined && isHumanOwned(active.state)) {
      // A human took the conversation after these messages were routed to the agent.
      await this.appendInbound(pending, active, progress.finalAttempt);
      await this.complete(latest, pending);
      return { outcome: 'human_owned', drained: pending.length };
    }
    // A newer message was already consumed (e.g. these were redriven from the DLQ after it was
    // answered): any reply would lose the latest-message guard, so the agent is not even asked.
    const alreadySuperseded = latest.latestMessageId !== last.messageId;
    // Outside the window the agent is not asked, so the turn costs no model tokens and counts in no budget.
    const windowClosed = !alreadySuperseded && !windowOpen;
    // The budget's count goes out alongside the session and history writes, which it does not
    // depend on; it counts this turn once however often the turn is retried.
    // Only messages the pipeline cannot read: no agent, so nothing counted against a budget either.
    const unreadable = pending.every((turn) => turn.unsupported === true);
    const admission = alreadySuperseded || windowClosed || unreadable ? undefined : this.deps.budget?.admit(customerId, last.messageId);
    // Awaited below; a failure of the writes first fails the turn, and the retry counts nothing twice.
    admission?.catch(() => undefined);
    const session = active === undefined || active.state === SessionState.CLOSED ? await this.openSession(last, active) : active;
    const appended = await this.appendInbound(pending, session, progress.finalAttempt);
    progress.session = session;
    if (alreadySuperseded) {
      await this.complete(latest, pending);
      return { outcome: 'superseded', drained: pending.length };
    }
    if (windowClosed) return this.handOffOutsideWindow(latest, pending, session);
    if (unreadable) return this.answerUnsupported(latest, pending, session, progress);

    const overBudget = await admission;
    const budgetReply = overBudget?.reply;
    if (overBudget !== undefined && budgetReply === undefined) {
      // Told once in this window already: the messages stay in the history, unanswered.
      await this.complete(latest, pending);
      return { outcome: 'over_budget_told_already', drained: pending.length, overBudget: overBudget.limit, pipelineTokensToday: this.deps.budget?.pipelineTokensToday };
    }
    progress.awaitingAgent = budgetReply === undefined;
    const { response, call, model, stage } =
      budgetReply === undefined
        ? await this.turnAgent.ask(session, last, deadline, this.historyShown(state, session), appended)
        : { response: overBudgetResponse(budgetReply), call: undefined, model: undefined, stage: undefined };
    progress.awaitingAgent = false;

    // The conditional write below IS the latest-message guard: it persists the session and the
    // reply only if this turn's last message is still the latest and pointer and state are as found.
    const replyAt = answerTimestamp(this.deps.clock.now(), last);
    // With stages, the stage that answered has the conversation, unless it handed it on.
    const answered: Session = withCustomerMessage(
      { ...session, businessPhoneNumberId: last.businessPhoneNumberId, customerIdKind: last.customerIdKind, ...(stage === undefined ? {} : { currentAgent: stage }) },
      last,
      last.historyTimestamp,
    );
    const updated = applyActions(answered, response.actions, replyAt);
    const reply: OutboundReply = {
      messageId: this.deps.ids.newId(),
      text: response.reply,
      replyToMessageId: last.messageId,
      createdAt: replyAt,
      ...(call === undefined ? { role: 'system' } : { llm: { model, latencyMs: call.latencyMs, ...response.usage } }),
    };
    // An agent that a newer message stopped between its tool rounds has nothing to persist: the
    // turn ends as one the write below finds superseded.
    const obsolete = response.stopReason === 'superseded';
    progress.writeAttempted = !obsolete;
    progress.reply = this.deps.messages.refFor({ customerId, timestamp: reply.createdAt, messageId: reply.messageId });
    const persisted =
      !obsolete &&
      (await this.deps.ledger.persistResult({
        session: updated,
        expectedState: session.state,
        expectedLatestMessageId: last.messageId,
        expectedActiveSessionId: undefined,
        reply,
      }));
    progress.resultWritten = true;
    const agent: AgentCallReport | undefined = call && { ...call, readReceiptSent: await call.readReceiptSent };
    // Read when the turn ends, its own tokens counted.
    const report = (outcome: TurnOutcome): TurnReport => ({ outcome, drained: pending.length, agent, overBudget: overBudget?.limit, pipelineTokensToday: this.deps.budget?.pipelineTokensToday });
    // After the result write: a failure of the token count retries the turn without calling the agent again.
    const usage = this.deps.budget?.recordUsage(customerId, response.usage);
    if (!persisted) {
      await Promise.all([usage, this.complete(latest, pending)]);
      return report('superseded');
    }

    const outcome = await this.settlePersisted(customerId, updated, reply, pending, [this.recordDemands(response.actions, updated, last), usage]);
    // Another record settled this outbox meanwhile; the receipts are completed by it.
    if (outcome === undefined) return report('superseded');
    // A lost mark only means the customer is told once more: the turn itself is done.
    if (overBudget !== undefined && outcome === 'answered') await this.deps.budget?.recordTold(customerId, overBudget).catch(() => undefined);
    if (updated.state === SessionState.AWAITING_HUMAN && session.state !== SessionState.AWAITING_HUMAN) await this.deps.handoffs?.onHandoff(updated);
    return report(outcome);
  }

  /**
   * The turn of a customer whose window closed: nothing free-form is sent, and the conversation goes
   * to people, whose console offers the approved templates of a closed window. The handoff is the
   * turn's result, written under the latest-message guard with no reply, so a retry finds the
   * conversation human-owned and never asks the agent either; a newer message (inside a window it
   * reopened) supersedes it and is answered.
   */
  private async handOffOutsideWindow(latest: LatestInbound, pending: readonly PendingInbound[], session: Session): Promise<TurnReport> {
    const last = newest(pending);
    const handedOff = applyActions({ ...session, businessPhoneNumberId: last.businessPhoneNumberId, customerIdKind: last.customerIdKind }, [WINDOW_CLOSED_HANDOFF], answerTimestamp(this.deps.clock.now(), last));
    const persisted = await this.deps.ledger.persistResult({ session: handedOff, expectedState: session.state, expectedLatestMessageId: last.messageId, expectedActiveSessionId: undefined });
    await this.complete(latest, pending);
    if (!persisted) return { outcome: 'superseded', drained: pending.length };
    await this.deps.handoffs?.onHandoff(handedOff);
    return { outcome: 'outside_window', drained: pending.length };
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

  /**
   * After the persist of `reply`, with `alongside` work that does not depend on it: the guard
   * before sending reads what can have changed since — the marker (a newer message, an
   * invalidation, the outbox settled by another record), the session (a takeover or a close) and
   * the customer's consent (an opt-out while the agent was thinking) — and the outbox is settled
   * with the `answered` messages. The pointer cannot move meanwhile: only a turn of this customer
   * opens sessions. `undefined` when another record settled this outbox meanwhile.
   */
  private async settlePersisted(customerId: string, session: Session, reply: OutboundReply, answered: readonly PendingInbound[], alongside: readonly (Promise<unknown> | undefined)[] = []): Promise<TurnOutcome | undefined> {
    const [guard] = await Promise.all([this.deps.ledger.readSendGuard(customerId, session.sessionId), ...alongside]);
    const { latest: current } = guard;
    const outbox = current?.outbox;
    if (current === undefined || outbox === undefined || outbox.replyToMessageId !== reply.replyToMessageId) return undefined;
    return this.outboxSettlement.settle(current, outbox, answered, 'answered', { ...guard, reply: pendingSendMessage(session, reply) });
  }

  /** Completes drained messages that get no reply, on the marker this turn read. */
  private complete(latest: LatestInbound, pending: readonly PendingInbound[]): Promise<void> {
    return this.deps.ledger.complete({ customerId: latest.customerId, answered: pending.map(completion), latest });
  }

  private async openSession(first: InboundTurn, closed: Session | undefined): Promise<Session> {
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
      ...(closed === undefined ? {} : { previousSessionId: closed.sessionId }),
      createdAt: now,
      updatedAt: now,
    };
    // Persisted at once so the messages appended next belong to a session the next turn will find,
    // even if this turn is superseded. Turns of one customer never overlap (one FIFO group).
    await this.deps.sessions.put(session);
    return session;
  }

  /**
   * The drained messages into the history, each attachment first downloaded (or refused) so its
   * entry says where it is stored or carries the note the agent reads. A download a retry can fix
   * fails the turn before anything is appended; the retry appends the same entries.
   */
  private async appendInbound(pending: readonly PendingInbound[], session: Session, finalAttempt: boolean): Promise<Message[]> {
    const entries = await Promise.all(
      pending.map(async (turn) => {
        const message = customerMessage(turn, session.sessionId, turn.historyTimestamp);
        const media = await this.attachmentOf(turn, finalAttempt);
        return media === undefined ? message : { ...message, text: textWithMediaNote(message.text, media), media };
      }),
    );
    await Promise.all(entries.map((message) => this.deps.messages.append(message)));
    return entries;
  }

  /**
   * What the history keeps of `turn`'s attachment: downloaded, and a voice note transcribed. A
   * voice note already appended by an earlier attempt of this turn is taken as it was persisted,
   * so a retry (after the model failed, say) neither starts another transcription job nor hears
   * the note differently; only voice notes pay that read.
   */
  private async attachmentOf(turn: PendingInbound, finalAttempt: boolean): Promise<StoredMedia | undefined> {
    const { media: downloads, voiceNotes, messages } = this.deps;
    if (turn.media === undefined || downloads === undefined) return undefined;
    if (voiceNotes === undefined || turn.media.kind !== 'audio') return downloads.resolve(turn, finalAttempt);
    const appended = await messages.getOutbound(messages.refFor({ customerId: turn.customerId, timestamp: turn.historyTimestamp, messageId: turn.messageId }));
    if (appended?.media !== undefined && appended.media.state !== 'pending') return appended.media;
    const media = await downloads.resolve(turn, finalAttempt);
    return media && voiceNotes.withTranscript(turn.customerId, media, finalAttempt);
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
function overBudgetResponse(reply: string): AgentResponse {
  return { reply, actions: [], iterations: 0, stopReason: 'completed' };
}
