import { outboundRefOfCallbackData } from '../domain/callback-data';
import { deliveryFailureReason, isReceiptStatus, type DeliveryFailureReason } from '../domain/delivery-receipt';
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
}

/** What became of a notification's statuses, for its metrics and log line. */
export interface RecordedStatuses {
  /** Written on a message recorded sent. */
  readonly recorded: number;
  /** Settled a reply whose send outcome was unknown as sent. */
  readonly settled: number;
  /** Statuses of messages the pipeline did not send (no callback data of its own), or of kinds it does not record: nothing read nor written. */
  readonly notOurs: number;
  /** A duplicate, an earlier status than recorded, or a message that was never sent: one conditional write that changed nothing. */
  readonly unchanged: number;
  /** The `failed` statuses recorded, by why. */
  readonly failures: readonly DeliveryFailureReason[];
}

export interface RecordDeliveryStatusesDependencies {
  readonly messages: Pick<MessageRepository, 'recordReceipt'>;
}

/**
 * Delivery receipts (docs/DESIGN.md#delivery-receipts): each status of one of the pipeline's
 * messages is one conditional write on the message its callback data names — idempotent, and never
 * moving a receipt back — and no request at all for any other. In payload order, so a notification
 * carrying `sent` and `delivered` of one message records both.
 */
export class RecordDeliveryStatuses {
  constructor(private readonly deps: RecordDeliveryStatusesDependencies) {}

  async execute(statuses: readonly ReportedStatus[]): Promise<RecordedStatuses> {
    const outcomes: Record<ReceiptOutcome | 'notOurs', number> = { recorded: 0, settled: 0, unchanged: 0, notOurs: 0 };
    const failures: DeliveryFailureReason[] = [];
    for (const reported of statuses) {
      const ref = outboundRefOfCallbackData(reported.callbackData);
      if (ref === undefined || !isReceiptStatus(reported.status)) {
        outcomes.notOurs += 1;
        continue;
      }
      const failureCode = reported.status === 'failed' ? reported.errorCode : undefined;
      const outcome = await this.deps.messages.recordReceipt(ref, {
        status: reported.status,
        at: reported.timestamp,
        providerMessageId: reported.providerMessageId,
        ...(failureCode !== undefined && { failureCode }),
      });
      outcomes[outcome] += 1;
      if (outcome !== 'unchanged' && reported.status === 'failed') failures.push(deliveryFailureReason(failureCode));
    }
    return { ...outcomes, failures };
  }
}
