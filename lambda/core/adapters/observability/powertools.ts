import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { Tracer } from '@aws-lambda-powertools/tracer';
import type { ObservabilityConfig } from '../runtime-environment';

export interface Powertools {
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly tracer: Tracer;
}

/**
 * One set of Powertools utilities per function. Service name and metrics namespace come from the
 * function's runtime config (the POWERTOOLS_* variables the construct sets); the defaults serve
 * local runs. The tracer is inert outside Lambda, so the same code runs locally without an X-Ray
 * daemon.
 */
export function createPowertools(defaultServiceName: string, config: ObservabilityConfig = {}): Powertools {
  const serviceName = config.serviceName ?? defaultServiceName;
  return {
    logger: new Logger({ serviceName }),
    metrics: new Metrics({ serviceName, namespace: config.metricsNamespace ?? 'AgentPipeline' }),
    tracer: new Tracer({ serviceName }),
  };
}

/**
 * Runs one invocation inside its own X-Ray subsegment (cold start and service annotated, errors
 * recorded) and always flushes its metrics, even when the invocation fails. Outside Lambda the
 * tracer hands out a dummy segment, so this costs nothing locally.
 */
export async function instrumentInvocation<T>({ tracer, metrics }: Pick<Powertools, 'tracer' | 'metrics'>, name: string, invocation: () => Promise<T>): Promise<T> {
  const parent = tracer.getSegment();
  const subsegment = parent?.addNewSubsegment(`## ${name}`);
  if (subsegment) tracer.setSegment(subsegment);
  tracer.annotateColdStart();
  tracer.addServiceNameAnnotation();
  try {
    return await invocation();
  } catch (error) {
    tracer.addErrorAsMetadata(error as Error);
    throw error;
  } finally {
    subsegment?.close();
    if (parent) tracer.setSegment(parent);
    // A request that recorded nothing (e.g. the verification handshake) has nothing to flush.
    if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
  }
}
