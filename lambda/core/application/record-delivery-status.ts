import { outboundRefOfCallbackData } from '../domain/callback-data';
import { deliveryFailureReason, isReceiptStatus, type DeliveryFailureReason } from '../domain/delivery-receipt';
import { type MetaFee, metaFeeOf, type MetaPricing } from '../domain/meta-fee';
import type { IsoTimestamp } from '../domain/timestamps';
import type { MessageRepository, ReceiptOutcome } from '../ports/repositories';

/** A status of Meta's as both channels parse it (the webhook's body, End User Messaging's `whatsAppWebhookEntry`). */
export interface ReportedStatus {
  readonly providerMessageId: string;
  readonly status: string;
  readonly timestamp: IsoTimestamp;
  readonly errorCode?: number;
  /** `biz_opaque_callback_data`, as the send of the message carried it. */
  readonly callbackData?: string;
  /** Whom Meta says the message went to: its phone (`recipient_id`) and business-scoped user id (`recipient_user_id`), those it names. */
  readonly recipientIds: readonly string[];
  /** How Meta bills the message: recorded by the first status of it that carries it. */
  readonly pricing?: MetaPricing;
}

/** What became of a notification's statuses, for its metrics and log line. */
export interface RecordedStatuses {
  /** Written on a message recorded sent. */
  readonly recorded: number;
  /** Settled a reply whose send outcome was unknown as sent. */
  readonly settled: number;
  /**
   * Statuses of messages the pipeline did not send (no callback data of its own, or callback data
   * naming no message of the table), of another recipient than the message it names, or of kinds
   * it does not record: nothing read nor written.
   */
  readonly notOurs: number;
  /** A duplicate, an earlier status than recorded, a message that was never sent or was sent as another wamid: one conditional write that changed nothing. */
  readonly unchanged: number;
  /** The `failed` statuses recorded, by why. */
  readonly failures: readonly DeliveryFailureReason[];
  /** The fees of the messages these statuses priced for the first time, at the packaged rate table (each message once, however many of its statuses repeat the pricing). */
  readonly metaFees: readonly MetaFee[];
}

export interface RecordDeliveryStatusesDependencies {
  readonly messages: Pick<MessageRepository, 'recordReceipt'>;
}

/**
 * Delivery receipts (docs/DESIGN.md#delivery-receipts): each status of one of the pipeline's
 * messages is one conditional write on the message its callback data names — idempotent, never
 * moving a receipt back, and only when the status's wamid is the message's (or the message's is not
 * known yet) — and no request at all for any other. Callback data is whatever the sender of a
 * message put there (another app on the account too), so a status counts only for the customer it
 * went to: one whose recipient is not the customer the callback data names is not ours, and neither
 * is callback data that names no message of the table. Each status stands alone: none can fail the
 * others of its notification. In payload order, so a notification carrying `sent` and `delivered`
 * of one message records both. Meta's `pricing` of the message rides on the same write (no request
 * of its own), kept from the first status that carries it.
 */
export class RecordDeliveryStatuses {
  constructor(private readonly deps: RecordDeliveryStatusesDependencies) {}

  async execute(statuses: readonly ReportedStatus[]): Promise<RecordedStatuses> {
    const outcomes: Record<ReceiptOutcome, number> = { recorded: 0, settled: 0, unchanged: 0, notOurs: 0 };
    const failures: DeliveryFailureReason[] = [];
    const metaFees: MetaFee[] = [];
    for (const reported of statuses) {
      const ref = outboundRefOfCallbackData(reported.callbackData);
      if (ref === undefined || !isReceiptStatus(reported.status) || !reported.recipientIds.includes(ref.customerId)) {
        outcomes.notOurs += 1;
        continue;
      }
      const failureCode = reported.status === 'failed' ? reported.errorCode : undefined;
      const { outcome, pricingRecorded } = await this.deps.messages.recordReceipt(ref, {
        status: reported.status,
        at: reported.timestamp,
        providerMessageId: reported.providerMessageId,
        ...(failureCode !== undefined && { failureCode }),
        ...(reported.pricing !== undefined && { pricing: reported.pricing }),
      });
      outcomes[outcome] += 1;
      if ((outcome === 'recorded' || outcome === 'settled') && reported.status === 'failed') failures.push(deliveryFailureReason(failureCode));
      if (pricingRecorded && reported.pricing !== undefined) metaFees.push(metaFeeOf(reported.pricing, ref.customerId));
    }
    return { ...outcomes, failures, metaFees };
  }
}
