import { callbackDataOf } from '../../domain/callback-data';
import { type InteractiveReply, interactiveProblems } from '../../domain/interactive-reply';
import type { Message } from '../../domain/message';
import type { Operator } from '../../domain/operator';
import { type OutboundAttachment, outboundAttachmentText } from '../../domain/outbound-attachment';
import type { Session } from '../../domain/session';
import { addMilliseconds, isoMicros, type IsoTimestamp } from '../../domain/timestamps';
import { renderTemplateBody, type TemplateRef } from '../../domain/whatsapp-template';
import { fillTemplateParameters, type TemplateValues } from '../../domain/template-parameters';
import type { IdGenerator } from '../../ports/clock';
import type { MediaStore } from '../../ports/media-store';
import type { InboundReceiptRepository, MessageTemplateRepository } from '../../ports/repositories';
import { type SentTextMessage, WhatsAppSendError, type WhatsAppSender } from '../../ports/whatsapp-sender';
import { isCustomerWindowOpen } from '../customer-window';
import type { MessagingConsent } from '../privacy/messaging-consent';
import { ActiveConversations, type ActiveConversationsDependencies, type HistoryEntry, historyEntryOf } from './conversation-views';
import type { OperatorAuditTrail } from './operator-audit';
import { OperatorActionError } from './operator-errors';
import { outOfTurnPlacement, sendOutOfTurn } from './out-of-turn-message';

/** A human send holds the session's lock at most this long (a crashed send frees it by expiry). */
const HUMAN_SEND_LOCK_MS = 30_000;

/** An approved template and the values of its parameters (header, body, buttons). */
export interface TemplateSend extends TemplateRef {
  readonly values: TemplateValues;
}

export interface OperatorRepliesDependencies extends ActiveConversationsDependencies {
  readonly receipts: InboundReceiptRepository;
  /** The business's templates, which an operator sends once the window closed. */
  readonly templates: Pick<MessageTemplateRepository, 'get'>;
  readonly whatsapp: WhatsAppSender;
  readonly audit: OperatorAuditTrail;
  readonly ids: IdGenerator;
  /** Refuses replies to a customer who opted out of messages. */
  readonly consent: Pick<MessagingConsent, 'isOptedOut'>;
  /** The media bucket an operator's attachments are stored in before they are sent. @default attachments are refused */
  readonly attachments?: Pick<MediaStore, 'put'>;
}

/** Where a send goes, and the callback data naming the message it records. */
type CustomerAddress = Pick<Parameters<WhatsAppSender['sendText']>[0], 'businessPhoneNumberId' | 'customerId' | 'customerIdKind' | 'callbackData'>;

/**
 * What an operator sends the customer (docs/OPERATOR-API.md#who-may-do-what): only the operator the
 * conversation is assigned to (an admin too claims it first), to a customer who has not opted
 * out — free text and attachments inside the customer's 24-hour window, an approved template at
 * any time. Each send holds the session's human send lock (a conditional write: two replies to
 * one customer, or a reply racing a change of hands, get one success and one `conflict`), always
 * released; it is recorded in the history and audited once WhatsApp took it.
 */
export class OperatorReplies {
  private readonly conversations: ActiveConversations;

  constructor(private readonly deps: OperatorRepliesDependencies) {
    this.conversations = new ActiveConversations(deps);
  }

  /**
   * Sends the operator's text — with reply buttons of these titles, when there are any — and records
   * it as sent. Buttons beyond WhatsApp's limits are refused before anything is read or sent; nothing
   * is recorded when WhatsApp refuses.
   */
  async reply(operator: Operator, customerId: string, text: string, buttonTitles: readonly string[] = []): Promise<HistoryEntry> {
    const interactive = operatorButtons(text, buttonTitles);
    const session = await this.answerableInsideWindow(operator, customerId);
    return this.sendUnderLock(operator, session, { text, interactive, send: (address) => this.deps.whatsapp.sendText({ ...address, text, interactive }) });
  }

