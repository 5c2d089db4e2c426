import type { RequestHumanHandoffAction } from '../domain/agent-action';
import { isPermanentFailure } from '../domain/errors';
import type { PendingInbound } from '../domain/inbound-receipt';
import { SessionState, type Session } from '../domain/session';
import { isoMicros } from '../domain/timestamps';
import { completion, newest } from '../domain/turn';
import type { Clock } from '../ports/clock';
import type { InboundReceiptRepository, MessageRepository, OutboundReply, TurnLedger } from '../ports/repositories';
import type { FailureNotice, FailureNoticeOutcome } from './failure-notice';
import { ReplyDeliveryError } from './reply-delivery-error';
import type { TurnProgress } from './turn-progress';
import type { TurnResults } from './turn-results';
import type { TurnReport } from './turn-settings';

export interface TurnFailureDependencies {
  readonly ledger: TurnLedger;
  readonly receipts: InboundReceiptRepository;
  readonly messages: MessageRepository;
  readonly clock: Clock;
  /** Tells people about handoffs, and gives the text a conversation handed to them gets when the agent fails for good (the operator plane). */
  readonly handoffs?: TurnHandoffHooks;
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

/** The move to people when the agent failed for good: the state machine's handoff, as an agent's request makes it. */
const FALLBACK_HANDOFF: RequestHumanHandoffAction = { type: 'request_human_handoff', reason: 'The agent failed to answer' };

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
export class TurnFailure {
  constructor(
    private readonly deps: TurnFailureDependencies,
    private readonly results: TurnResults,
    private readonly notice: FailureNotice,
    private readonly fallbackText: string,
  ) {}

  /** What the turn that threw `error` after `progress` still does; rethrows `error` when a retry or the redrive is left to answer. */
  async recover(error: unknown, pending: readonly PendingInbound[], progress: TurnProgress): Promise<TurnReport> {
    // This attempt ends without having handed its persisted reply to WhatsApp (a failed send
    // says so itself): the retry must not take it for a reply that may have reached the customer.
    if (progress.reply !== undefined && !(error instanceof ReplyDeliveryError)) await this.deps.messages.markUnsent(progress.reply, isoMicros(this.deps.clock.now())).catch(() => false);
    // Only the agent's failures are judged: anywhere else a lost condition is a race the retry reads again.
    const permanent = progress.failedInAgent && isPermanentFailure(error);
    const last = newest(pending);
    if (!(progress.finalAttempt || permanent) || (await this.resultWritten(progress, last))) throw error;
    // The fallback answers the messages when people take the conversation, or when no retry or
    // redrive could get the agent to answer them; otherwise they are parked for the redrive.
    const answersMessages = this.deps.handoffs !== undefined || permanent;
    const fallback = answersMessages && progress.session ? await this.persistFallback(last, progress.session).catch(() => undefined) : undefined;
    if (fallback === undefined) {
      if (progress.finalAttempt && (await this.park(pending))) await this.notifyParked(pending, progress.session);
      throw error;
    }
    const outcome = await this.results.settle(fallback.session, fallback.reply, pending);
    if (fallback.session.state !== SessionState.AWAITING_HUMAN) return { outcome: outcome === 'answered' ? 'fallback' : (outcome ?? 'superseded'), drained: pending.length };
    await this.deps.handoffs?.onHandoff(fallback.session);
    return { outcome: 'handed_off', drained: pending.length };
  }

  /**
   * The fallback text as the turn's result, in the write a reply takes: with the operator plane
   * the session goes to people (the admin's text), without it the deployment's `fallbackText`.
   * `undefined` when a newer message superseded the turn meanwhile (its turn answers these messages).
   */
  private async persistFallback(last: PendingInbound, session: Session): Promise<{ readonly session: Session; readonly reply: OutboundReply } | undefined> {
    const { handoffs } = this.deps;
    const text = handoffs ? await handoffs.fallbackText() : this.fallbackText;
    const result = this.results.compose(last, session, { reply: text, actions: handoffs ? [FALLBACK_HANDOFF] : [] });
    return result.reply !== undefined && (await this.results.persist(result, session, last)) ? { session: result.session, reply: result.reply } : undefined;
  }

  /**
   * Whether the turn's result is written. A write that failed may have been applied anyway (DynamoDB
   * can commit a transaction and still answer an error): then the marker shows this turn's reply in
   * the outbox. When even that cannot be read, the messages are left unparked — on the pending list
   * they are answered later; parked by mistake they would be answered twice.
   */
  private async resultWritten(progress: TurnProgress, last: PendingInbound): Promise<boolean> {
    if (progress.resultWriteState !== 'attempted') return progress.resultWriteState === 'done';
    const latest = await this.deps.receipts.getLatest(last.customerId).catch(() => undefined);
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
    const outcome = await this.notice.send(parked, session, this.fallbackText).catch((error: unknown) => {
      this.deps.onFailureNotice?.('failed', error);
      return undefined;
    });
    if (outcome !== undefined) this.deps.onFailureNotice?.(outcome);
  }
}
