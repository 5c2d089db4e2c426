import type { Session } from '../../lambda/core/domain/session';
import { isoMicros } from '../../lambda/core/domain/timestamps';

/**
 * A conversation waiting for a person, as a turn that handed it over leaves it: for filling an
 * inbox straight into the table (a hundred handoffs through the agent would take minutes).
 */
export function waitingSession(options: { readonly sessionId: string; readonly customerId: string; readonly at: Date; readonly profileName?: string; readonly learnedName?: string }): Session {
  const at = isoMicros(options.at);
  return {
    sessionId: options.sessionId,
    customerId: options.customerId,
    state: 'AWAITING_HUMAN',
    qualificationData: {},
    cadastralData: options.learnedName === undefined ? {} : { name: options.learnedName },
    profileName: options.profileName,
    lastCustomerMessage: { preview: 'Quero falar com uma pessoa', at },
    handoffReason: 'Pediu uma pessoa',
    handoffRequestedAt: at,
    handoffRenotifyCount: 0,
    createdAt: at,
    updatedAt: at,
  };
}
