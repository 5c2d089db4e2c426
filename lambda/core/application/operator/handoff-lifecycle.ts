import { isEvaluationCustomer, isLeftByUnfinishedRun } from '../../domain/evaluation/prompt-gate';
import type { InboundReceiptRepository, MessageRepository, MessageTemplateRepository, OperationalConfigRepository, SessionRepository } from '../../ports/repositories';
import { textEndingWithLink } from '../../domain/message-template';
import type { Operator } from '../../domain/operator';
import { HANDOFF_NOTICE_TEMPLATE_CONFIG_KEY, HANDOFF_TEXTS_CONFIG_KEY, type HandoffTexts, handoffTextsFrom, noticeTemplateFrom } from '../../domain/operational-settings';
import { lastActivityOf, type Session, SessionState } from '../../domain/session';
import { isoMicros, toEpochMicros, type IsoTimestamp } from '../../domain/timestamps';
import type { Clock, IdGenerator } from '../../ports/clock';
import type { EvaluationCleanup } from '../../ports/evaluation';
import { WhatsAppSendError, type WhatsAppSender } from '../../ports/whatsapp-sender';
import type { TemplateRef } from '../../domain/whatsapp-template';
import { isCustomerWindowOpen } from '../customer-window';
import { namedTemplateSend, templateNameOf } from '../named-template';
import type { MessagingConsent } from '../privacy/messaging-consent';
import { availableOperatorPhones } from './operator-availability';
import type { OperatorDirectory } from './operator-directory';
import { sendOutOfTurn } from './out-of-turn-message';

/** At most this many operator re-notifications per handoff: a page, not a pager storm. */
export const MAX_OPERATOR_RENOTIFICATIONS = 3;
/** Sessions one sweep looks at (pages of 50 from GSI1). */
const SWEEP_PAGE_SIZE = 50;
const SWEEP_MAX_PAGES = 20;

export interface HandoffSettings {
  /** Where operators open the conversation (the operator function's URL). */
  readonly consoleUrl: string;
  readonly timeZone: string;
  /** The deployment's texts; the `handoff_texts` setting overrides them per text. */
  readonly texts: HandoffTexts;
  readonly renotifyOperatorsAfterMs: number;
  readonly remindCustomerAfterMs: number;
  /**
   * The approved template a notice goes as to an operator whose own 24-hour window is closed
   * (WhatsApp refuses the text); its one body parameter, if it has one, is the customer's name.
   * Absent: such an operator is not reached.
   */
  readonly operatorNoticeTemplate?: TemplateRef;
}

export interface HandoffDependencies {
  readonly sessions: SessionRepository;
  readonly messages: MessageRepository;
  readonly receipts: InboundReceiptRepository;
  readonly config: OperationalConfigRepository;
  /** Where the operator notice's template is looked up. */
  readonly templates: Pick<MessageTemplateRepository, 'get'>;
  readonly directory: OperatorDirectory;
  readonly whatsapp: WhatsAppSender;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly settings: HandoffSettings;
  /** A customer who opted out is told nothing (operators are still notified). */
  readonly consent: Pick<MessagingConsent, 'isOptedOut'>;
  /** Erases a scenario's customer that an evaluation run left waiting when it did not finish. */
  readonly leftovers: EvaluationCleanup;
}

export interface SweepReport {
  readonly waiting: number;
  /** Seconds the longest-waiting conversation has waited for a person (0 when none waits). */
  readonly oldestWaitingSeconds: number;
  readonly notified: number;
  readonly renotified: number;
  readonly customersReminded: number;
  /** Scenario customers an evaluation run left waiting when it did not finish, erased; absent: none. */
  readonly evaluationLeftoversErased?: number;
}

/**
 * People are told when a conversation is handed to them: available operators get a WhatsApp text
 * with the customer's name and the console link — as the admin's template to an operator whose own
 * window is closed — or, when no operator is available or none could be reached, the customer is
 * told nobody is available; the
 * sweep re-notifies operators and reminds the customer once. Every notification is claimed with a
 * conditional write on the session BEFORE it is sent, so retries and concurrent sweeps never send
 * one twice (a crash between claim and send loses that one message; the next re-notification
 * follows).
 */
