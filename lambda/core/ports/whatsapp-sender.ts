import { PipelineError } from '../domain/errors';
import type { CustomerIdKind } from '../domain/inbound-turn';
import type { InteractiveReply } from '../domain/interactive-reply';
import type { FilledTemplateParameter } from '../domain/template-parameters';

/** Sends the pipeline's replies to customers over WhatsApp. */
export interface WhatsAppSender {
  /**
   * Sends a free-form text reply. Text longer than one WhatsApp message is delivered as several
   * messages, in order; a reply with {@link OutboundTextMessage.interactive} goes as one interactive
   * message whose body is the text. Throws {@link WhatsAppSendError}.
   */
  sendText(message: OutboundTextMessage): Promise<SentTextMessage>;

  /**
   * Sends an approved message template: the one message WhatsApp delivers outside the customer's
   * 24-hour service window. Throws {@link WhatsAppSendError}.
   */
  sendTemplate(message: OutboundTemplateMessage): Promise<SentTextMessage>;

  /**
   * Sends an image or a document stored in the media bucket: uploaded to the provider first, then
   * sent as a media message with that upload's id. Throws {@link WhatsAppSendError} (a failed
   * upload included: nothing was sent then).
   */
  sendMedia(message: OutboundMediaMessage): Promise<SentTextMessage>;

  /**
   * Marks a customer's message as read (blue ticks), optionally showing a typing indicator until the
   * reply arrives. Best effort: callers should not fail a turn because of it. Throws
   * {@link WhatsAppSendError}.
   */
  markAsRead(receipt: ReadReceipt): Promise<void>;
}

export interface OutboundTextMessage {
  /** The business phone number id that received the customer's message (replies come from it). */
  readonly businessPhoneNumberId: string;
  /** The customer's WhatsApp id: a phone, or a business-scoped user id. */
  readonly customerId: string;
  /** A phone is addressed with `to`, a business-scoped user id with `recipient`. */
  readonly customerIdKind: CustomerIdKind;
  readonly text: string;
  /** Buttons, a list or a link button under the text, within WhatsApp's limits (`interactiveProblems` finds none). */
  readonly interactive?: InteractiveReply;
  /**
   * Sent as `biz_opaque_callback_data` (at most 512 characters): Meta echoes it in every status of
   * the message, which is how a status finds the stored message it is about.
   */
  readonly callbackData?: string;
}

export interface OutboundTemplateMessage extends Omit<OutboundTextMessage, 'text' | 'interactive'> {
  readonly templateName: string;
  /** Meta's language code of the approved translation (`pt_BR`). */
  readonly languageCode: string;
  /** Every parameter of the template with its value (header, body, buttons), checked against the stored template. */
  readonly parameters: readonly FilledTemplateParameter[];
}

/** An attachment an operator sends; the object is in the pipeline's media bucket. */
export interface OutboundMediaMessage extends Omit<OutboundTextMessage, 'text' | 'interactive'> {
  readonly kind: 'image' | 'document';
  readonly objectKey: string;
  readonly mimeType: string;
  /** Shown to the customer under a document. */
  readonly fileName?: string;
  readonly caption?: string;
}

export interface SentTextMessage {
  /** Meta's id (`wamid…`) of the first message delivered. */
  readonly providerMessageId: string;
  /** Ids of every message delivered, in order (more than one when the text was split). */
  readonly providerMessageIds: readonly string[];
}

export interface ReadReceipt {
  readonly businessPhoneNumberId: string;
  /** The customer's message (`wamid…`) to mark as read. */
  readonly messageId: string;
  readonly showTypingIndicator?: boolean;
}

/**
 * Why a send failed, as far as the pipeline's decisions go:
 * - `rate_limit`: throughput, pair or spam limits; retry later.
 * - `provider_unavailable`: Meta-side errors and 5xx; retry later.
 * - `authentication`: the access token was rejected; needs an operator (rotate the secret).
 * - `account`: permissions, policy blocks, payment, the business number; needs an operator.
 * - `recipient`: this customer cannot receive this message (24-hour window closed, undeliverable).
 * - `request`: Meta rejected the request itself (invalid parameter).
 * - `transport`: no usable answer (timeout, connection failure, unparseable success).
 */
export type WhatsAppFailureCategory =
  | 'rate_limit'
  | 'provider_unavailable'
  | 'authentication'
  | 'account'
  | 'recipient'
  | 'request'
  | 'transport';

export interface WhatsAppSendErrorDetails {
  readonly category: WhatsAppFailureCategory;
  /** Sending the same message again later can succeed: report the turn for a retry. */
  readonly retryable: boolean;
  /**
   * Meta may have accepted the message although no success answer arrived (timeout or connection
   * loss after the request was written). A retry can then deliver the message twice.
   */
  readonly outcomeUnknown: boolean;
  /** Meta's error code (`error.code`), when Meta answered with one. */
  readonly metaCode?: number;
  /** Meta's error subcode (`error.error_subcode`). */
  readonly subcode?: number;
  readonly httpStatus?: number;
  /** Meta's request trace id, for support tickets. */
  readonly fbtraceId?: string;
  /** Messages of a split text already delivered before this failure (0 for a single message). */
  readonly partsDelivered: number;
}

/** A WhatsApp send failed. Its message never contains the customer's text. */
export class WhatsAppSendError extends PipelineError implements WhatsAppSendErrorDetails {
  override readonly name = 'WhatsAppSendError';
  override readonly code = 'whatsapp_send_failed';
  readonly category: WhatsAppFailureCategory;
  override readonly retryable: boolean;
  readonly outcomeUnknown: boolean;
  readonly metaCode?: number;
  readonly subcode?: number;
  readonly httpStatus?: number;
  readonly fbtraceId?: string;
  readonly partsDelivered: number;

  constructor(message: string, details: WhatsAppSendErrorDetails, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.category = details.category;
    this.retryable = details.retryable;
    this.outcomeUnknown = details.outcomeUnknown;
    this.metaCode = details.metaCode;
    this.subcode = details.subcode;
    this.httpStatus = details.httpStatus;
    this.fbtraceId = details.fbtraceId;
    this.partsDelivered = details.partsDelivered;
  }
}
