import { callbackDataOf } from '../../domain/callback-data';
import { CloseConversation } from '../close-conversation';
import { lastCustomerMessage } from '../customer-window';
import type { MessagingConsent } from '../privacy/messaging-consent';
import { ConditionFailedError, type InboundReceiptRepository, type MessageRepository, type MessageTemplateRepository, type OperationalConfigRepository, type Page, type PageRequest, type SessionRepository, type TransitionOptions } from '../../ports/repositories';
import { deliveryFailureReason, type DeliveryFailureReason, type ReceiptStatus } from '../../domain/delivery-receipt';
import { type InboxSearch, type InboxVersion, isUnreadFor, seenMarkOf } from '../../domain/inbox-summary';
import { mediaDescription, type MediaDescription } from '../../domain/media-note';
import type { Message } from '../../domain/message';
import { type OutboundAttachment, outboundAttachmentText } from '../../domain/outbound-attachment';
import type { MediaStore } from '../../ports/media-store';
import { customerDisplayName, type Operator } from '../../domain/operator';
import { CUSTOMER_SERVICE_WINDOW_MS, isInsideServiceWindow } from '../../domain/service-window';
import { isAgentOwned, isHumanOwned, isLegalTransition, type Session, SessionState } from '../../domain/session';
import { addMilliseconds, isoMicros, type IsoTimestamp } from '../../domain/timestamps';
import type { Clock, IdGenerator } from '../../ports/clock';
import { renderTemplateBody, type TemplateRef, templateValuesProblem } from '../../domain/whatsapp-template';
import { type SentTextMessage, WhatsAppSendError, type WhatsAppSender } from '../../ports/whatsapp-sender';
import type { OperatorAuditTrail } from './operator-audit';
import { availableOperatorPhones } from './operator-availability';
import type { OperatorDirectory } from './operator-directory';
import { OperatorActionError } from './operator-errors';
import { outOfTurnPlacement, sendOutOfTurn } from './out-of-turn-message';

/** A human send holds the session's lock at most this long (a crashed send frees it by expiry). */
const HUMAN_SEND_LOCK_MS = 30_000;

/** One row of the inbox. */
export interface ConversationSummary {
  readonly customerId: string;
  readonly displayName?: string;
  readonly profileName?: string;
  readonly state: SessionState;
  readonly assignedTo?: string;
  /** The name the operators list gives `assignedTo`. */
  readonly assignedToName?: string;
  readonly waitingSince?: IsoTimestamp;
  readonly handoffReason?: string;
  /** The customer's last message (never the agent's, an operator's or the pipeline's). */
  readonly lastMessage?: { readonly role: 'user'; readonly preview: string; readonly at: IsoTimestamp };
  readonly updatedAt: IsoTimestamp;
  /** The customer wrote since the operator asking last opened the conversation. */
  readonly unread: boolean;
}

export interface ConversationView {
  readonly customerId: string;
  readonly sessionId: string;
  readonly displayName?: string;
  readonly profileName?: string;
  readonly state: SessionState;
  readonly assignedTo?: string;
  readonly waitingSince?: IsoTimestamp;
  readonly handoffReason?: string;
  readonly qualificationData: Readonly<Record<string, unknown>>;
  readonly cadastralData: Readonly<Record<string, unknown>>;
  readonly segment?: string;
  readonly intent?: string;
  readonly currentAgent?: string;
  readonly createdAt: IsoTimestamp;
  readonly updatedAt: IsoTimestamp;
  /** WhatsApp's 24-hour window since the customer's last message: free text only while it is open, templates always. */
  readonly serviceWindow: ServiceWindow;
}

export interface ServiceWindow {
  readonly open: boolean;
  /** When it closes (open) or closed (closed); absent when the customer never wrote. */
  readonly closesAt?: IsoTimestamp;
}

/** Which of a state's conversations a list shows. */
export interface InboxFilter {
  /** Only the caller's own. */
  readonly mine?: boolean;
  readonly search?: InboxSearch;
}

