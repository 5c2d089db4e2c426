import { setTimeout as sleepFor } from 'node:timers/promises';
import { WhatsAppSendError, type SentTextMessage } from '../../ports/whatsapp-sender';

/**
 * Meta's refusals that mean "too fast, not wrong": the pair rate (131056, about one message every
 * 6 s from a number to one user, with short bursts allowed) and the number's throughput (130429,
 * 80 messages a second by default, inbound included).
 */
const PACING_CODES: ReadonlySet<number> = new Set([131056, 130429]);

/**
 * The waits before sending again after such a refusal: Meta's advice is 4^X seconds (1, 4, 16…).
 * One budget for a whole send, 5 s in all, well within the 15 s a turn keeps for persisting and
 * sending: a pair that is still refused after it is left to the queue's redelivery.
 */
export const PACING_BACKOFF_MS: readonly number[] = [1_000, 4_000];

/** Meta (or End User Messaging's own throttling, which names no Meta code) refused the send for its pace. */
export function isPacingRefusal(error: unknown): boolean {
  return error instanceof WhatsAppSendError && error.category === 'rate_limit' && !error.outcomeUnknown && (error.metaCode === undefined || PACING_CODES.has(error.metaCode));
}

/**
 * Sends the messages of one reply (its parts, or its one interactive message) one after another; a pacing refusal
 * is retried after {@link PACING_BACKOFF_MS}, so a part WhatsApp accepted is never sent again — the
 * queue's redelivery would resend the reply from its first part — and a customer briefly over the
 * pair rate gets the reply a few seconds late instead of a visibility timeout later.
 * `send` answers the provider's message id of one message.
 */
export async function sendPaced<Part>(
  parts: readonly Part[],
  send: (part: Part, partsDelivered: number) => Promise<string>,
  sleep: (ms: number) => Promise<void> = (ms) => sleepFor(ms),
): Promise<SentTextMessage> {
  const providerMessageIds: string[] = [];
  const waits = [...PACING_BACKOFF_MS];
  for (const part of parts) {
    for (;;) {
      try {
        providerMessageIds.push(await send(part, providerMessageIds.length));
        break;
      } catch (error) {
        const wait = isPacingRefusal(error) ? waits.shift() : undefined;
        if (wait === undefined) throw error;
        await sleep(wait);
      }
    }
  }
  return { providerMessageId: providerMessageIds[0], providerMessageIds };
}
