import { Arn, ArnFormat, Aws, Token } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { acknowledgeFinding } from './private/nag-acknowledgements';
import { AGENT_FUNCTION_INVOKE_ACTIONS, BEDROCK_INVOKE_ACTIONS } from './private/permissions';
import { AGENT_BACKEND_KINDS, RUNTIME_ENV } from './private/pipeline-contract';

/**
 * Prefixes of Amazon Bedrock's system-defined cross-Region inference profiles
 * (`<prefix>.<foundation model id>`).
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-support.html
 */
const CROSS_REGION_PROFILE_PREFIXES = ['us', 'us-gov', 'eu', 'apac', 'jp', 'au', 'ca', 'global'] as const;
const GLOBAL_PROFILE_PREFIX = 'global';

/** Properties of `AgentBackend.bedrock()`. */
export interface BedrockAgentBackendProps {
  /**
   * The Amazon Bedrock model the orchestrator calls through the Converse API: either a foundation
   * model id (`anthropic.claude-sonnet-4-5-20250929-v1:0`), invoked in the stack's Region, or a
   * system-defined cross-Region inference profile id (`us.…`, `eu.…`, `apac.…`, `global.…`),
   * which Bedrock may route to any Region of that profile.
   */
  readonly modelId: string;
}

/** What an agent backend contributes to the orchestrator function. */
export interface AgentBackendConfig {
  /** Environment variables the orchestrator reads to wire in its agent adapter. */
  readonly environment: { [key: string]: string };
}

/**
 * The AI agent the orchestrator calls for each turn. Choose one with a static factory:
 * `AgentBackend.bedrock()`, `AgentBackend.fromFunction()` or `AgentBackend.scripted()`.
 */
export abstract class AgentBackend {
  /**
   * Amazon Bedrock (Converse API with tool use). Grants `bedrock:InvokeModel` on exactly the model,
   * or, for a cross-Region inference profile id, on the profile plus that model in the Regions the
   * profile routes to, and only when invoked through that profile.
   */
  public static bedrock(props: BedrockAgentBackendProps): AgentBackend {
    return new BedrockAgentBackend(props.modelId);
  }

  /**
   * A Lambda function you own that implements the agent. The orchestrator may invoke it
   * (`lambda:InvokeFunction` on that function only; same account).
   *
   * @param agentFunction the function that answers each turn
   */
  public static fromFunction(agentFunction: lambda.IFunction): AgentBackend {
    return new LambdaAgentBackend(agentFunction);
  }

  /**
   * Same as `fromFunction()`: a Lambda function you own that implements the agent.
   *
   * @param agentFunction the function that answers each turn
   * @deprecated `lambda` is a reserved word in Python, where this method is `lambda_`; use `AgentBackend.fromFunction()`.
   * @jsii suppress JSII5018 kept so that existing callers keep compiling until it is removed; `fromFunction()` replaces it
   */
  public static lambda(agentFunction: lambda.IFunction): AgentBackend {
    return AgentBackend.fromFunction(agentFunction);
  }

  /**
   * A deterministic scripted agent built into the orchestrator, for development stacks and tests:
   * no model is called and no permission is granted. Do not use it in production.
   */
  public static scripted(): AgentBackend {
    return new ScriptedAgentBackend();
  }

  /**
   * Grants the orchestrator what this backend needs and returns its settings.
   *
   * @param scope the construct that owns the orchestrator
   * @param orchestrator the function that calls the agent
   */
  public abstract bind(scope: Construct, orchestrator: lambda.IFunction): AgentBackendConfig;
}

class BedrockAgentBackend extends AgentBackend {
  constructor(private readonly modelId: string) {
    super();
    if (!Token.isUnresolved(modelId) && !/^[a-z0-9][a-z0-9.:_-]*$/i.test(modelId)) {
      throw new Error(
        `AgentBackend.bedrock: modelId '${modelId}' is not a Bedrock model id or cross-Region inference profile id ` +
          "(e.g. 'anthropic.claude-sonnet-4-5-20250929-v1:0' or 'us.anthropic.claude-sonnet-4-5-20250929-v1:0'); ARNs are not accepted.",
      );
    }
  }