/** An approved template and the values of its body parameters, in order. */
export interface TemplateSend extends TemplateRef {
  readonly values: readonly string[];
}

export interface HistoryEntry {
  readonly messageId: string;
  readonly sessionId: string;
  readonly direction: Message['direction'];
  readonly role: Message['role'];
  readonly text: string;
  readonly at: IsoTimestamp;
  readonly deliveryStatus?: Message['deliveryStatus'];
  readonly receipt?: ReceiptStatus;
  readonly receiptAt?: IsoTimestamp;
  /** `reason: 'window-closed'`: only a template reaches the customer now. */
  readonly deliveryFailure?: { readonly code?: number; readonly reason: DeliveryFailureReason };
  readonly operatorPhone?: string;
  /** The operator's name, as the operators list has it now. */
  readonly operatorName?: string;
  /** The template sent, for a template message. */
  readonly template?: TemplateRef;
  /** The emoji the customer reacted to the message with. */
  readonly reaction?: string;
  /** The customer edited the message: `text` is the edited text. */
  readonly editedAt?: IsoTimestamp;
  /** The customer deleted the message: its text and attachment are gone. */
  readonly revokedAt?: IsoTimestamp;
  readonly media?: MediaDescription;
}

export interface OperatorConversationsDependencies {
  readonly sessions: SessionRepository;
  readonly messages: MessageRepository;
  readonly receipts: InboundReceiptRepository;
  readonly config: OperationalConfigRepository;
  /** The business's templates, which an operator sends once the window closed. */
  readonly templates: Pick<MessageTemplateRepository, 'get'>;
  readonly whatsapp: WhatsAppSender;
  readonly audit: OperatorAuditTrail;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /** The operators' IANA zone, whose midnight ends a declared availability. */
  readonly timeZone: string;
  /** Refuses replies to a customer who opted out of messages. */
  readonly consent: Pick<MessagingConsent, 'isOptedOut'>;
  /** The number that rises with every change an inbox row shows, and each operator's count of mark changes (inbox-version.ts). */
  readonly inboxVersion: { current(operatorPhone: string): Promise<InboxVersion>; raiseSeenMarks(operatorPhone: string): Promise<void> };
  /** Who the operators are (cached per process), so a row names its operator. @default rows show the phone alone */
  readonly operators?: Pick<OperatorDirectory, 'find'>;
  /** The media bucket an operator's attachments are stored in before they are sent. @default attachments are refused */
  readonly attachments?: Pick<MediaStore, 'put'>;
}

/**
 * The human inbox: list and read conversations, claim one, answer the customer, give it back to the
 * agent or close it. Who may do what (docs/OPERATOR-API.md#who-may-do-what):
 *
 * - list and read: every conversation waiting for a person, and the ones the operator owns; an
 *   admin, every conversation;
 * - claim: a conversation waiting for a person, by any operator;
 * - reply, with free text inside the customer's 24-hour window or with an approved template at any
 *   time: only the operator it is assigned to (an admin too claims it first);
 * - release and close: the operator it is assigned to, or an admin; a conversation nobody owns —
 *   waiting for a person, or served by the agent — only an admin.
 *
 * The role is the one the configuration holds now for an admin (see OperatorSignIn.authenticate).
 * Every transition goes through the state machine and a conditional write on the state and the
 * owner the rule relied on — the operator themself, unless an admin acts — and so does the send
 * lock of a reply: two operators racing for the same conversation get one success and one
 * `conflict`, even when it changed hands and came back to the same state between a read and a write.
 */
export class OperatorConversations {
  private readonly closer: CloseConversation;

  constructor(private readonly deps: OperatorConversationsDependencies) {
    this.closer = new CloseConversation(deps);
  }

