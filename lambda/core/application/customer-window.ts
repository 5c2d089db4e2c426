import type { Message } from '../domain/message';
import { isInsideServiceWindow } from '../domain/service-window';
import type { Clock } from '../ports/clock';
import type { MessageRepository } from '../ports/repositories';

/** Pages of 25 the customer's newest message is looked for in: a customer not found in 100 messages wrote long ago. */
const WINDOW_LOOKBACK_PAGES = 4;

/** The customer's newest message in their history (newest first, at most a few pages read). */
export async function lastCustomerMessage(messages: Pick<MessageRepository, 'history'>, customerId: string): Promise<Message | undefined> {
  let cursor: string | undefined;
  for (let page = 0; page < WINDOW_LOOKBACK_PAGES; page++) {
    const history = await messages.history(customerId, { limit: 25, cursor });
    const found = history.items.find((message) => message.direction === 'inbound');
    if (found !== undefined || history.cursor === undefined) return found;
    cursor = history.cursor;
  }
  return undefined;
}

/** Whether free text still reaches the customer, by their newest message in the history (outside a turn, which knows it already). */
export async function isCustomerWindowOpen(deps: { readonly messages: Pick<MessageRepository, 'history'>; readonly clock: Clock }, customerId: string): Promise<boolean> {
  return isInsideServiceWindow((await lastCustomerMessage(deps.messages, customerId))?.timestamp, deps.clock.now());
}