  public bind(_scope: Construct, orchestrator: lambda.IFunction): AgentBackendConfig {
    const profilePrefix = crossRegionProfilePrefix(this.modelId);
    if (profilePrefix === undefined) {
      orchestrator.addToRolePolicy(
        new iam.PolicyStatement({
          actions: [...BEDROCK_INVOKE_ACTIONS],
          resources: [foundationModelArn(this.modelId, Aws.REGION)],
        }),
      );
    } else {
      this.grantInferenceProfile(orchestrator, profilePrefix);
    }
    return {
      environment: {
        [RUNTIME_ENV.agentBackend]: AGENT_BACKEND_KINDS.bedrock,
        [RUNTIME_ENV.bedrockModelId]: this.modelId,
      },
    };
  }

  /**
   * A cross-Region profile needs the profile itself plus the foundation model in every destination
   * Region (global profiles also use a Region-less model ARN). Destination Regions change as Bedrock
   * grows, so they are a wildcard, bounded by the condition that the call goes through this profile.
   *
   * @see https://docs.aws.amazon.com/bedrock/latest/userguide/geographic-cross-region-inference.html
   * @see https://docs.aws.amazon.com/bedrock/latest/userguide/global-cross-region-inference.html
   */
  private grantInferenceProfile(orchestrator: lambda.IFunction, prefix: string): void {
    const foundationModelId = this.modelId.slice(prefix.length + 1);
    const profileArn = Arn.format({
      partition: Aws.PARTITION,
      service: 'bedrock',
      region: Aws.REGION,
      account: Aws.ACCOUNT_ID,
      resource: 'inference-profile',
      resourceName: this.modelId,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
    const anyRegionModelArn = foundationModelArn(foundationModelId, '*');
    const modelArns = prefix === GLOBAL_PROFILE_PREFIX ? [anyRegionModelArn, foundationModelArn(foundationModelId, '')] : [anyRegionModelArn];
    orchestrator.addToRolePolicy(new iam.PolicyStatement({ actions: [...BEDROCK_INVOKE_ACTIONS], resources: [profileArn] }));
    orchestrator.addToRolePolicy(
      new iam.PolicyStatement({
        actions: [...BEDROCK_INVOKE_ACTIONS],
        resources: modelArns,
        conditions: { StringEquals: { 'bedrock:InferenceProfileArn': profileArn } },
      }),
    );
    if (orchestrator.role) {
      acknowledgeFinding(orchestrator.role, {
        id: 'AwsSolutions-IAM5',
        appliesTo: `Resource::arn:<AWS::Partition>:bedrock:*::foundation-model/${foundationModelId}`,
        reason:
          `The cross-Region inference profile ${this.modelId} routes each call to any of its destination Regions, ` +
          'which AWS changes over time; the statement is limited to this one model and, by the bedrock:InferenceProfileArn ' +
          'condition, to calls made through this profile.',
      });
    }
  }
}

class LambdaAgentBackend extends AgentBackend {
  constructor(private readonly agentFunction: lambda.IFunction) {
    super();
  }

  public bind(_scope: Construct, orchestrator: lambda.IFunction): AgentBackendConfig {
    // Unqualified invocation by name needs the function ARN only, not the `:*` versions/aliases.
    iam.Grant.addToPrincipal({
      grantee: orchestrator,
      actions: [...AGENT_FUNCTION_INVOKE_ACTIONS],
      resourceArns: [this.agentFunction.functionArn],
    });
    return {
      environment: {
        [RUNTIME_ENV.agentBackend]: AGENT_BACKEND_KINDS.lambda,
        [RUNTIME_ENV.agentFunctionName]: this.agentFunction.functionName,
      },
    };
  }
}

class ScriptedAgentBackend extends AgentBackend {
  public bind(_scope: Construct, _orchestrator: lambda.IFunction): AgentBackendConfig {
    return { environment: { [RUNTIME_ENV.agentBackend]: AGENT_BACKEND_KINDS.scripted } };
  }
}

function crossRegionProfilePrefix(modelId: string): string | undefined {
  if (Token.isUnresolved(modelId)) {
    return undefined;
  }
  return CROSS_REGION_PROFILE_PREFIXES.find((prefix) => modelId.startsWith(`${prefix}.`));
}

function foundationModelArn(foundationModelId: string, region: string): string {
  return Arn.format({
    partition: Aws.PARTITION,
    service: 'bedrock',
    region,
    account: '',
    resource: 'foundation-model',
    resourceName: foundationModelId,
    arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
  });
}
