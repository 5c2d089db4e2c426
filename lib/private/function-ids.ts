/** A function of the pipeline: its id prefixes its log group, role and function, and names its bundled handler. */
export type PipelineFunctionId = 'Webhook' | 'EumInbound' | 'Orchestrator' | 'Operator' | 'HandoffSweeper' | 'IdleSweeper' | 'CrmSync' | 'Evaluator';
