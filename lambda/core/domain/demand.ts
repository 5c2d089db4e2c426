import type { IsoTimestamp } from './timestamps';
import type { CarriesUnknownAttributes } from './unknown-attributes';

/** A customer asked for something outside the portfolio: recorded once per source message. */
export interface OutOfPortfolioDemand extends CarriesUnknownAttributes {
  readonly demandId: string;
  /** The customer message that expressed the demand; the deduplication key. */
  readonly sourceMessageId: string;
  readonly customerId: string;
  readonly sessionId?: string;
  readonly requestedService: string;
  readonly originalMessage: string;
  readonly estimatedSegment?: string;
  readonly businessPhoneNumberId?: string;
  readonly recordedAt: IsoTimestamp;
}
