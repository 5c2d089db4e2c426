import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { Tracer } from '@aws-lambda-powertools/tracer';

export interface Powertools {
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly tracer: Tracer;
}

/**
 * One set of Powertools utilities per function. Service name and metrics namespace come from the
 * POWERTOOLS_* variables the construct sets; the defaults serve local runs. The tracer is inert
 * outside Lambda, so the same code runs locally without an X-Ray daemon.
 */
export function createPowertools(defaultServiceName: string): Powertools {
  const serviceName = process.env.POWERTOOLS_SERVICE_NAME ?? defaultServiceName;
  return {
    logger: new Logger({ serviceName }),
    metrics: new Metrics({ serviceName, namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'AgentPipeline' }),
    tracer: new Tracer({ serviceName }),
  };
}

/** Runs one invocation and always flushes its metrics, even when the invocation fails. */
export async function withMetrics<T>(metrics: Metrics, invocation: () => Promise<T>): Promise<T> {
  try {
    return await invocation();
  } finally {
    metrics.publishStoredMetrics();
  }
}