export class HandoffLifecycle {
  constructor(private readonly deps: HandoffDependencies) {}

  /** After a turn moved the session to AWAITING_HUMAN. Never throws: the sweep catches up. */
  async onHandoff(session: Session): Promise<void> {
    await this.notifyNewHandoff(session).catch(() => undefined);
  }

  /**
   * What the customer is told when the agent failed for good and the conversation goes to people:
   * the admin's `handoff_texts` setting, else the deployment's text. The turn persists and sends it
   * as its reply, and hands the session over in the same write.
   */
  async fallbackText(): Promise<string> {
    return (await this.texts()).fallback;
  }

  /** One pass over the waiting conversations (the scheduled handoff sweeper). */
  async sweep(): Promise<SweepReport> {
    let waiting = 0;
    let notified = 0;
    let renotified = 0;
    let customersReminded = 0;
    let erased = 0;
    let oldestRequestedAt: number | undefined;
    let cursor: string | undefined;
    for (let page = 0; page < SWEEP_MAX_PAGES; page++) {
      const sessions = await this.deps.sessions.listByState(SessionState.AWAITING_HUMAN, { limit: SWEEP_PAGE_SIZE, cursor });
      for (const session of sessions.items) {
        if (isEvaluationCustomer(session.customerId)) {
          // A scenario being played hands off to nobody, and its run erases it; one whose run died is erased here.
          if (isLeftByUnfinishedRun(lastActivityOf(session), this.deps.clock.now())) {
            await this.deps.leftovers.forget(session.customerId, [session]);
            erased++;
          }
          continue;
        }
        if (session.handoffRequestedAt === undefined) continue;
        waiting++;
        oldestRequestedAt = Math.min(oldestRequestedAt ?? Infinity, toEpochMicros(session.handoffRequestedAt));
        if (!notifiedFor(session)) {
          if (await this.notifyNewHandoff(session)) notified++;
          continue;
        }
        if (await this.renotifyOperators(session)) renotified++;
        if (await this.remindCustomer(session)) customersReminded++;
      }
      cursor = sessions.cursor;
      if (cursor === undefined) break;
    }
    const oldestWaitingSeconds = oldestRequestedAt === undefined ? 0 : Math.max(0, Math.floor((toEpochMicros(this.deps.clock.now()) - oldestRequestedAt) / 1_000_000));
    return { waiting, oldestWaitingSeconds, notified, renotified, customersReminded, ...(erased > 0 && { evaluationLeftoversErased: erased }) };
  }

  /** `true` when this call claimed and sent the first notification. */
  private async notifyNewHandoff(session: Session): Promise<boolean> {
    if (!(await this.deps.sessions.markHandoffNotified(session, isoMicros(this.deps.clock.now())))) return false;
    const [texts, operators] = await Promise.all([this.texts(), this.availableOperators()]);
    const reached = operators.length === 0 ? 0 : await this.tellOperators(operators, session, texts.operatorNotification);
    if (reached === 0 && !(await this.optedOut(session))) await this.tellCustomer(session, texts.noOperatorAvailable);
    return true;
  }

  private async renotifyOperators(session: Session): Promise<boolean> {
    const last = session.handoffRenotifiedAt ?? session.handoffNotifiedAt!;
    if (session.handoffRenotifyCount >= MAX_OPERATOR_RENOTIFICATIONS || !this.elapsed(last, this.deps.settings.renotifyOperatorsAfterMs)) return false;
    const operators = await this.availableOperators();
    if (operators.length === 0) return false;
    const claimed = await this.deps.sessions.markHandoffRenotified(session, isoMicros(this.deps.clock.now()), { expectedCount: session.handoffRenotifyCount });
    if (claimed) await this.tellOperators(operators, session, (await this.texts()).operatorNotification);
    return claimed;
  }

