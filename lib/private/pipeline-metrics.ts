import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { CUSTOM_METRICS, type CustomMetricName } from '../contract';
import { ALARM_PERIOD } from './pipeline-settings';

/** The DynamoDB operations the functions issue, for the throttling alarm (≤ 10 metrics per alarm). */
const TABLE_OPERATIONS_IN_USE = [
  dynamodb.Operation.GET_ITEM,
  dynamodb.Operation.QUERY,
  dynamodb.Operation.PUT_ITEM,
  dynamodb.Operation.UPDATE_ITEM,
  dynamodb.Operation.DELETE_ITEM,
  dynamodb.Operation.TRANSACT_WRITE_ITEMS,
  dynamodb.Operation.BATCH_GET_ITEM,
];

/** The estimated cost's default period: the daily-cost alarm's. */
export const ESTIMATED_COST_PERIOD = Duration.days(1);

/**
 * Every metric of one pipeline that its alarms, its dashboard and its `metric*` methods read, over
 * the one-minute alarm period unless the options say otherwise.
 */
export class PipelineMetrics {
  /**
   * @param namespace the functions' `POWERTOOLS_METRICS_NAMESPACE`: the pipeline's `serviceName`
   * @param service the functions' `POWERTOOLS_SERVICE_NAME`: the deployment's name
   */
  constructor(
    private readonly namespace: string,
    private readonly service: string,
    private readonly table: dynamodb.ITable,
    private readonly queue: sqs.IQueue,
  ) {}

  /**
   * A metric the functions emit through Powertools (sum unless overridden). Powertools writes EMF
   * with the namespace of `POWERTOOLS_METRICS_NAMESPACE` and one dimension set, `[["service"]]`,
   * whose value is `POWERTOOLS_SERVICE_NAME`; the construct sets both, so the metric below is
   * exactly that series.
   */
  public custom(metricName: CustomMetricName, props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: this.namespace,
      metricName,
      dimensionsMap: { service: this.service },
      statistic: 'Sum',
      period: ALARM_PERIOD,
      ...props,
    });
  }

  /**
   * The pipeline's estimated cost in US dollars: Meta's fees plus the model's tokens, each summed
   * over the period (a day unless overridden). Either is absent while nothing is billed, hence
   * `FILL(…, 0)` on both terms.
   */
  public estimatedCost(props?: cloudwatch.MathExpressionOptions): cloudwatch.MathExpression {
    const period = props?.period ?? ESTIMATED_COST_PERIOD;
    return new cloudwatch.MathExpression({
      expression: 'FILL(metaFees, 0) + FILL(modelTokens, 0)',
      usingMetrics: { metaFees: this.custom(CUSTOM_METRICS.metaFeesUsd, { period }), modelTokens: this.custom(CUSTOM_METRICS.agentCostUsd, { period }) },
      label: 'Estimated cost (USD)',
      ...props,
      period,
    });
  }

  /** Messages visible in `queue` (maximum unless overridden). */
  public messagesVisible(queue: sqs.IQueue, props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return queue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: ALARM_PERIOD, ...props });
  }

  /** Age in seconds of the oldest message in the turn queue (maximum unless overridden). */
  public oldestMessageAge(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.queue.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum', period: ALARM_PERIOD, ...props });
  }

  /**
   * Throttled requests to the table, summed over the operations the pipeline issues. DynamoDB
   * publishes the metric only when something is throttled, hence `FILL(…, 0)` on every term.
   */
  public tableThrottledRequests(props?: cloudwatch.MathExpressionOptions): cloudwatch.IMetric {
    const usingMetrics: Record<string, cloudwatch.IMetric> = {};
    for (const operation of TABLE_OPERATIONS_IN_USE) {
      usingMetrics[operation.toLowerCase()] = this.table.metric('ThrottledRequests', {
        dimensionsMap: { TableName: this.table.tableName, Operation: operation },
        statistic: 'Sum',
        period: props?.period ?? ALARM_PERIOD,
      });
    }
    return new cloudwatch.MathExpression({
      expression: Object.keys(usingMetrics).map((id) => `FILL(${id}, 0)`).join(' + '),
      usingMetrics,
      label: 'Throttled requests',
      period: ALARM_PERIOD,
      ...props,
    });
  }

  /** Throttled calls to a Bedrock model or inference profile, as Bedrock publishes them (sum unless overridden). */
  public modelThrottles(modelId: string, props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: 'AWS/Bedrock',
      metricName: 'InvocationThrottles',
      dimensionsMap: { ModelId: modelId },
      statistic: 'Sum',
      period: ALARM_PERIOD,
      ...props,
    });
  }
}
