import type { InboundTurn } from '../domain/inbound-turn';
import type { LegacyDebounceBuffer, LegacyPendingReply } from '../domain/legacy-debounce';
import { isHumanOwned } from '../domain/session';
import type { InboundReceiptRepository, LegacyDebounceRepository, LegacyItems, SessionRepository } from '../ports/repositories';
import { WhatsAppSendError, type WhatsAppSender } from '../ports/whatsapp-sender';
import { ReplyDeliveryError } from './reply-delivery-error';
import type { TurnOutcome, TurnReport } from './turn-settings';

export interface DrainLegacyDebounceDependencies {
  readonly receipts: InboundReceiptRepository;
  readonly legacy: LegacyDebounceRepository;
  readonly sessions: SessionRepository;
  readonly whatsapp: WhatsAppSender;
}

/**
 * What an older deployment (the former debounce design) may have left for a customer, drained once
 * by the turn that finds nothing else pending: a buffer of messages not yet answered, and a reply
 * computed but not delivered.
 */
export class DrainLegacyDebounce {
  constructor(private readonly deps: DrainLegacyDebounceDependencies) {}

  /** What an older deployment left for the customer: both items, one read. */
  find(customerId: string): Promise<LegacyItems> {
    return this.deps.legacy.getLegacyItems(customerId);
  }

  /**
   * Moves a legacy buffer (as `find` read it) into receipts (registered and routed to the agent like
   * any new message), so it is answered by the same latest-message-wins protocol. `true` when there was one.
   */
  async migrateBuffer(customerId: string, buffer: LegacyDebounceBuffer | undefined): Promise<boolean> {
    if (buffer === undefined) return false;
    const session = await this.deps.sessions.getActive(customerId);
    for (const [index, messageId] of buffer.messageIds.entries()) {
      const turn: InboundTurn = {
        customerId,
        customerIdKind: session?.customerIdKind ?? 'phone',
        messageId,
        providerTimestamp: index === 0 ? buffer.firstMessageAt : buffer.lastMessageAt,
        receivedAt: buffer.lastMessageAt,
        messageType: 'text',
        text: buffer.texts[index] ?? '',
        businessPhoneNumberId: buffer.businessPhoneNumberId ?? session?.businessPhoneNumberId ?? '',
      };
      await this.deps.receipts.registerInbound(turn);
      await this.deps.receipts.markAgentRouted(turn);
    }
    await this.deps.legacy.deleteLegacyBufferIfFirstMessageAt(customerId, buffer.firstMessageAt);
    return true;
  }

  /** A legacy reply (as `find` read it) is replayed once if still valid, never recomputed; `noop` when there is none. */
  async replayPendingReply(customerId: string, legacy: LegacyPendingReply | undefined): Promise<TurnReport> {
    if (legacy === undefined) return { outcome: 'noop', drained: 0 };
    const session = await this.deps.sessions.getActive(customerId);
    let outcome: TurnOutcome = 'superseded';
    if (session?.sessionId === legacy.sessionId && session.state === legacy.state && !isHumanOwned(session.state)) {
      try {
        await this.deps.whatsapp.sendText({ businessPhoneNumberId: session.businessPhoneNumberId ?? '', customerId, customerIdKind: session.customerIdKind ?? 'phone', text: legacy.text });
        outcome = 'resent';
      } catch (error) {
        if (!(error instanceof WhatsAppSendError) || error.retryable) throw new ReplyDeliveryError(error as Error);
        outcome = 'failed_permanent';
      }
    }
    await this.deps.legacy.deleteLegacyPendingReply(customerId);
    return { outcome, drained: 0 };
  }
}
