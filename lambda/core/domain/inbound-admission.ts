import { RECEIPT_RETENTION_SECONDS } from './inbound-receipt';
import type { InboundTurn } from './inbound-turn';

/**
 * Meta's phone number ids are decimal numbers (15 to 16 digits today); the bound leaves room to
 * grow while keeping anything else — a path segment, a query — out of the Graph API URL.
 */
const BUSINESS_PHONE_NUMBER_ID_PATTERN = /^\d{1,20}$/;

/** Whether `value` has the shape of a Meta business phone number id. */
export function isValidBusinessPhoneNumberId(value: string): boolean {
  return BUSINESS_PHONE_NUMBER_ID_PATTERN.test(value);
}

export interface InboundAdmissionPolicy {
  /** The business numbers this pipeline answers for; `undefined` admits every number of the app. */
  readonly businessPhoneNumberIds?: ReadonlySet<string>;
  /** The webhook's clock. */
  readonly now: Date;
}

/** What admission reads of a message: the number it was sent to or from, and Meta's time of it. */
export type AdmittedMessage = Pick<InboundTurn, 'businessPhoneNumberId' | 'providerTimestamp'>;

export interface InboundAdmission<Message extends AdmittedMessage = InboundTurn> {
  readonly admitted: Message[];
  /** Turns addressed to a business number of the same Meta app that this pipeline does not serve. */
  readonly foreignNumber: number;
  /** Turns older than the receipt retention: their receipt may be gone, so they could replay. */
  readonly stale: number;
}

/**
 * Which turns of a signed notification the pipeline takes on. A turn is dropped (and counted, never
 * refused: Meta would retry a refusal for days) when it was sent to another business number, or
 * when Meta's timestamp is at least the receipt retention old — its receipt, written no earlier than
 * the message was sent, may have expired, so deduplication could no longer recognise a replay.
 */
export function admitInboundTurns<Message extends AdmittedMessage>(turns: readonly Message[], policy: InboundAdmissionPolicy): InboundAdmission<Message> {
  const oldestAcceptedMs = policy.now.getTime() - RECEIPT_RETENTION_SECONDS * 1000;
  const admitted: Message[] = [];
  let foreignNumber = 0;
  let stale = 0;
  for (const turn of turns) {
    if (policy.businessPhoneNumberIds !== undefined && !policy.businessPhoneNumberIds.has(turn.businessPhoneNumberId)) foreignNumber += 1;
    else if (Date.parse(turn.providerTimestamp) <= oldestAcceptedMs) stale += 1;
    else admitted.push(turn);
  }
  return { admitted, foreignNumber, stale };
}
