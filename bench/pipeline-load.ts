import type { FakeGraphApi } from '../local/fake-whatsapp/fake-graph-api';
import type { LocalPipeline } from '../local/runtime/local-pipeline';
import { closedLoop, newCustomers, type Measurement } from './measurement';

const REPLY_TIMEOUT_MS = 30_000;

/**
 * Closed-loop load through the whole pipeline: each customer POSTs a signed message to the webhook
 * and waits until the fake WhatsApp API has recorded the reply before sending the next, so every
 * message is one full turn (nothing merges) and latency is POST → reply recorded. The reply must be
 * the agent's answer to that message (the scripted agent quotes it): a turn that did not ask the
 * agent (over budget, say) would measure a shorter path than the one reported.
 */
export async function measurePipeline(pipeline: LocalPipeline, customers: number, perCustomer: number, maxMs: number): Promise<Measurement> {
  const ids = newCustomers(customers);
  const replies = new ReplyWatcher(pipeline.fakeWhatsApp);
  try {
    return await closedLoop(customers, perCustomer, maxMs, async (stream, index) => {
      const customer = ids[stream];
      const started = performance.now();
      const replied = replies.next(customer);
      const text = `mensagem ${index + 1}`;
      const { status } = await pipeline.sendCustomerMessage(customer, text);
      if (status !== 200) throw new Error(`The webhook answered ${status} for ${customer}`);
      const reply = await replied;
      if (!reply.text.includes(text)) throw new Error(`The reply to ${customer} is not the agent's answer to "${text}": ${reply.text}`);
      return reply.at - started;
    });
  } finally {
    replies.stop();
  }
}

/** Resolves, per customer, with the moment the fake Graph API recorded that customer's next reply, and its text. */
class ReplyWatcher {
  private readonly waiting = new Map<string, { resolve: (reply: { at: number; text: string }) => void; timer: NodeJS.Timeout }>();
  private readonly stopWatching: () => void;

  constructor(fake: FakeGraphApi) {
    // Told as each reply is recorded: no polling loop competes with the pipeline for the CPU.
    this.stopWatching = fake.onSent((reply) => this.replied(reply.recipient, reply.text));
  }

  next(customer: string): Promise<{ at: number; text: string }> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(customer);
        reject(new Error(`No reply to ${customer} within ${REPLY_TIMEOUT_MS} ms`));
      }, REPLY_TIMEOUT_MS);
      this.waiting.set(customer, { resolve, timer });
    });
  }

  stop(): void {
    this.stopWatching();
    for (const waiter of this.waiting.values()) clearTimeout(waiter.timer);
  }

  private replied(recipient: string, text: string): void {
    const waiter = this.waiting.get(recipient);
    if (!waiter) return;
    this.waiting.delete(recipient);
    clearTimeout(waiter.timer);
    waiter.resolve({ at: performance.now(), text });
  }
}
