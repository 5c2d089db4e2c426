import { randomUUID } from 'node:crypto';
import type { InboundTurn } from '../../lambda/core/domain/inbound-turn';
import type { Session } from '../../lambda/core/domain/session';
import { newMessageId } from './ids';

/** A customer's text message as the inbound functions register it; any field can be overridden. */
export function inboundTurn(customerId: string, overrides: Partial<InboundTurn> = {}): InboundTurn {
  return {
    customerId,
    customerIdKind: 'phone',
    messageId: newMessageId(),
    providerTimestamp: '2026-03-10T11:59:00.000Z',
    receivedAt: '2026-03-10T11:59:01.000Z',
    messageType: 'text',
    text: 'Olá, quero saber sobre o exame',
    businessPhoneNumberId: '109876543210',
    ...overrides,
  };
}

/** A qualifying session with some qualification data; any field can be overridden. */
export function newSession(customerId: string, overrides: Partial<Session> = {}): Session {
  return {
    sessionId: randomUUID(),
    customerId,
    customerIdKind: 'phone',
    businessPhoneNumberId: '109876543210',
    state: 'QUALIFYING',
    currentAgent: 'qualification',
    qualificationData: { sampleType: 'synthetic sample' },
    cadastralData: {},
    handoffRenotifyCount: 0,
    createdAt: '2026-03-10T12:00:00.000000Z',
    updatedAt: '2026-03-10T12:00:05.000000Z',
    ...overrides,
  };
}
