import type { ReceiptStatus } from './delivery-receipt';
import type { MetaPricing } from './meta-fee';
import type { InboundTurn } from './inbound-turn';
import type { StoredMedia } from './media';
import type { InteractiveReply } from './interactive-reply';
import type { IsoTimestamp } from './timestamps';
import type { CarriesUnknownAttributes } from './unknown-attributes';

export type MessageDirection = 'inbound' | 'outbound';

/**
 * Who authored the text: the customer, the AI agent, a human operator, the pipeline itself, or a
 * person of the business on the WhatsApp Business app sharing the number (coexistence echoes).
 */
export type MessageRole = 'user' | 'assistant' | 'operator' | 'system' | 'business_app';

/**
 * Life of an outbound reply written through the outbox:
 * - `pending_send`: persisted with the turn's result, not yet confirmed sent (a retry re-sends it);
 * - `sent`: WhatsApp accepted it;
 * - `superseded`: a newer customer message or a human takeover made it obsolete; never sent;
 * - `failed_permanent`: WhatsApp refused it for good (e.g. the 24-hour window closed);
 * - `maybe_sent`: an earlier attempt may have sent it (it died between the send and its record),
 *   and it no longer answers the latest message: not sent again, and kept in the history as what
 *   the customer may have read. A receipt of Meta's for it turns it `sent`.
 */
export type DeliveryStatus = 'pending_send' | 'sent' | 'superseded' | 'failed_permanent' | 'maybe_sent';

/** Model usage of an agent-written message, for cost and observability queries. */
export interface LlmUsage {
  readonly model?: string;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  /** Input tokens read from the prompt cache; absent: none (or caching off). */
  readonly cacheReadInputTokens?: number;
  /** Input tokens written to the prompt cache; absent: none (or caching off). */
  readonly cacheWriteInputTokens?: number;
  readonly latencyMs?: number;
  /** The memory's fold of this turn, when it folded: its model may be another, cheaper one. */
  readonly memoryFold?: { readonly model: string; readonly inputTokens: number; readonly outputTokens: number };
}

export interface Message extends CarriesUnknownAttributes {
  readonly customerId: string;
  readonly sessionId: string;
  /** Meta's `wamid…` for inbound messages; a generated id for outbound ones. */
  readonly messageId: string;
  readonly direction: MessageDirection;
  readonly role: MessageRole;
  readonly text: string;
  /** Position in the conversation history (inbound: the provider timestamp, bumped to keep order). */
  readonly timestamp: IsoTimestamp;
  readonly messageType?: string;
  /** The attachment of the message (a customer's, or one an operator sent) and where it is stored. */
  readonly media?: StoredMedia;
  /** The message a customer's message quotes (Meta's `context.id`); its text is shown to the agent at turn time, never stored twice. */
  readonly quotedMessageId?: string;
  /** A customer's tap on a reply button or a list row: the option's id (`text` is its title). */
  readonly choiceId?: string;
  /** Buttons, a list or a link button sent under `text` (its body), as the customer saw them. */
  readonly interactive?: InteractiveReply;
  /** The customer's reaction to this message, the latest they left (a removed one is no reaction). */
  readonly reaction?: MessageReaction;
  /** The customer edited this message: `text` is the edited text. */
  readonly editedAt?: IsoTimestamp;
  /**
   * The customer deleted this message (Meta's revoke). They withdrew it, so its text and its
   * attachment reference are dropped from the entry (`text` is empty) and the agent no longer reads
   * it; the operator sees that a message was deleted, not what it said.
   */
  readonly revokedAt?: IsoTimestamp;
  /** Outbound only. */
  readonly deliveryStatus?: DeliveryStatus;
  /** Meta's id once sent. */
  readonly providerMessageId?: string;
  /** Every id of a reply that went out as several messages (a long text split), in order; absent for one message. Each part's statuses name the reply. */
  readonly providerMessageIds?: readonly string[];
  readonly sentAt?: IsoTimestamp;
  /**
   * A `pending_send` reply the attempt that had it left unsent (WhatsApp refused the send, or the
   * attempt failed before it): certainly not sent then, so one that a newer message makes obsolete
   * is `superseded`, not `maybe_sent`.
   */
  readonly unsentAt?: IsoTimestamp;
  /** What Meta last reported of it (sent, delivered, read, failed), from its status webhooks. */
  readonly receipt?: MessageReceipt;
  /** How Meta bills it, from the first of its statuses that said (docs/DESIGN.md#metas-fees). */
  readonly metaPricing?: MetaPricing;
  /** The customer message this reply answers. */
  readonly replyToMessageId?: string;
  readonly supersededAt?: IsoTimestamp;
  readonly failureReason?: string;
  /** Set on messages written by the AI agent (role `assistant`). */
  readonly llm?: LlmUsage;
  /** An agent reply's knowledge-base sources: where the passages its searches found came from (S3 URIs, URLs…). */
  readonly knowledgeSources?: readonly string[];
  /**
   * A customer message whose turn failed on every delivery attempt: kept in the history for the
   * operator, hidden from the agent until it is redriven.
   */
  readonly quarantinedAt?: IsoTimestamp;
  /** The operator who wrote it (role `operator`). */
  readonly operatorPhone?: string;
  /** Sent as this approved template (`text` is its body as the customer read it). */
  readonly template?: { readonly name: string; readonly language: string };
  /**
   * A failure notice (role `system`): the fallback text the customer got when the turn of their
   * parked messages failed on every delivery attempt; the id of the newest of those messages. Not
   * a reply to them (a redrive still asks the agent), and hidden from the agent.
   */
  readonly failureNoticeFor?: string;
}

