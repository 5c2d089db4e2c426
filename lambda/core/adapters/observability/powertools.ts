import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Tracer } from '@aws-lambda-powertools/tracer';

/** Powertools' service name and metrics namespace, as the deployment sets them; unset in local runs, which use the defaults. */
export interface ObservabilityConfig {
  readonly serviceName?: string;
  readonly metricsNamespace?: string;
}

/** What the functions use of Powertools' tracer. */
export type FunctionTracer = Pick<Tracer, 'getSegment' | 'setSegment' | 'annotateColdStart' | 'addServiceNameAnnotation' | 'addErrorAsMetadata'>;

export interface Powertools {
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly tracer: FunctionTracer;
}

/**
 * Stands in for the tracer where it would trace nothing. Loading Powertools' tracer loads the X-Ray
 * SDK, which installs an async hook that tracks every promise of the process even while tracing is
 * off — a cost paid for nothing outside Lambda (local runtime, tests, benchmarks) or with
 * `POWERTOOLS_TRACE_ENABLED=false`.
 */
const INERT_TRACER: FunctionTracer = {
  getSegment: () => undefined,
  setSegment: () => undefined,
  annotateColdStart: () => undefined,
  addServiceNameAnnotation: () => undefined,
  addErrorAsMetadata: () => undefined,
};

/** Powertools' own rule for when its tracer traces: in Lambda (not SAM local or Amplify's mock), unless turned off. */
function tracingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const executionEnv = env.AWS_EXECUTION_ENV ?? '';
  return env.POWERTOOLS_TRACE_ENABLED?.toLowerCase() !== 'false' && executionEnv !== '' && executionEnv !== 'AWS_Lambda_amplify-mock' && (env.AWS_SAM_LOCAL ?? '') === '';
}

function createTracer(serviceName: string): FunctionTracer {
  if (!tracingEnabled()) return INERT_TRACER;
  // Loaded here, not at the top: the bundle evaluates the tracer and the X-Ray SDK only when tracing.
  const { Tracer: PowertoolsTracer } = require('@aws-lambda-powertools/tracer') as typeof import('@aws-lambda-powertools/tracer');
  return new PowertoolsTracer({ serviceName });
}

/**
 * One set of Powertools utilities per function. Service name and metrics namespace come from the
 * deployment's settings (the POWERTOOLS_* variables the construct sets); the defaults serve local
 * runs. The tracer is inert outside Lambda, so the same code runs locally without an X-Ray
 * daemon.
 */
export function createPowertools(defaultServiceName: string, config: ObservabilityConfig = {}): Powertools {
  const serviceName = config.serviceName ?? defaultServiceName;
  return {
    logger: new Logger({ serviceName }),
    metrics: new Metrics({ serviceName, namespace: config.metricsNamespace ?? 'AgentPipeline' }),
    tracer: createTracer(serviceName),
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