  /**
   * The conversations in `state` the operator may read (for an operator, only waiting ones and their
   * own), only the operator's own with `mine`, only those a search finds with `search`.
   */
  async list(operator: Operator, state: SessionState, page: PageRequest, filter: InboxFilter = {}): Promise<Page<ConversationSummary>> {
    const everything = operator.role === 'admin' || state === SessionState.AWAITING_HUMAN;
    if (!everything && state !== SessionState.HUMAN_ACTIVE) return { items: [] };
    const assignedTo = filter.mine || !everything ? operator.phone : undefined;
    // One index page: a row is what the session item says (inbox-summary.ts), no history read per row.
    const sessions = await this.deps.sessions.listByState(state, page, { assignedTo, search: filter.search });
    const names = await this.operatorNames(sessions.items.flatMap((session) => (session.assignedTo === undefined ? [] : [session.assignedTo])));
    return { items: sessions.items.map((session) => summaryOf(session, operator, names)), cursor: sessions.cursor };
  }

  /** The names of the operators the list's rows are assigned to, from the cached operators list. */
  private async operatorNames(phones: readonly string[]): Promise<ReadonlyMap<string, string>> {
    const { operators } = this.deps;
    if (operators === undefined) return new Map();
    const found = await Promise.all([...new Set(phones)].map(async (phone) => [phone, (await operators.find(phone))?.name] as const));
    return new Map(found.flatMap(([phone, name]) => (name === undefined ? [] : [[phone, name] as const])));
  }

  /** What the operator's lists' conditional answers compare: unchanged, an unchanged list is not read again. */
  inboxVersion(operator: Operator): Promise<InboxVersion> {
    return this.deps.inboxVersion.current(operator.phone);
  }

  async get(operator: Operator, customerId: string, page: PageRequest): Promise<{ readonly conversation: ConversationView; readonly history: Page<HistoryEntry> }> {
    const session = await this.readable(operator, customerId);
    const [history, conversation] = await Promise.all([this.deps.messages.history(customerId, page), this.viewWithWindow(session), this.markSeen(operator, session)]);
    return { conversation, history: { items: await this.withOperatorNames(history.items.map(historyEntryOf)), cursor: history.cursor } };
  }

  /** Opening the conversation clears its unread mark for the operator: two writes when the customer wrote since their last open, none otherwise. */
  private async markSeen(operator: Operator, session: Session): Promise<void> {
    const mark = seenMarkOf(session, operator.phone);
    if (mark !== undefined && (await this.deps.sessions.markSeen(session, mark))) await this.deps.inboxVersion.raiseSeenMarks(operator.phone);
  }

  /** Each operator's reply with the operator's name as the operators list has it now. */
  private async withOperatorNames(entries: readonly HistoryEntry[]): Promise<HistoryEntry[]> {
    const phones = [...new Set(entries.flatMap((entry) => (entry.operatorPhone === undefined ? [] : [entry.operatorPhone])))];
    const operators = await Promise.all(phones.map((phone) => this.deps.operators?.find(phone)));
    const names = new Map(phones.map((phone, index) => [phone, operators[index]?.name]));
    return entries.map((entry) => (entry.operatorPhone === undefined || names.get(entry.operatorPhone) === undefined ? entry : { ...entry, operatorName: names.get(entry.operatorPhone) }));
  }

  /** The customer's active session, when the operator may read it (else `not_found` or `forbidden`). */
  async readable(operator: Operator, customerId: string): Promise<Session> {
    const session = await this.activeSession(customerId);
    if (!mayRead(operator, session)) throw new OperatorActionError('forbidden', 'Only an admin reads a conversation that is neither waiting for a person nor yours');
    return session;
  }

  async claim(operator: Operator, customerId: string): Promise<ConversationView> {
    const session = await this.activeSession(customerId);
    if (session.state !== SessionState.AWAITING_HUMAN) throw new OperatorActionError('conflict', `The conversation is ${session.state}, not waiting for a person`);
    const claimed = await this.transition(session, SessionState.HUMAN_ACTIVE, { changes: { assignedTo: operator.phone }, expectedAssignedTo: session.assignedTo ?? null });
    await this.deps.audit.record({ author: operator.phone, action: 'conversation.claim', resourceType: 'conversation', resourceId: customerId });
    return this.viewWithWindow(claimed);
  }

