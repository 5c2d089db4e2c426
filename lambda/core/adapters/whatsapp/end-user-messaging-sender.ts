import { type AwsCallOptions, signedAwsPost } from '../aws/signed-aws-post';
import {
  WhatsAppSendError,
  type OutboundMediaMessage,
  type OutboundTemplateMessage,
  type OutboundTextMessage,
  type ReadReceipt,
  type SentTextMessage,
  type WhatsAppSender,
} from '../../ports/whatsapp-sender';
import { classifyEndUserMessagingError } from './end-user-messaging-errors';
import { CONNECT_PHASE_ERROR_CODES, mediaMessagePayload, readReceiptPayload, replyPayloads, templateMessagePayload } from './outbound-messages';
import { sendPaced } from './paced-parts';

/** End User Messaging's phone number ids: `phone-number-id-` and a hexadecimal id. */
const ORIGINATION_PHONE_NUMBER_ID_PATTERN = /^phone-number-id-[0-9a-zA-Z]{1,100}$/;

/** Whether `value` has the shape of an End User Messaging phone number id. */
export function isOriginationPhoneNumberId(value: string): boolean {
  return ORIGINATION_PHONE_NUMBER_ID_PATTERN.test(value);
}

/** The request of `SendWhatsAppMessage` (the API's names). */
export interface SendWhatsAppMessageInput {
  readonly originationPhoneNumberId: string;
  /** The Cloud API message object, as JSON bytes. */
  readonly message: Uint8Array;
  readonly metaApiVersion: string;
}

/** One `SendWhatsAppMessage`; rejects with the service's error (`name`, `$metadata.httpStatusCode`, `$fault`) or a transport error. */
export type SendWhatsAppMessage = (input: SendWhatsAppMessageInput) => Promise<{ readonly messageId?: string }>;

/** End User Messaging Social as the signed calls address it. */
export const SOCIAL_MESSAGING = { endpointPrefix: 'social-messaging', signingName: 'social-messaging', endpointVariable: 'AWS_ENDPOINT_URL_SOCIALMESSAGING' };

/**
 * `SendWhatsAppMessage` as one signed `POST /v1/whatsapp/send` (see signed-aws-post.ts), in place
 * of the End User Messaging Social client (about 23 KiB of each bundle that sends, for this one
 * command). One attempt: retries belong to the turn queue, which keeps the persisted reply; a retry
 * after an unanswered request could deliver the message twice.
 */
export function endUserMessagingSend(options: Omit<AwsCallOptions, 'maxAttempts'> = {}): SendWhatsAppMessage {
  const post = signedAwsPost(SOCIAL_MESSAGING, { ...options, maxAttempts: 1 });
  return async ({ originationPhoneNumberId, message, metaApiVersion }) => {
    const body = JSON.stringify({ originationPhoneNumberId, message: Buffer.from(message).toString('base64'), metaApiVersion });
    const answer = await post('/v1/whatsapp/send', { headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode(body) });
    return JSON.parse(new TextDecoder().decode(answer.payload)) as { messageId?: string };
  };
}

/** The request of `PostWhatsAppMessageMedia` (the API's names), from an object of the media bucket. */
export interface PostWhatsAppMessageMediaInput {
  readonly originationPhoneNumberId: string;
  readonly sourceS3File: { readonly bucketName: string; readonly key: string };
}

/** One `PostWhatsAppMessageMedia`: the WhatsApp media id of the uploaded object; rejects like {@link SendWhatsAppMessage}. */
export type PostWhatsAppMessageMedia = (input: PostWhatsAppMessageMediaInput) => Promise<{ readonly mediaId?: string }>;

/**
 * `PostWhatsAppMessageMedia` as one signed `POST /v1/whatsapp/media`. The service reads the object
 * from the bucket as the caller, so the caller's own read of the object (and of its key) is what it
 * needs. One attempt, as for a send.
 */
export function endUserMessagingPostMedia(options: Omit<AwsCallOptions, 'maxAttempts'> = {}): PostWhatsAppMessageMedia {
  const post = signedAwsPost(SOCIAL_MESSAGING, { ...options, maxAttempts: 1 });
  return async (input) => {
    const answer = await post('/v1/whatsapp/media', { headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode(JSON.stringify(input)) });
    return JSON.parse(new TextDecoder().decode(answer.payload)) as { mediaId?: string };
  };
}