  /**
   * Sends an image or a document: stored under the customer's prefix of the media bucket (erasure
   * and export find it) and recorded in the history as `pending_send` before the send, so the
   * history never lacks what the customer may have got; `sent` once WhatsApp took it. A send that
   * certainly did not go out is marked unsent and answered `send_failed`. Audited by the message's
   * id, never the file's name.
   */
  async sendAttachment(operator: Operator, customerId: string, attachment: OutboundAttachment): Promise<HistoryEntry> {
    const store = this.deps.attachments;
    if (store === undefined) throw new OperatorActionError('invalid', 'This deployment keeps no media: attachments cannot be sent');
    const session = await this.answerableInsideWindow(operator, customerId);
    return this.underSendLock(operator, session, async (replied) => {
      const placement = await outOfTurnPlacement(this.deps, customerId);
      const stored = await store.put(customerId, placement.messageId, attachment.bytes, attachment.mimeType);
      const pending: Message = {
        ...placement,
        sessionId: session.sessionId,
        direction: 'outbound',
        role: 'operator',
        text: outboundAttachmentText(attachment),
        deliveryStatus: 'pending_send',
        operatorPhone: operator.phone,
        media: {
          kind: attachment.kind,
          mimeType: attachment.mimeType,
          ...(attachment.fileName === undefined ? {} : { filename: attachment.fileName }),
          state: 'stored',
          objectKey: stored.objectKey,
          sizeBytes: stored.sizeBytes,
        },
      };
      await this.deps.messages.append(pending);
      const ref = this.deps.messages.refFor(pending);
      let sent: SentTextMessage;
      try {
        sent = await this.deps.whatsapp.sendMedia({
          ...addressOf(session),
          callbackData: callbackDataOf(ref),
          kind: attachment.kind,
          objectKey: stored.objectKey,
          mimeType: attachment.mimeType,
          ...(attachment.fileName === undefined ? {} : { fileName: attachment.fileName }),
        });
      } catch (error) {
        if (!(error instanceof WhatsAppSendError) || (!error.outcomeUnknown && error.partsDelivered === 0)) await this.deps.messages.markUnsent(ref, isoMicros(this.deps.clock.now())).catch(() => false);
        throw sendFailure(error);
      }
      const sentAt = isoMicros(this.deps.clock.now());
      await this.deps.messages.markOutboundSent(ref, sent, sentAt);
      const message: Message = { ...pending, deliveryStatus: 'sent', providerMessageId: sent.providerMessageId, sentAt };
      replied(message.timestamp);
      await this.deps.receipts.advanceHistoryWatermark(customerId, message.timestamp);
      await this.deps.audit.record({ author: operator.phone, action: 'conversation.attachment', resourceType: 'conversation', resourceId: customerId, details: { messageId: message.messageId, kind: attachment.kind } });
      return historyEntryOf(message);
    });
  }

  /**
   * Sends an approved template with its values, inside the window or outside it (re-engaging a
   * customer who wrote more than 24 hours ago). The history keeps the body as the customer reads it.
   */
  async sendTemplate(operator: Operator, customerId: string, send: TemplateSend): Promise<HistoryEntry> {
    const session = await this.answerable(operator, customerId);
    const template = await this.deps.templates.get(send);
    if (template === undefined) throw new OperatorActionError('not_found', `No template ${send.name} (${send.language}) is stored: sync the templates from WhatsApp first`);
    const filled = fillTemplateParameters(template, send.values);
    if ('problem' in filled) throw new OperatorActionError('invalid', filled.problem);
    return this.sendUnderLock(operator, session, {
      text: renderTemplateBody(template, send.values.body),
      template: { name: template.name, language: template.language },
      send: (address) => this.deps.whatsapp.sendTemplate({ ...address, templateName: template.name, languageCode: template.language, parameters: filled.filled }),
    });
  }

  /** The operator's own conversation, to a customer who wrote within the last 24 hours (free-form messages reach them). */
  private async answerableInsideWindow(operator: Operator, customerId: string): Promise<Session> {
    const session = await this.answerable(operator, customerId);
    if (!(await isCustomerWindowOpen(this.deps, customerId))) {
      throw new OperatorActionError('outside_window', 'The customer wrote more than 24 hours ago: WhatsApp only delivers approved templates now; send one of them');
    }
    return session;
  }