  /**
   * A person takes a conversation the agent is serving (`NEW`, `QUALIFYING`): the admin hands it to
   * people and claims it, two writes each conditioned on the state it read and on nobody owning it
   * (a customer message or another person first: `conflict`). A reply the agent is still writing
   * loses the latest-wins guard: a persist after the handoff fails on the state, and one before it
   * is found taken over by the guard before sending, and marked superseded (never sent). Only an
   * admin: an operator reads no conversation the agent is serving.
   */
  async takeOver(operator: Operator, customerId: string): Promise<ConversationView> {
    if (operator.role !== 'admin') throw new OperatorActionError('forbidden', 'Only an admin takes over a conversation the agent is serving');
    const session = await this.activeSession(customerId);
    if (!isAgentOwned(session.state)) throw new OperatorActionError('conflict', `The agent is not serving the conversation (it is ${session.state}); claim it if it waits for a person`);
    const handedOff = await this.transition(session, SessionState.AWAITING_HUMAN, { changes: { handoffRequestedAt: isoMicros(this.deps.clock.now()) }, expectedAssignedTo: null });
    const taken = await this.transition(handedOff, SessionState.HUMAN_ACTIVE, { changes: { assignedTo: operator.phone }, expectedAssignedTo: null });
    await this.deps.audit.record({ author: operator.phone, action: 'conversation.take_over', resourceType: 'conversation', resourceId: customerId, details: { from: session.state } });
    return this.viewWithWindow(taken);
  }

  /**
   * Sends the operator's text under the human send lock and records it as sent. Nothing is
   * recorded when WhatsApp refuses, and the lock is always released.
   */
  async reply(operator: Operator, customerId: string, text: string): Promise<HistoryEntry> {
    const session = await this.answerableInsideWindow(operator, customerId);
    return this.sendUnderLock(operator, session, { text, send: (address) => this.deps.whatsapp.sendText({ ...address, text }) });
  }