/** An emoji a customer reacted with, and when (Meta's timestamp of the reaction). */
export interface MessageReaction {
  readonly emoji: string;
  readonly at: IsoTimestamp;
}

/** The furthest status Meta reported for a sent message, and when. */
export interface MessageReceipt {
  readonly status: ReceiptStatus;
  readonly at: IsoTimestamp;
  /** Meta's error code of a `failed` status. */
  readonly failureCode?: number;
}

/**
 * Where an outbound message is stored: an opaque handle returned by the repositories (its parts are
 * key material; do not build or parse them).
 */
export interface OutboundRef {
  readonly customerId: string;
  readonly sortKey: string;
}

/** A customer's message as it enters a session's history, at the position `timestamp` gives it. */
export function customerMessage(turn: InboundTurn, sessionId: string, timestamp: IsoTimestamp): Message {
  return {
    customerId: turn.customerId,
    sessionId,
    messageId: turn.messageId,
    direction: 'inbound',
    role: 'user',
    text: turn.text,
    timestamp,
    messageType: turn.messageType,
    // The download step finds the attachment here, still to fetch.
    ...(turn.media === undefined ? {} : { media: { ...turn.media, state: 'pending' } }),
    ...(turn.quotedMessageId === undefined ? {} : { quotedMessageId: turn.quotedMessageId }),
    ...(turn.choiceId === undefined ? {} : { choiceId: turn.choiceId }),
  };
}

/** A reply as the outbox first stores it: written with the turn's result, not yet sent. */
export function pendingSendMessage(
  session: { readonly customerId: string; readonly sessionId: string },
  reply: { readonly messageId: string; readonly text: string; readonly replyToMessageId: string; readonly createdAt: IsoTimestamp; readonly role?: MessageRole; readonly llm?: LlmUsage; readonly knowledgeSources?: readonly string[]; readonly interactive?: InteractiveReply },
): Message {
  return {
    customerId: session.customerId,
    sessionId: session.sessionId,
    messageId: reply.messageId,
    direction: 'outbound',
    role: reply.role ?? 'assistant',
    text: reply.text,
    timestamp: reply.createdAt,
    deliveryStatus: 'pending_send',
    replyToMessageId: reply.replyToMessageId,
    llm: reply.llm,
    ...(reply.knowledgeSources === undefined ? {} : { knowledgeSources: reply.knowledgeSources }),
    ...(reply.interactive === undefined ? {} : { interactive: reply.interactive }),
  };
}

/**
 * The failure notice of a parked set of messages as first stored, with its claim: not yet sent.
 * Placed right after `noticeFor`'s place in the history, or later.
 */
export function failureNoticeMessage(
  session: { readonly customerId: string; readonly sessionId: string },
  notice: { readonly messageId: string; readonly text: string; readonly noticeFor: string; readonly createdAt: IsoTimestamp },
): Message {
  return {
    customerId: session.customerId,
    sessionId: session.sessionId,
    messageId: notice.messageId,
    direction: 'outbound',
    role: 'system',
    text: notice.text,
    timestamp: notice.createdAt,
    deliveryStatus: 'pending_send',
    failureNoticeFor: notice.noticeFor,
  };
}

/**
 * Whether a message belongs in the history the agent is shown: superseded or refused replies,
 * replies Meta reported failed (the customer never got them) and failure notices do not.
 */
export function isVisibleToAgent(message: Message): boolean {
  return (
    message.deliveryStatus !== 'superseded' &&
    message.deliveryStatus !== 'failed_permanent' &&
    message.receipt?.status !== 'failed' &&
    message.quarantinedAt === undefined &&
    message.revokedAt === undefined &&
    message.failureNoticeFor === undefined
  );
}
