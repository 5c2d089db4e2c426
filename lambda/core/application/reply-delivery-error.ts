import { PipelineError } from '../domain/errors';
import { WhatsAppSendError } from '../ports/whatsapp-sender';

/**
 * The reply is persisted but could not be sent now (WhatsApp unavailable, rate limited, or the
 * outcome of the send is unknown). The SQS record must be retried: the retry re-sends the persisted
 * reply without calling the agent again.
 */
export class ReplyDeliveryError extends PipelineError {
  override readonly name = 'ReplyDeliveryError';
  override readonly code = 'reply_delivery_failed';
  override readonly retryable = true;
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
