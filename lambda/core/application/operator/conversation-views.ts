import { type ConversationAction, mayDo } from '../../../../lib/contract/conversation-access';
import { awsEstimateUsd } from '../../../../lib/contract/aws-cost-estimate';
import type { MetaRateTable } from '../../../../lib/contract/meta-message-rates';
import { type ModelPrices, turnModelCost } from '../../../../lib/contract/model-prices';
import type { AgentReplyCost } from '../../../../lib/contract/operator-api';
import { metaFeeOf, type MetaFee } from '../../domain/meta-fee';
import { deliveryFailureReason, type DeliveryFailureReason, type ReceiptStatus } from '../../domain/delivery-receipt';
import { type InboxSearch, isUnreadFor } from '../../domain/inbox-summary';
import { mediaDescription, type MediaDescription } from '../../domain/media-note';
import type { LlmUsage, Message } from '../../domain/message';
import { customerDisplayName, type Operator } from '../../domain/operator';
import { CUSTOMER_SERVICE_WINDOW_MS, isInsideServiceWindow } from '../../domain/service-window';
import { isHumanOwned, type Session, SessionState } from '../../domain/session';
import { addMilliseconds, type IsoTimestamp } from '../../domain/timestamps';
import type { TemplateRef } from '../../domain/whatsapp-template';
import type { Clock } from '../../ports/clock';
import type { MessageRepository, SessionRepository } from '../../ports/repositories';
import { lastCustomerMessage } from '../customer-window';
import { type OperatorNames, requirePermitted } from './conversation-permission';
import { OperatorActionError } from './operator-errors';

/** Who the conversation is with and who has it: what a row and the conversation's heading both show. */
interface ConversationParties {
  readonly customerId: string;
  readonly displayName?: string;
  readonly profileName?: string;
  readonly state: SessionState;
  readonly assignedTo?: string;
  /** The name the operators list gives `assignedTo`. */
  readonly assignedToName?: string;
  readonly waitingSince?: IsoTimestamp;
  readonly handoffReason?: string;
}

/** One row of the inbox. */
export interface ConversationSummary extends ConversationParties {
  /** The customer's last message (never the agent's, an operator's or the pipeline's). */
  readonly lastMessage?: { readonly role: 'user'; readonly preview: string; readonly at: IsoTimestamp };
  readonly updatedAt: IsoTimestamp;
  /** The customer wrote since the operator asking last opened the conversation. */
  readonly unread: boolean;
}

export interface ConversationView extends ConversationParties {
  readonly sessionId: string;
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
  /** What Meta charges for the message, once a status of it said how it bills it. */
  readonly metaFee?: MetaFee;
  /** An agent reply's model and AWS cost, when the read priced it (admins'). */
  readonly agentCost?: AgentReplyCost;
  /** An agent's reply: the customer message it answers, which names its turn (and the turn's trace). */
  readonly replyTo?: string;
  /** The documents an agent reply's knowledge searches drew on. */
  readonly knowledgeSources?: readonly string[];
  /** Buttons, a list or a link button the customer saw under `text`. */
  readonly interactive?: Message['interactive'];
  /** A customer's tap: the option's id (`text` is its title). */
  readonly choiceId?: string;
}

export interface ActiveConversationsDependencies {
  readonly sessions: SessionRepository;
  readonly messages: MessageRepository;
  readonly clock: Clock;
  /** Who the operators are (cached per process): a conversation and a refusal name the person who has it. @default by phone alone */
  readonly operators?: OperatorNames;
}

/** The customer's active conversation as every operator use case reads it, and the view it answers with. */
export class ActiveConversations {
  constructor(private readonly deps: ActiveConversationsDependencies) {}

  /** The customer's active session (`not_found` when there is none). */
  async of(customerId: string): Promise<Session> {
    const session = await this.deps.sessions.getActive(customerId);
    if (session === undefined) throw new OperatorActionError('not_found', 'No conversation with this customer');
    return session;
  }