export interface EndUserMessagingSenderOptions {
  /** Default: {@link endUserMessagingSend} with the environment's region and credentials. */
  readonly send?: SendWhatsAppMessage;
  /** Default: {@link endUserMessagingPostMedia} with the environment's region and credentials. */
  readonly postMedia?: PostWhatsAppMessageMedia;
  /** The media bucket the attachments an operator sends are in. Default: none, and a media send is refused. */
  readonly mediaBucketName?: string;
  /** Meta phone number id (what the inbound events and the turns carry) → End User Messaging id. */
  readonly phoneNumbers: ReadonlyMap<string, string>;
  /** e.g. `v20.0`. */
  readonly metaApiVersion: string;
  /** A longer reply is split into at most this many messages (the last one truncated). Default 5. */
  readonly maxMessagesPerReply?: number;
  /** How the sender waits before sending again after Meta refused it for its pace. Default: node's timers. */
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * Sends replies through AWS End User Messaging Social (`SendWhatsAppMessage`, IAM-signed, no Meta
 * token): the same Cloud API message objects as the Graph API adapter, from the linked number that
 * received the customer's message, and every failure mapped to the same {@link WhatsAppSendError}
 * outcome table, so the turn protocol cannot tell the channels apart.
 */
export class EndUserMessagingWhatsAppSender implements WhatsAppSender {
  private readonly sendWhatsAppMessage: SendWhatsAppMessage;
  private readonly postWhatsAppMessageMedia: PostWhatsAppMessageMedia;

  constructor(private readonly options: EndUserMessagingSenderOptions) {
    this.sendWhatsAppMessage = options.send ?? endUserMessagingSend();
    this.postWhatsAppMessageMedia = options.postMedia ?? endUserMessagingPostMedia();
  }

  async sendText(message: OutboundTextMessage): Promise<SentTextMessage> {
    return sendPaced(replyPayloads(message, this.options.maxMessagesPerReply), async (payload, partsDelivered) => requireMessageId(await this.send(message.businessPhoneNumberId, payload, partsDelivered), partsDelivered), this.options.sleep);
  }

  async sendTemplate(message: OutboundTemplateMessage): Promise<SentTextMessage> {
    const providerMessageId = requireMessageId(await this.send(message.businessPhoneNumberId, templateMessagePayload(message), 0), 0);
    return { providerMessageId, providerMessageIds: [providerMessageId] };
  }

  /** `PostWhatsAppMessageMedia` from the bucket answers the media id, which `SendWhatsAppMessage` then sends. A failed upload sent nothing. */
  async sendMedia(message: OutboundMediaMessage): Promise<SentTextMessage> {
    const originationPhoneNumberId = this.originationPhoneNumberIdOf(message.businessPhoneNumberId, 0);
    const bucketName = this.options.mediaBucketName;
    if (bucketName === undefined) throw new WhatsAppSendError('This function has no media bucket to send the attachment from', { category: 'request', retryable: false, outcomeUnknown: false, partsDelivered: 0 });
    let mediaId: string | undefined;
    try {
      ({ mediaId } = await this.postWhatsAppMessageMedia({ originationPhoneNumberId, sourceS3File: { bucketName, key: message.objectKey } }));
    } catch (error) {
      const failure = sendError(error, 0);
      // Whatever became of the upload, the customer got nothing.
      throw failure.outcomeUnknown ? new WhatsAppSendError(failure.message, { ...failure, outcomeUnknown: false }, { cause: error }) : failure;
    }
    if (!mediaId) throw new WhatsAppSendError('End User Messaging answered the upload without a media id; nothing was sent', { category: 'transport', retryable: true, outcomeUnknown: false, httpStatus: 200, partsDelivered: 0 });
    const providerMessageId = requireMessageId(await this.send(message.businessPhoneNumberId, mediaMessagePayload(message, mediaId), 0), 0);
    return { providerMessageId, providerMessageIds: [providerMessageId] };
  }

