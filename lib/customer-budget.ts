/**
 * What one WhatsApp customer may cost (docs/RELIABILITY.md#security). A turn over any limit is
 * answered with `reply`, without calling the model — once per window of the limit reached: after
 * the customer received it, their further messages of that window are kept unanswered, and the
 * agent reads them at the next admitted turn. The counts live in the table, one item per customer
 * and UTC day, and are updated atomically so concurrent turns cannot slip past a limit. Windows are
 * fixed: the UTC minute, hour and day a turn starts in.
 */
export interface CustomerBudget {
  /**
   * Agent turns one customer may start per minute (messages sent in a burst are merged into one turn).
   *
   * @default 8
   */
  readonly turnsPerMinute?: number;

  /**
   * Agent turns one customer may start per hour.
   *
   * @default 60
   */
  readonly turnsPerHour?: number;

  /**
   * Model tokens (input plus output, as the agent backend reports them) one customer may use per
   * UTC day. The turn that crosses the limit completes; the next one is refused. A backend that
   * reports no usage (an agent function without `usage`) is bounded by the turn limits alone.
   *
   * @default 250000
   */
  readonly agentTokensPerDay?: number;

  /**
   * Sent to the customer instead of the agent's answer when a turn is over budget, once per window
   * of the limit reached (at most 1,024 characters).
   *
   * @default - the `locale`'s text; for pt-BR 'Recebemos muitas mensagens suas em pouco tempo. Por favor, aguarde alguns minutos e escreva de novo.'
   */
  readonly reply?: string;
}