  /** The customer's active session, when `operator` may do `action` with it as read (lib/contract/conversation-access.ts); else the rule's refusal. */
  async permitted(operator: Operator, customerId: string, action: ConversationAction): Promise<Session> {
    const session = await this.of(customerId);
    await requirePermitted(operator, session, action, this.deps.operators);
    return session;
  }

  /**
   * After a write whose condition failed (the conversation changed between the read and the write):
   * the rule's refusal for the conversation as it is now — who claimed it first, say — or, when the
   * rule would still allow it, `conflict` with `meanwhile`.
   */
  async lostRace(operator: Operator, customerId: string, action: ConversationAction, meanwhile = 'The conversation changed meanwhile (another person, or the customer); reload it'): Promise<never> {
    await this.permitted(operator, customerId, action);
    throw new OperatorActionError('conflict', meanwhile);
  }

  /**
   * The view with the window the session item says (the time of the customer's last message rides
   * on every write that records one): no history read, except for a session written before session
   * items kept that time (0.1.0).
   */
  async view(session: Session): Promise<ConversationView> {
    const lastCustomerMessageAt = session.lastCustomerMessage?.at ?? (await lastCustomerMessage(this.deps.messages, session.customerId))?.timestamp;
    const assignedToName = session.assignedTo === undefined ? undefined : (await this.deps.operators?.find(session.assignedTo))?.name;
    return { ...viewOf(session), assignedToName, serviceWindow: serviceWindowOf(lastCustomerMessageAt, this.deps.clock.now()) };
  }
}

/** Who reads a conversation (and its attachments): the rule's `read` (lib/contract/conversation-access.ts). */
export function mayRead(operator: Operator, session: Session): boolean {
  return mayDo(operator, session, 'read');
}

export function summaryOf(session: Session, operator: Operator, names: ReadonlyMap<string, string>): ConversationSummary {
  const last = session.lastCustomerMessage;
  return {
    ...identityOf(session),
    assignedToName: session.assignedTo === undefined ? undefined : names.get(session.assignedTo),
    lastMessage: last && { role: 'user', preview: last.preview, at: last.at },
    unread: isUnreadFor(session, operator.phone),
  };
}

/** `rates`: the table Meta's fee is priced at (default: the packaged one); `modelPrices`: an agent reply's cost is given at them (none without). */
export function historyEntryOf(message: Message, rates?: MetaRateTable, modelPrices?: ModelPrices): HistoryEntry {
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
    metaFee: message.metaPricing && metaFeeOf(message.metaPricing, message.customerId, rates),
    agentCost: modelPrices && message.llm && agentReplyCostOf(message.llm, modelPrices),
    replyTo: message.role === 'assistant' ? message.replyToMessageId : undefined,
    knowledgeSources: message.knowledgeSources,
    interactive: message.interactive,
    choiceId: message.choiceId,
  };
}

function agentReplyCostOf({ model, latencyMs, memoryFold, ...tokens }: LlmUsage, prices: ModelPrices): AgentReplyCost {
  const answer = { ...tokens, model, inputTokens: tokens.inputTokens ?? 0, outputTokens: tokens.outputTokens ?? 0 };
  const modelUsd = turnModelCost(answer, memoryFold, prices);
  return { ...(modelUsd !== undefined && { modelUsd }), awsUsd: awsEstimateUsd(1, latencyMs ?? 0) };
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

function viewOf(session: Session): Omit<ConversationView, 'serviceWindow' | 'assignedToName'> {
  const { sessionId, qualificationData, cadastralData, segment, intent, currentAgent, createdAt } = session;
  return { ...identityOf(session), sessionId, qualificationData, cadastralData, segment, intent, currentAgent, createdAt };
}

function serviceWindowOf(lastCustomerMessageAt: IsoTimestamp | undefined, now: Date): ServiceWindow {
  if (lastCustomerMessageAt === undefined) return { open: false };
  return { open: isInsideServiceWindow(lastCustomerMessageAt, now), closesAt: addMilliseconds(lastCustomerMessageAt, CUSTOMER_SERVICE_WINDOW_MS) };
}
