import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import type { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { CUSTOM_METRICS, PIPELINE_DEFAULTS, turnOutcomeMetric } from '../../lib/contract';
import { decodeDispatchMessage } from '../core/adapters/sqs/dispatch-message';
import { agentCostUsd } from '../core/application/agent-cost';
import type { ProcessTurn } from '../core/application/process-turn';
import type { AgentCallReport } from '../core/application/turn-settings';
import type { ToolCallRecord } from '../core/ports/agent-tools';
import { ReplyDeliveryError } from '../core/application/reply-delivery-error';
import { errorSummary } from '../core/adapters/observability/error-summary';
import { maskCustomerId } from '../core/domain/privacy';
import type { Clock } from '../core/ports/clock';

export interface TurnHandlerDependencies {
  readonly processTurn: ProcessTurn;
  /** Reads the invocation's deadline: the Lambda reports the time it has left, not an instant. */
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /**
   * The queue's redrive `maxReceiveCount`: the receive that reaches it is the final attempt.
   * @default PIPELINE_DEFAULTS.maxReceiveCount
   */
  readonly maxReceiveCount?: number;
}

/** The part of the Lambda context the handler needs (the local runtime supplies its own). */
export type InvocationContext = Pick<Context, 'getRemainingTimeInMillis'> & Partial<Context>;

/**
 * SQS → one turn per record (batch size 1, FIFO). A record is reported in `batchItemFailures` only
 * when a retry can help; a body that can never be processed is logged (`bad_sqs_body`) and dropped.
 */
export function createTurnHandler(deps: TurnHandlerDependencies): (event: SQSEvent, context: InvocationContext) => Promise<SQSBatchResponse> {
  const { logger, metrics, processTurn, clock } = deps;
  const maxReceiveCount = deps.maxReceiveCount ?? PIPELINE_DEFAULTS.maxReceiveCount;

  async function handleRecord(record: SQSRecord, context: InvocationContext): Promise<void> {
    const dispatch = decodeDispatchMessage(record.body);
    if (dispatch === undefined) {
      metrics.addMetric(CUSTOM_METRICS.badSqsBody, MetricUnit.Count, 1);
      logger.warn('bad_sqs_body', { outcome: 'bad_body', sqsMessageId: record.messageId });
      return;
    }
    const customer = maskCustomerId(dispatch.customerId);
    const receiveCount = Number(record.attributes?.ApproximateReceiveCount ?? 1);
    try {
      const report = await processTurn.execute({
        customerId: dispatch.customerId,
        deadline: clock.now().getTime() + context.getRemainingTimeInMillis(),
        finalAttempt: receiveCount >= maxReceiveCount,
      });
      metrics.addMetric(turnOutcomeMetric(report.outcome), MetricUnit.Count, 1);
      // An earlier attempt's reply settled on the way (a maybe-sent one among them) is counted too.
      if (report.earlierReply !== undefined) metrics.addMetric(turnOutcomeMetric(report.earlierReply), MetricUnit.Count, 1);
      if (report.agent) {
        metrics.addMetric(CUSTOM_METRICS.agentLatency, MetricUnit.Milliseconds, report.agent.latencyMs);
        metrics.addMetric(CUSTOM_METRICS.agentIterations, MetricUnit.Count, report.agent.iterations);
        if (report.agent.usage) {
          metrics.addMetric(CUSTOM_METRICS.agentInputTokens, MetricUnit.Count, report.agent.usage.inputTokens);
          metrics.addMetric(CUSTOM_METRICS.agentOutputTokens, MetricUnit.Count, report.agent.usage.outputTokens);
          const { cacheReadInputTokens, cacheWriteInputTokens } = report.agent.usage;
          if (cacheReadInputTokens !== undefined) metrics.addMetric(CUSTOM_METRICS.agentCacheReadInputTokens, MetricUnit.Count, cacheReadInputTokens);
          if (cacheWriteInputTokens !== undefined) metrics.addMetric(CUSTOM_METRICS.agentCacheWriteInputTokens, MetricUnit.Count, cacheWriteInputTokens);
        }
        addToolMetrics(metrics, report.agent.toolCalls ?? []);
        if (report.agent.interactive !== undefined) metrics.addMetric(report.agent.interactive === 'interactive' ? CUSTOM_METRICS.interactiveReplySent : CUSTOM_METRICS.interactiveReplyFellBackToText, MetricUnit.Count, 1);
        const costUsd = agentCostUsd(report.agent);
        if (costUsd !== undefined) metrics.addMetric(CUSTOM_METRICS.agentCostUsd, MetricUnit.NoUnit, costUsd);
      }
      if (report.overBudget) metrics.addMetric(report.overBudget === 'pipeline_tokens_per_day' ? CUSTOM_METRICS.turnOverPipelineBudget : CUSTOM_METRICS.turnOverBudget, MetricUnit.Count, 1);
      if (report.pipelineTokensToday !== undefined) metrics.addMetric(CUSTOM_METRICS.pipelineAgentTokensToday, MetricUnit.Count, report.pipelineTokensToday);
      logger.info('turn_processed', { outcome: report.outcome, earlierReply: report.earlierReply, customer, drained: report.drained, agent: report.agent && loggableAgentCall(report.agent), overBudget: report.overBudget, receiveCount });
    } catch (error) {
      const outcome = error instanceof ReplyDeliveryError ? 'send_failed' : 'failed';
      metrics.addMetric(outcome === 'send_failed' ? CUSTOM_METRICS.replySendFailed : CUSTOM_METRICS.turnFailed, MetricUnit.Count, 1);
      if (error instanceof ReplyDeliveryError && error.outcomeUnknown) metrics.addMetric(CUSTOM_METRICS.replyOutcomeUnknown, MetricUnit.Count, 1);
      const deadLettered = receiveCount >= maxReceiveCount;
      // Records fail one by one (partial batch response), so the function's Errors metric never sees this.
      if (deadLettered) metrics.addMetric(CUSTOM_METRICS.turnFailedPermanently, MetricUnit.Count, 1);
      logger.error('turn_failed', { outcome, customer, receiveCount, deadLettered, ...errorSummary(error) });
      throw error;
    }
  }

  return async (event, context) => {
    const processor = new SqsFifoPartialProcessorAsync();
    // With batch size 1 every failure is a full-batch failure; report it as an item failure so SQS
    // retries that record (and counts it toward the redrive) instead of failing the invocation.
    return processPartialResponse(event, (record: SQSRecord) => handleRecord(record, context), processor, {
      throwOnFullBatchFailure: false,
    });
  };
}

/**
 * Tool calls made (not replayed), those that failed to do their work, and re-calls under an intent's
 * key. A refusal is the business answering (out of stock, no slot), not a failure of the tool.
 */
function addToolMetrics(metrics: Metrics, calls: readonly ToolCallRecord[]): void {
  const made = calls.filter((call) => !call.replayed);
  if (made.length === 0) return;
  metrics.addMetric(CUSTOM_METRICS.toolCalls, MetricUnit.Count, made.length);
  const failed = made.filter((call) => call.result !== undefined && call.result.outcome !== 'ok' && call.result.outcome !== 'refused').length;
  if (failed > 0) metrics.addMetric(CUSTOM_METRICS.toolCallsFailed, MetricUnit.Count, failed);
  const recalled = made.filter((call) => call.recalled).length;
  if (recalled > 0) metrics.addMetric(CUSTOM_METRICS.toolRecalls, MetricUnit.Count, recalled);
}

/** The agent's call as logged: a tool call by its name, outcome and duration, never its input or result (customer data). */
function loggableAgentCall({ toolCalls, ...call }: AgentCallReport): object {
  if (toolCalls === undefined) return call;
  return { ...call, toolCalls: toolCalls.map(({ name, result, durationMs, replayed, recalled }) => ({ name, outcome: result?.outcome, durationMs, replayed, recalled })) };
}
