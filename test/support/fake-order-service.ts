/** An order a tool call created. */
export interface FakeOrder {
  readonly orderId: string;
  readonly sku: string;
  readonly quantity: number;
}

/** The event a tool function received (contract version 1), as the tests read it. */
export interface ReceivedToolEvent {
  readonly version: string;
  readonly tool: string;
  readonly input: { readonly sku: string; readonly quantity: number };
  readonly toolUseId: string;
  readonly idempotencyKey?: string;
  readonly context: { readonly customerId: string; readonly sessionId: string; readonly stage?: string; readonly locale: string; readonly messageIds: readonly string[] };
  readonly deadline: number;
}

/**
 * A business's order service as a tool function: it honours idempotency keys as a real one would
 * (a repeated key answers the first call's order and creates nothing), and counts the calls it
 * received and the orders it created separately.
 */
export class FakeOrderService {
  readonly events: ReceivedToolEvent[] = [];
  readonly orders: FakeOrder[] = [];
  private readonly byKey = new Map<string, FakeOrder>();

  /** The function's handler: `{result: order}`. */
  readonly handler = async (event: unknown): Promise<unknown> => {
    const received = event as ReceivedToolEvent;
    this.events.push(received);
    const earlier = received.idempotencyKey === undefined ? undefined : this.byKey.get(received.idempotencyKey);
    if (earlier !== undefined) return { result: earlier };
    const order = { orderId: `order-${this.orders.length + 1}`, sku: received.input.sku, quantity: received.input.quantity };
    this.orders.push(order);
    if (received.idempotencyKey !== undefined) this.byKey.set(received.idempotencyKey, order);
    return { result: order };
  };

  /** The order created under `key`, if any. */
  orderOf(key: string): FakeOrder | undefined {
    return this.byKey.get(key);
  }

  /** Calls received of one customer's turns. */
  callsOf(customerId: string): ReceivedToolEvent[] {
    return this.events.filter((event) => event.context.customerId === customerId);
  }
}

/** `create_order` as a business declares it with `AgentTool.fromFunction(…, { sideEffects: true })`. */
export const CREATE_ORDER_TOOL = {
  name: 'create_order',
  description: 'Create an order once the customer confirmed the item and the quantity.',
  inputSchema: {
    type: 'object',
    properties: { sku: { type: 'string', minLength: 1 }, quantity: { type: 'integer', minimum: 1 } },
    required: ['sku', 'quantity'],
    additionalProperties: false,
  },
  sideEffects: true,
} as const;

/** `check_stock`, a read-only tool: how many units of an item are in stock. */
export const CHECK_STOCK_TOOL = {
  name: 'check_stock',
  description: 'How many units of an item are in stock.',
  inputSchema: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
  sideEffects: false,
} as const;
