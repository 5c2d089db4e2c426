/** The alias the webhook and orchestrator are invoked through (`functionAlias`). */
export interface PipelineFunctionAlias {
  /**
   * Name of both aliases: letters, digits, `-` and `_` (not only digits), at most 128 characters.
   *
   * @default 'live'
   */
  readonly aliasName?: string;

  /**
   * Provisioned concurrency of the webhook alias: warm environments that keep Meta's wait free of
   * cold starts. At most `webhookReservedConcurrency` when that is set.
   *
   * @default - none (on-demand only)
   */
  readonly webhookProvisionedConcurrency?: number;

  /**
   * Provisioned concurrency of the orchestrator alias. At most `orchestratorMaxConcurrency` when
   * that is set: the event source never runs more turns at once, so more would stay idle.
   *
   * @default - none (on-demand only)
   */
  readonly orchestratorProvisionedConcurrency?: number;
}
