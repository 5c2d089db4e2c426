/** A Graph API error answer of the fake's (`GraphApiFailure` of fake-graph-api.ts, which imports this module). */
export interface PaceRefusalAnswer {
  readonly httpStatus: number;
  readonly code: number;
  readonly message: string;
  /** `error_data.details`. */
  readonly details: string;
}

/** Meta's refusals of a send for its pace, as the Cloud API answers them (HTTP 400, Meta's code and details). */
export const PACE_REFUSALS = {
  /** About one message every 6 seconds from a business number to one WhatsApp user (short bursts allowed). */
  pairRate: {
    httpStatus: 400,
    code: 131056,
    message: '(#131056) (Business Account, Consumer Account) pair rate limit hit',
    details: 'Message failed to send because there were too many messages sent from this phone number to the same phone number in a short period of time.',
  },
  /** The business number's throughput: 80 messages a second by default, inbound included. */
  throughput: { httpStatus: 400, code: 130429, message: '(#130429) Rate limit hit', details: 'Cloud API message throughput has been reached.' },
} as const satisfies Readonly<Record<string, PaceRefusalAnswer>>;

export type PaceRefusal = keyof typeof PACE_REFUSALS;

/**
 * The fake Graph API's pace refusals, by the customer a send goes to: told to refuse the next
 * `times` sends to a number with 131056 (the pair rate) or 130429 (throughput), it answers each
 * as Meta does and records nothing; sends to other customers go on.
 */
export class FakePaceRefusals {
  private readonly waiting = new Map<string, PaceRefusal[]>();

  /** The next `times` sends to `recipient` are refused with `refusal`. */
  refuse(recipient: string, refusal: PaceRefusal, times = 1): void {
    this.waiting.set(recipient, [...(this.waiting.get(recipient) ?? []), ...Array.from({ length: times }, () => refusal)]);
  }

  /** The refusal the send to `recipient` gets, if one waits (it is used up). */
  take(recipient: string): PaceRefusalAnswer | undefined {
    const refusal = this.waiting.get(recipient)?.shift();
    return refusal === undefined ? undefined : PACE_REFUSALS[refusal];
  }

  reset(): void {
    this.waiting.clear();
  }
}