  private async remindCustomer(session: Session): Promise<boolean> {
    const alreadyReminded = session.handoffCustomerRenotifiedAt !== undefined && toEpochMicros(session.handoffCustomerRenotifiedAt) >= toEpochMicros(session.handoffRequestedAt!);
    if (alreadyReminded || !this.elapsed(session.handoffRequestedAt!, this.deps.settings.remindCustomerAfterMs)) return false;
    if (await this.optedOut(session)) return false;
    const claimed = await this.deps.sessions.markHandoffCustomerRenotified(session, isoMicros(this.deps.clock.now()), { oncePerHandoff: true });
    if (claimed) await this.tellCustomer(session, (await this.texts()).customerRenotify).catch(() => undefined);
    return claimed;
  }

  private optedOut(session: Session): Promise<boolean> {
    return this.deps.consent.isOptedOut(session.customerId);
  }

  private elapsed(since: IsoTimestamp, ms: number): boolean {
    return toEpochMicros(this.deps.clock.now()) - toEpochMicros(since) >= ms * 1000;
  }

  private async texts(): Promise<HandoffTexts> {
    return handoffTextsFrom((await this.deps.config.get(HANDOFF_TEXTS_CONFIG_KEY))?.value, this.deps.settings.texts);
  }

  /** Operators who declared themselves available today (local day) and recently enough, and may still sign in. */
  private async availableOperators(): Promise<Operator[]> {
    const phones = await availableOperatorPhones(this.deps.config, this.deps.clock.now(), this.deps.settings.timeZone);
    const operators = await Promise.all([...phones].map((phone) => this.deps.directory.find(phone)));
    return operators.filter((operator): operator is Operator => operator !== undefined);
  }

  /**
   * Each operator separately: one operator who cannot be reached must not stop the others. The
   * customer's name is theirs to choose, so it goes in as inert text (one line, no link, bounded),
   * and the console link always ends the notice. Returns how many operators WhatsApp took a notice for.
   */
  private async tellOperators(operators: readonly Operator[], session: Session, template: string): Promise<number> {
    const name = templateNameOf(session) || session.customerId;
    const text = textEndingWithLink(template, { name }, this.deps.settings.consoleUrl);
    const businessPhoneNumberId = session.businessPhoneNumberId ?? '';
    const notices = await Promise.allSettled(
      operators.map((operator) =>
        this.deps.whatsapp.sendText({ businessPhoneNumberId, customerId: operator.phone, customerIdKind: 'phone', text }).catch((error: unknown) => {
          if (!(error instanceof WhatsAppSendError) || error.category !== 'recipient') throw error;
          return this.sendNoticeTemplate(businessPhoneNumberId, operator.phone, name);
        }),
      ),
    );
    return notices.filter((notice) => notice.status === 'fulfilled').length;
  }

  /** The admin's notice template, to an operator whose window closed; rejects when there is none that can be sent with the name. */
  private async sendNoticeTemplate(businessPhoneNumberId: string, operatorPhone: string, name: string): Promise<unknown> {
    const ref = noticeTemplateFrom((await this.deps.config.get(HANDOFF_NOTICE_TEMPLATE_CONFIG_KEY))?.value, this.deps.settings.operatorNoticeTemplate);
    const template = ref && (await this.deps.templates.get(ref));
    if (template === undefined) throw new RangeError('No operator notice template is configured, or it is not stored: the operator cannot be reached outside their window');
    return this.deps.whatsapp.sendTemplate({ businessPhoneNumberId, customerId: operatorPhone, customerIdKind: 'phone', ...namedTemplateSend(template, name).message });
  }

  /**
   * Sent, then kept in the conversation's history (role `system`) so operators see what the customer
   * was told; only while the customer's 24-hour window is open — after it, free text no longer
   * reaches them (a handoff of a turn that came too late to answer, a reminder a day on).
   */
  private async tellCustomer(session: Session, text: string): Promise<void> {
    if (!(await isCustomerWindowOpen(this.deps, session.customerId))) return;
    await sendOutOfTurn(this.deps, session, { role: 'system', text }, (callbackData) =>
      this.deps.whatsapp.sendText({ businessPhoneNumberId: session.businessPhoneNumberId ?? '', customerId: session.customerId, customerIdKind: session.customerIdKind ?? 'phone', text, callbackData }),
    );
  }
}

function notifiedFor(session: Session): boolean {
  return session.handoffNotifiedAt !== undefined && toEpochMicros(session.handoffNotifiedAt) >= toEpochMicros(session.handoffRequestedAt!);
}
