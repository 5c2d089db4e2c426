import type { MessagingConsent } from '../privacy/messaging-consent';
import type { GateTurn, GateVerdict, TurnGate } from './turn-gate';

/**
 * Opt-out and back (docs/PRIVACY.md): an opt-out or opt-in word is recorded and confirmed, and a
 * customer who opted out gets nothing; either way the agent is not asked and the messages stay out
 * of the history. The consent is the one the turn read with its pending messages.
 */
export class MessagingConsentGate implements TurnGate {
  readonly name = 'consent';
  readonly step = 'before_history';

  constructor(private readonly consent: Pick<MessagingConsent, 'gate'>) {}

  async check({ last, optedOut, windowOpen }: GateTurn): Promise<GateVerdict | undefined> {
    return (await this.consent.gate(last, optedOut, windowOpen)) === 'answer' ? undefined : { kind: 'unanswered', outcome: 'consent' };
  }
}
