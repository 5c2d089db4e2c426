import type { Message } from '../../lambda/core/domain/message';
import type { AcceptedWhatsAppMessage } from '../fake-whatsapp/fake-graph-api';

/**
 * Who wrote a reply the fake Graph API took, as the terminal chat labels it: `operator <name>` for
 * an operator's reply (the phone when nobody named the operator), `agent` for the rest (the agent's
 * replies and the pipeline's own notices). The reply is found in the conversation by its WhatsApp
 * id or, when the conversation was read before the pipeline recorded that id, as the newest
 * outgoing message with its text.
 */
export async function replyAuthor(
  reply: Pick<AcceptedWhatsAppMessage, 'providerMessageId' | 'text'>,
  history: readonly Message[],
  operatorName: (operatorPhone: string) => Promise<string | undefined>,
): Promise<string> {
  const message =
    history.find((candidate) => candidate.providerMessageId === reply.providerMessageId) ??
    [...history].reverse().find((candidate) => candidate.direction === 'outbound' && candidate.text === reply.text);
  if (message?.role !== 'operator' || message.operatorPhone === undefined) return 'agent';
  return `operator ${(await operatorName(message.operatorPhone)) ?? message.operatorPhone}`;
}