  /** The operator's own conversation (the rule's `reply`), to a customer who has not opted out. */
  private async answerable(operator: Operator, customerId: string): Promise<Session> {
    const session = await this.conversations.permitted(operator, customerId, 'reply');
    if (await this.deps.consent.isOptedOut(customerId)) throw new OperatorActionError('conflict', 'The customer opted out of messages (they can send START to resume); nothing was sent');
    return session;
  }

  /** Sends under the human send lock and records the message as sent. Nothing is recorded when WhatsApp refuses, and the lock is always released. */
  private async sendUnderLock(
    operator: Operator,
    session: Session,
    message: { readonly text: string; readonly template?: TemplateRef; readonly interactive?: InteractiveReply; readonly send: (address: CustomerAddress) => Promise<SentTextMessage> },
  ): Promise<HistoryEntry> {
    const { customerId } = session;
    return this.underSendLock(operator, session, async (replied) => {
      const recorded = await sendOutOfTurn(this.deps, session, { role: 'operator', text: message.text, operatorPhone: operator.phone, template: message.template, interactive: message.interactive }, (callbackData) =>
        message.send({ ...addressOf(session), callbackData }).catch((error: unknown) => {
          throw sendFailure(error);
        }),
      );
      replied(recorded.timestamp);
      await this.deps.audit.record({
        author: operator.phone,
        action: message.template === undefined ? 'conversation.reply' : 'conversation.template',
        resourceType: 'conversation',
        resourceId: customerId,
        details: { messageId: recorded.messageId, ...(message.template === undefined ? {} : { template: message.template.name, language: message.template.language }) },
      });
      return historyEntryOf(recorded);
    });
  }

  /**
   * Runs `send` under the human send lock, which is always released; the time `send` reports as
   * replied goes with the release (the handoff report's first human reply).
   */
  private async underSendLock<T>(operator: Operator, session: Session, send: (replied: (at: IsoTimestamp) => void) => Promise<T>): Promise<T> {
    const now = this.deps.clock.now();
    const lockId = this.deps.ids.newId();
    if (!(await this.deps.sessions.acquireHumanSendLock(session, lockId, isoMicros(now), addMilliseconds(now, HUMAN_SEND_LOCK_MS)))) {
      // Changed hands or left the human inbox: the rule says how; still the operator's: another reply holds the lock.
      return this.conversations.lostRace(operator, session.customerId, 'reply', 'Another reply to this customer is being sent; try again in a moment');
    }
    let repliedAt: IsoTimestamp | undefined;
    try {
      return await send((at) => {
        repliedAt = at;
      });
    } finally {
      await this.deps.sessions.releaseHumanSendLock(session, lockId, repliedAt);
    }
  }
}

/** An operator's reply buttons, tapped as `option-<n>`; none without titles. Throws `invalid` naming what breaks a WhatsApp limit. */
function operatorButtons(text: string, titles: readonly string[]): InteractiveReply | undefined {
  if (titles.length === 0) return undefined;
  const interactive: InteractiveReply = { kind: 'buttons', buttons: titles.map((title, index) => ({ id: `option-${index + 1}`, title })) };
  const problems = interactiveProblems(text, interactive);
  if (problems.length > 0) throw new OperatorActionError('invalid', `WhatsApp would refuse these buttons: ${problems.join('; ')}`);
  return interactive;
}

/** Where a send to the session's customer goes: the number they wrote to, and how they are addressed. */
function addressOf(session: Session): Omit<CustomerAddress, 'callbackData'> {
  return { businessPhoneNumberId: session.businessPhoneNumberId ?? '', customerId: session.customerId, customerIdKind: session.customerIdKind ?? 'phone' };
}

/** WhatsApp refused or did not answer; a refusal of the template itself (Meta's 132xxx) says which. */
function sendFailure(error: unknown): OperatorActionError {
  if (!(error instanceof WhatsAppSendError)) return new OperatorActionError('send_failed', 'WhatsApp did not accept the message (transport); nothing was sent');
  const code = error.metaCode === undefined ? '' : `, code ${error.metaCode}`;
  return new OperatorActionError('send_failed', `WhatsApp did not accept the message (${error.category}${code}); nothing was sent`);
}