  async markAsRead(receipt: ReadReceipt): Promise<void> {
    await this.send(receipt.businessPhoneNumberId, readReceiptPayload(receipt), 0);
  }

  /** The service's message id; a send it answered without one may still have been accepted. */
  private async send(businessPhoneNumberId: string, payload: object, partsDelivered: number): Promise<string | undefined> {
    const originationPhoneNumberId = this.originationPhoneNumberIdOf(businessPhoneNumberId, partsDelivered);
    try {
      const { messageId } = await this.sendWhatsAppMessage({
        originationPhoneNumberId,
        message: new TextEncoder().encode(JSON.stringify(payload)),
        metaApiVersion: this.options.metaApiVersion,
      });
      return messageId || undefined;
    } catch (error) {
      throw sendError(error, partsDelivered);
    }
  }

  private originationPhoneNumberIdOf(businessPhoneNumberId: string, partsDelivered: number): string {
    const originationPhoneNumberId = this.options.phoneNumbers.get(businessPhoneNumberId);
    if (originationPhoneNumberId !== undefined) return originationPhoneNumberId;
    // Only a number the construct was given can be used: anything else would be refused by IAM anyway.
    throw new WhatsAppSendError('The business phone number is not one of the linked End User Messaging numbers', {
      category: 'request',
      retryable: false,
      outcomeUnknown: false,
      partsDelivered,
    });
  }
}

function requireMessageId(messageId: string | undefined, partsDelivered: number): string {
  if (messageId !== undefined) return messageId;
  throw new WhatsAppSendError('End User Messaging answered without a message id; the message may have been accepted', {
    category: 'transport',
    retryable: true,
    outcomeUnknown: true,
    httpStatus: 200,
    partsDelivered,
  });
}

interface ServiceExceptionShape {
  readonly name?: unknown;
  readonly message?: unknown;
  readonly code?: unknown;
  readonly cause?: { readonly code?: unknown };
  readonly $fault?: unknown;
  readonly $metadata?: { readonly httpStatusCode?: unknown };
}

function sendError(error: unknown, partsDelivered: number): WhatsAppSendError {
  const shape = (error ?? {}) as ServiceExceptionShape;
  const name = typeof shape.name === 'string' ? shape.name : 'Error';
  const httpStatus = typeof shape.$metadata?.httpStatusCode === 'number' ? shape.$metadata.httpStatusCode : undefined;
  if (httpStatus === undefined) return transportError(error, name, shape, partsDelivered);

  const message = typeof shape.message === 'string' ? shape.message : undefined;
  const fault = shape.$fault === 'server' || shape.$fault === 'client' ? shape.$fault : undefined;
  const treatment = classifyEndUserMessagingError(name, message, fault);
  return new WhatsAppSendError(
    `End User Messaging refused the message: ${name}${treatment.metaCode === undefined ? '' : ` (Meta code ${treatment.metaCode})`} (HTTP ${httpStatus})`,
    { category: treatment.category, retryable: treatment.retryable, outcomeUnknown: false, metaCode: treatment.metaCode, httpStatus, partsDelivered },
  );
}

/** No HTTP answer: the request never left (connect phase), or it may have been accepted (anything later). */
function transportError(error: unknown, name: string, shape: ServiceExceptionShape, partsDelivered: number): WhatsAppSendError {
  const code = socketErrorCode(shape);
  const neverSent = code !== undefined && CONNECT_PHASE_ERROR_CODES.has(code);
  return new WhatsAppSendError(
    neverSent
      ? `End User Messaging request could not connect (${code})`
      : `End User Messaging request failed without an answer (${code ?? name}); the message may have been accepted`,
    { category: 'transport', retryable: true, outcomeUnknown: !neverSent, partsDelivered },
    { cause: error },
  );
}

/** The socket error's code: `fetch` rejects with a `TypeError` whose cause carries it. */
function socketErrorCode(shape: ServiceExceptionShape): string | undefined {
  if (typeof shape.code === 'string') return shape.code;
  return typeof shape.cause?.code === 'string' ? shape.cause.code : undefined;
}
