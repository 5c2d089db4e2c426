/**
 * What the whole pipeline may spend on the model per UTC day, all customers together
 * (docs/RELIABILITY.md#security): `customerBudget` bounds one customer, but ten phone numbers — or
 * one person writing both as a phone and as a business-scoped user id — multiply it. Once the day's
 * model tokens reach `agentTokensPerDay`, no turn calls the model until the next UTC day: each
 * customer gets `reply` once that day, and their further messages are kept for the agent of the
 * next day. An alarm fires before the budget is reached, and another when turns are refused.
 *
 * The count is approximate by design: every orchestrator instance reads the day's total at most
 * every 30 seconds (one batched read of the count's 8 write shards) and adds its own turns in
 * between, so the day may overrun the budget by what the other instances spend in 30 seconds. Each
 * turn that used the model adds one write (beside the customer's own token count).
 */
export interface PipelineBudget {
  /**
   * Model tokens (input plus output, as the agent backend reports them) every customer's turns
   * together may use per UTC day. A backend that reports no usage is not counted.
   */
  readonly agentTokensPerDay: number;

  /**
   * The share of `agentTokensPerDay` above which `pipelineBudgetNearAlarm` fires (above 0, at most 1).
   *
   * @default 0.8
   */
  readonly alarmAtShareOfBudget?: number;

  /**
   * Sent to a customer instead of the agent's answer once the day's budget is spent, once that day
   * (at most 1,024 characters).
   *
   * @default - the `locale`'s text; for pt-BR 'Nosso atendimento automático atingiu o limite de hoje. Por favor, escreva de novo amanhã; sua mensagem ficou registrada.'
   */
  readonly reply?: string;
}
