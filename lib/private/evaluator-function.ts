import { Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { AgentBackend } from '../agent-backend';
import { EVALUATOR_DEFAULTS, type FunctionSettings } from '../contract';
import type { PipelineFunctionFactory } from './function-factory';
import { acceptFinding } from './accepted-findings';
import { EVALUATION_START_ACTIONS } from './permissions';
import type { PipelineSettings } from './pipeline-settings';

/** What the evaluator is built from. */
export interface EvaluatorSources {
  readonly scope: Construct;
  readonly settings: PipelineSettings;
  readonly functions: PipelineFunctionFactory;
  /** The pipeline's agent backend, whose agent the evaluator calls as the orchestrator does. */
  readonly agentBackend: AgentBackend;
  /** What the plan tells the evaluator. */
  readonly told: FunctionSettings;
  /** `${serviceName}-${environment}`, which the description names. */
  readonly deploymentName: string;
  /** The operator function, which starts the console's runs. */
  readonly invokedBy: lambda.IFunction;
}

/**
 * The evaluator function (docs/EVALUATION.md): plays the deployment's scenario suite through the
 * turn path, for the operator function's runs (asynchronous) and the CLI's suites (synchronous).
 * One run at a time, played once: Lambda keeps a second run in its asynchronous queue for a bounded
 * time and never retries one, so a run that failed or waited too long is reported as not finished.
 * Its role is the agent's calls (not the consumer tools', which an evaluation answers from the
 * scenario's recordings) and its own table grant (pipeline-grants.ts): no queue, no channel.
 */
export function buildEvaluator({ scope, settings, functions, agentBackend, told, deploymentName, invokedBy }: EvaluatorSources): lambda.Function {
  agentBackend._grantEvaluation(scope, functions.createRole('Evaluator'));
  const evaluatorFunction = functions.createFunction('Evaluator', {
    description: `Prompt evaluator of ${deploymentName}: plays the scenario suite through the turn path, sending nothing`,
    memorySize: settings.orchestratorMemorySize,
    timeout: Duration.seconds(EVALUATOR_DEFAULTS.timeoutSeconds),
    reservedConcurrentExecutions: EVALUATOR_DEFAULTS.reservedConcurrency,
    settings: told,
  });
  evaluatorFunction.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.seconds(EVALUATOR_DEFAULTS.maxEventAgeSeconds) });
  acceptFinding(
    evaluatorFunction.node.findChild('EventInvokeConfig'),
    'LambdaAsyncFailureDestination',
    'A run that failed is recorded as failed in its own item, and one Lambda dropped is reported as not finished; the admin sees either in the console and starts another, so a destination would hold nothing to act on.',
  );
  // Unqualified invocation by name needs the function ARN only, not the `:*` versions/aliases.
  iam.Grant.addToPrincipal({ grantee: invokedBy, actions: [...EVALUATION_START_ACTIONS], resourceArns: [evaluatorFunction.functionArn] });
  return evaluatorFunction;
}