  /**
   * Sends an image or a document, under the same rules and lock as a reply: stored under the
   * customer's prefix of the media bucket (erasure and export find it) and recorded in the history
   * as `pending_send` before the send, so the history never lacks what the customer may have got;
   * `sent` once WhatsApp took it. A send that certainly did not go out is marked unsent and
   * answered `send_failed`. Audited by the message's id, never the file's name.
   */
  async sendAttachment(operator: Operator, customerId: string, attachment: OutboundAttachment): Promise<HistoryEntry> {
    const store = this.deps.attachments;
    if (store === undefined) throw new OperatorActionError('invalid', 'This deployment keeps no media: attachments cannot be sent');
    const session = await this.answerableInsideWindow(operator, customerId);
    return this.underSendLock(session, async (replied) => {
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
   * customer who wrote more than 24 hours ago), under the same rules and lock as a reply. The
   * history keeps the body as the customer reads it.
   */
  async sendTemplate(operator: Operator, customerId: string, send: TemplateSend): Promise<HistoryEntry> {
    const session = await this.answerable(operator, customerId);
    const template = await this.deps.templates.get(send);
    if (template === undefined) throw new OperatorActionError('not_found', `No template ${send.name} (${send.language}) is stored: sync the templates from WhatsApp first`);
    const problem = templateValuesProblem(template, send.values);
    if (problem !== undefined) throw new OperatorActionError('invalid', problem);
    const text = renderTemplateBody(template, send.values);
    const parameterNames = template.parameterFormat === 'named' ? template.bodyParameters : undefined;
    return this.sendUnderLock(operator, session, {
      text,
      template: { name: template.name, language: template.language },
      send: (address) => this.deps.whatsapp.sendTemplate({ ...address, templateName: template.name, languageCode: template.language, bodyValues: send.values, parameterNames }),
    });
  }

  /** The operator's own conversation, to a customer who wrote within the last 24 hours (free-form messages reach them). */
  private async answerableInsideWindow(operator: Operator, customerId: string): Promise<Session> {
    const session = await this.answerable(operator, customerId);
    const lastCustomerMessage = await this.lastCustomerMessage(customerId);
    if (!isInsideServiceWindow(lastCustomerMessage?.timestamp, this.deps.clock.now())) {
      throw new OperatorActionError('outside_window', 'The customer wrote more than 24 hours ago: WhatsApp only delivers approved templates now; send one of them');
    }
    return session;
  }

  /** The operator's own conversation, to a customer who has not opted out. */
  private async answerable(operator: Operator, customerId: string): Promise<Session> {
    const session = await this.activeSession(customerId);
    if (session.state !== SessionState.HUMAN_ACTIVE) throw new OperatorActionError('conflict', `Claim the conversation first (it is ${session.state})`);
    if (session.assignedTo !== operator.phone) throw new OperatorActionError('forbidden', 'The conversation is assigned to another operator');
    if (await this.deps.consent.isOptedOut(customerId)) throw new OperatorActionError('conflict', 'The customer opted out of messages (they can send START to resume); nothing was sent');
    return session;
  }

  /** Sends under the human send lock and records the message as sent. Nothing is recorded when WhatsApp refuses, and the lock is always released. */
  private async sendUnderLock(
    operator: Operator,
    session: Session,
    message: { readonly text: string; readonly template?: TemplateRef; readonly send: (address: CustomerAddress) => Promise<SentTextMessage> },
  ): Promise<HistoryEntry> {
    const { customerId } = session;
    return this.underSendLock(session, async (replied) => {
      const recorded = await sendOutOfTurn(this.deps, session, { role: 'operator', text: message.text, operatorPhone: operator.phone, template: message.template }, (callbackData) =>
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
  private async underSendLock<T>(session: Session, send: (replied: (at: IsoTimestamp) => void) => Promise<T>): Promise<T> {
    const now = this.deps.clock.now();
    const lockId = this.deps.ids.newId();
    if (!(await this.deps.sessions.acquireHumanSendLock(session, lockId, isoMicros(now), addMilliseconds(now, HUMAN_SEND_LOCK_MS)))) {
      throw new OperatorActionError('conflict', 'Another reply to this customer is being sent, or the conversation changed hands or left the human inbox');
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

  /** Back to the agent: it answers the customer's next message, with the human part in its history. */
  async release(operator: Operator, customerId: string): Promise<ConversationView> {
    const { session, options } = await this.handBack(operator, customerId, SessionState.QUALIFYING);
    const released = await this.transition(session, SessionState.QUALIFYING, options);
    await this.deps.audit.record({ author: operator.phone, action: 'conversation.release', resourceType: 'conversation', resourceId: customerId, details: { from: session.state, to: SessionState.QUALIFYING } });
    return this.viewWithWindow(released);
  }

  /** Closed the way every close from outside a turn is (close-conversation.ts), audited under the operator's phone. */
  async close(operator: Operator, customerId: string): Promise<ConversationView> {
    const { session, options } = await this.handBack(operator, customerId, SessionState.CLOSED);
    return this.viewWithWindow(await conflictOnLostRace(() => this.closer.close(session, operator.phone, options)));
  }

  /**
   * The view with the window the session item says (the time of the customer's last message rides
   * on every write that records one): no history read, except for a session written before session
   * items kept that time (0.1.0).
   */
  private async viewWithWindow(session: Session): Promise<ConversationView> {
    const lastCustomerMessageAt = session.lastCustomerMessage?.at ?? (await this.lastCustomerMessage(session.customerId))?.timestamp;
    return { ...viewOf(session), serviceWindow: serviceWindowOf(lastCustomerMessageAt, this.deps.clock.now()) };
  }

  /** Whether the operator is available now, as the handoff notifications see it. */
  async isAvailable(operator: Operator): Promise<boolean> {
    return (await availableOperatorPhones(this.deps.config, this.deps.clock.now(), this.deps.timeZone)).has(operator.phone);
  }

  /** Declares the operator available (now) or not; returns whether they are available afterwards. */
  async setAvailability(operator: Operator, available: boolean): Promise<{ readonly available: boolean; readonly since?: IsoTimestamp }> {
    const since = available ? isoMicros(this.deps.clock.now()) : null;
    const map = await this.deps.config.setOperatorAvailability(operator.phone, since, operator.phone);
    await this.deps.audit.record({ author: operator.phone, action: 'operator.availability', resourceType: 'operator', resourceId: operator.phone, details: { available } });
    return map[operator.phone] === undefined ? { available: false } : { available: true, since: map[operator.phone] };
  }

  /** The session an operator gives back (or closes) and the conditions the write must find: the rule's checks still hold then. */
  private async handBack(operator: Operator, customerId: string, to: SessionState): Promise<{ readonly session: Session; readonly options: TransitionOptions & { readonly expectedAssignedTo: string | null } }> {
    const session = await this.activeSession(customerId);
    if (!isLegalTransition(session.state, to)) throw new OperatorActionError('conflict', `A ${session.state} conversation cannot become ${to}`);
    const options = {
      changes: isHumanOwned(session.state) ? { assignedTo: null, handoffRequestedAt: null } : undefined,
      expectedAssignedTo: handBackOwner(operator, session),
      // Never while an operator's reply is on its way.
      requireNoLiveHumanSendLockAt: isoMicros(this.deps.clock.now()),
    };
    return { session, options };
  }

  /** Conditioned on the state as read and on the owner the rule relied on: the checks made on `session` still hold when it is written. */
  private transition(session: Session, to: SessionState, options: TransitionOptions & { readonly expectedAssignedTo: string | null }): Promise<Session> {
    return conflictOnLostRace(() => this.deps.sessions.transitionState(session, session.state, to, options));
  }

  private async activeSession(customerId: string): Promise<Session> {
    const session = await this.deps.sessions.getActive(customerId);
    if (session === undefined) throw new OperatorActionError('not_found', 'No conversation with this customer');
    return session;
  }

  private lastCustomerMessage(customerId: string): Promise<Message | undefined> {
    return lastCustomerMessage(this.deps.messages, customerId);
  }
}

/** Where a send to the session's customer goes: the number they wrote to, and how they are addressed. */
function addressOf(session: Session): Omit<CustomerAddress, 'callbackData'> {
  return { businessPhoneNumberId: session.businessPhoneNumberId ?? '', customerId: session.customerId, customerIdKind: session.customerIdKind ?? 'phone' };
}

/** Where a send goes, and the callback data naming the message it records. */
type CustomerAddress = Pick<Parameters<WhatsAppSender['sendText']>[0], 'businessPhoneNumberId' | 'customerId' | 'customerIdKind' | 'callbackData'>;

/** WhatsApp refused or did not answer; a refusal of the template itself (Meta's 132xxx) says which. */
function sendFailure(error: unknown): OperatorActionError {
  if (!(error instanceof WhatsAppSendError)) return new OperatorActionError('send_failed', 'WhatsApp did not accept the message (transport); nothing was sent');
  const code = error.metaCode === undefined ? '' : `, code ${error.metaCode}`;
  return new OperatorActionError('send_failed', `WhatsApp did not accept the message (${error.category}${code}); nothing was sent`);
}

function serviceWindowOf(lastCustomerMessageAt: IsoTimestamp | undefined, now: Date): ServiceWindow {
  if (lastCustomerMessageAt === undefined) return { open: false };
  return { open: isInsideServiceWindow(lastCustomerMessageAt, now), closesAt: addMilliseconds(lastCustomerMessageAt, CUSTOMER_SERVICE_WINDOW_MS) };
}

/** A write whose condition failed: the conversation changed between the read and the write. */
async function conflictOnLostRace(write: () => Promise<Session>): Promise<Session> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof ConditionFailedError) throw new OperatorActionError('conflict', 'The conversation changed meanwhile (another operator, or the customer); reload it');
    throw error;
  }
}

/** Who reads a conversation (and its attachments): an admin, anyone while it waits for a person, its owner while they have it. */
export function mayRead(operator: Operator, session: Session): boolean {
  return operator.role === 'admin' || session.state === SessionState.AWAITING_HUMAN || (session.state === SessionState.HUMAN_ACTIVE && session.assignedTo === operator.phone);
}

/**
 * The owner a release or close by `operator` must still find in the write: the operator themself,
 * for their own conversation; for an admin, whoever she read (nobody included). Anything else is
 * refused before a write.
 */
function handBackOwner(operator: Operator, session: Session): string | null {
  if (operator.role === 'admin') return session.assignedTo ?? null;
  if (session.state === SessionState.HUMAN_ACTIVE && session.assignedTo === operator.phone) return operator.phone;
  if (session.state === SessionState.HUMAN_ACTIVE) throw new OperatorActionError('forbidden', 'The conversation is assigned to another operator');
  if (session.state === SessionState.AWAITING_HUMAN) throw new OperatorActionError('forbidden', 'Claim the conversation first: only its operator or an admin gives it back or closes it');
  throw new OperatorActionError('forbidden', 'The agent is serving this conversation: only an admin closes it');
}

function identityOf(session: Session): Pick<ConversationSummary, 'customerId' | 'displayName' | 'profileName' | 'state' | 'assignedTo' | 'waitingSince' | 'handoffReason' | 'updatedAt'> {
  return {
    customerId: session.customerId,
    displayName: customerDisplayName(session),
    profileName: session.profileName,
    state: session.state,
    assignedTo: session.assignedTo,
    waitingSince: session.state === SessionState.AWAITING_HUMAN ? (session.handoffRequestedAt ?? session.updatedAt) : undefined,
    handoffReason: isHumanOwned(session.state) ? session.handoffReason : undefined,
    updatedAt: session.updatedAt,
  };
}

function summaryOf(session: Session, operator: Operator, names: ReadonlyMap<string, string>): ConversationSummary {
  const last = session.lastCustomerMessage;
  return {
    ...identityOf(session),
    assignedToName: session.assignedTo === undefined ? undefined : names.get(session.assignedTo),
    lastMessage: last && { role: 'user', preview: last.preview, at: last.at },
    unread: isUnreadFor(session, operator.phone),
  };
}

function viewOf(session: Session): Omit<ConversationView, 'serviceWindow'> {
  const { sessionId, qualificationData, cadastralData, segment, intent, currentAgent, createdAt } = session;
  return { ...identityOf(session), sessionId, qualificationData, cadastralData, segment, intent, currentAgent, createdAt };
}

function historyEntryOf(message: Message): HistoryEntry {
  return {
    messageId: message.messageId,
    sessionId: message.sessionId,
    direction: message.direction,
    role: message.role,
    text: message.text,
    at: message.timestamp,
    deliveryStatus: message.deliveryStatus,
    receipt: message.receipt?.status,
    receiptAt: message.receipt?.at,
    deliveryFailure: message.receipt?.status === 'failed' ? { code: message.receipt.failureCode, reason: deliveryFailureReason(message.receipt.failureCode) } : undefined,
    operatorPhone: message.operatorPhone,
    template: message.template,
    reaction: message.reaction?.emoji,
    editedAt: message.editedAt,
    revokedAt: message.revokedAt,
    media: message.media && mediaDescription(message.media),
  };
}
