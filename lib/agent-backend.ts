import { Annotations, Arn, ArnFormat, Aws, Stack, Token } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { BedrockAgentBackendProps, BedrockGuardrail, BedrockInferenceConfig } from './bedrock-agent-backend-props';
import { acknowledgeFinding } from './private/nag-acknowledgements';
import { AGENT_FUNCTION_INVOKE_ACTIONS, BEDROCK_GUARDRAIL_ACTIONS, BEDROCK_INVOKE_ACTIONS } from './private/permissions';
import { AGENT_BACKEND_KINDS, RUNTIME_ENV } from './contract';

/**
 * Prefixes of Amazon Bedrock's system-defined cross-Region inference profiles
 * (`<prefix>.<foundation model id>`).
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-support.html
 */
const CROSS_REGION_PROFILE_PREFIXES = ['us', 'us-gov', 'eu', 'apac', 'jp', 'au', 'ca', 'global'] as const;
const GLOBAL_PROFILE_PREFIX = 'global';

/** What an agent backend contributes to the orchestrator function. */
export interface AgentBackendConfig {
  /** Environment variables the orchestrator reads to wire in its agent adapter. */
  readonly environment: { [key: string]: string };

  /**
   * The Bedrock model id or inference profile the orchestrator calls, for the model throttling
   * alarm (`AWS/Bedrock` `InvocationThrottles`).
   *
   * @default - the agent is not a Bedrock model
   */
  readonly bedrockModelId?: string;
}

/**
 * The AI agent the orchestrator calls for each turn. Choose one with a static factory:
 * `AgentBackend.bedrock()`, `AgentBackend.fromFunction()` or `AgentBackend.scripted()`.
 */
export abstract class AgentBackend {
  /**
   * Amazon Bedrock (Converse API with tool use). Grants `bedrock:InvokeModel` on exactly the model,
   * or, for an inference profile, on the profile plus the models it routes to, only when invoked
   * through that profile; with a guardrail, `bedrock:ApplyGuardrail` on that guardrail. Validated
   * when called: a bad model id, prompt, inference setting or guardrail throws, naming what to change.
   */
  public static bedrock(props: BedrockAgentBackendProps): AgentBackend {
    return new BedrockAgentBackend(props);
  }

  /**
   * A Lambda function you own that implements the agent. The orchestrator may invoke it
   * (`lambda:InvokeFunction` on that function only; same account).
   *
   * The orchestrator invokes it synchronously once per turn with version "1" of a JSON contract:
   * the event is `{version: "1", systemPrompt, history: [{role: "customer" | "assistant", text, at}],
   * session: {sessionId, customerId, state, qualificationData}, deadline}` (`deadline` in epoch
   * milliseconds) and the function returns `{reply, actions?}`, where each action is one of
   * `{type: "update_qualification", data}`, `{type: "record_out_of_portfolio_demand",
   * requestedService, estimatedSegment?, notes?}`, `{type: "request_human_handoff", reason}` or
   * `{type: "close_session", reason}`. The function must not act on them itself: the pipeline applies
   * them only if the turn is still the latest. Anything outside the contract fails the turn, which is
   * retried. The README's "Your own agent function" has a complete example.
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

/** Lambda caps a function's whole environment at 4 KB; the prompt leaves room for the rest. */
export const SYSTEM_PROMPT_MAX_BYTES = 3000;
const APPLICATION_PROFILE_ARN = /^arn:aws[a-z-]*:bedrock:[a-z0-9-]+:\d{12}:application-inference-profile\/[a-z0-9]+$/;
const MODEL_ID = /^[a-z0-9][a-z0-9.:_-]*$/i;
const GUARDRAIL_ID = /^[a-z0-9]+$/;
const GUARDRAIL_ARN = /^arn:aws[a-z-]*:bedrock:[a-z0-9-]+:\d{12}:guardrail\/[a-z0-9]+$/;
const GUARDRAIL_VERSION = /^(DRAFT|[1-9][0-9]{0,7})$/;
/** The Region prefixes each geographic cross-Region profile routes within. */
const PROFILE_GEOGRAPHY_REGIONS: Record<string, readonly string[]> = {
  'us': ['us-'],
  'us-gov': ['us-gov-'],
  'eu': ['eu-'],
  'apac': ['ap-'],
  'jp': ['ap-northeast-1', 'ap-northeast-3'],
  'au': ['ap-southeast-2', 'ap-southeast-4'],
  'ca': ['ca-'],
};

class BedrockAgentBackend extends AgentBackend {
  private readonly modelId: string;
  private readonly systemPrompt?: string;
  private readonly inferenceConfig?: BedrockInferenceConfig;
  private readonly guardrail?: BedrockGuardrail;
  private readonly promptCaching?: boolean;

  constructor(props: BedrockAgentBackendProps) {
    super();
    this.modelId = props.modelId;
    this.systemPrompt = props.systemPrompt;
    this.inferenceConfig = props.inferenceConfig;
    this.guardrail = props.guardrail;
    this.promptCaching = props.promptCaching;
    validateBedrockProps(props);
  }

  public bind(scope: Construct, orchestrator: lambda.IFunction): AgentBackendConfig {
    if (isApplicationProfileArn(this.modelId)) {
      this.grantApplicationProfile(orchestrator);
    } else {
      const profilePrefix = crossRegionProfilePrefix(this.modelId);
      if (profilePrefix === undefined) {
        orchestrator.addToRolePolicy(
          new iam.PolicyStatement({ actions: [...BEDROCK_INVOKE_ACTIONS], resources: [foundationModelArn(this.modelId, Aws.REGION)] }),
        );
      } else {
        this.grantInferenceProfile(orchestrator, profilePrefix);
        warnOnGeographyMismatch(scope, this.modelId, profilePrefix);
      }
    }
    const environment: Record<string, string> = {
      [RUNTIME_ENV.agentBackend]: AGENT_BACKEND_KINDS.bedrock,
      [RUNTIME_ENV.bedrockModelId]: this.modelId,
    };
    if (this.systemPrompt !== undefined) environment[RUNTIME_ENV.deployedSystemPrompt] = this.systemPrompt;
    if (this.inferenceConfig !== undefined) environment[RUNTIME_ENV.bedrockInferenceConfig] = JSON.stringify(this.inferenceConfig);
    if (this.promptCaching !== undefined) environment[RUNTIME_ENV.bedrockPromptCaching] = String(this.promptCaching);
    if (this.guardrail !== undefined) {
      orchestrator.addToRolePolicy(new iam.PolicyStatement({ actions: [...BEDROCK_GUARDRAIL_ACTIONS], resources: [guardrailArn(this.guardrail.identifier)] }));
      environment[RUNTIME_ENV.bedrockGuardrailId] = this.guardrail.identifier;
      environment[RUNTIME_ENV.bedrockGuardrailVersion] = this.guardrail.version;
    }
    return { environment, bedrockModelId: this.modelId };
  }

  /**
   * An application inference profile routes to a model or a system-defined profile chosen when it
   * was created, which the ARN does not reveal: the grant is the profile itself, plus any foundation
   * model or system profile but only when invoked through this profile.
   */
  private grantApplicationProfile(orchestrator: lambda.IFunction): void {
    orchestrator.addToRolePolicy(new iam.PolicyStatement({ actions: [...BEDROCK_INVOKE_ACTIONS], resources: [this.modelId] }));
    orchestrator.addToRolePolicy(
      new iam.PolicyStatement({
        actions: [...BEDROCK_INVOKE_ACTIONS],
        resources: [foundationModelArn('*', '*'), Arn.format({ partition: Aws.PARTITION, service: 'bedrock', region: '*', account: Aws.ACCOUNT_ID, resource: 'inference-profile', resourceName: '*', arnFormat: ArnFormat.SLASH_RESOURCE_NAME })],
        conditions: { StringEquals: { 'bedrock:InferenceProfileArn': this.modelId } },
      }),
    );
    if (orchestrator.role) {
      acknowledgeFinding(orchestrator.role, {
        id: 'AwsSolutions-IAM5',
        appliesTo: 'Resource::arn:<AWS::Partition>:bedrock:*::foundation-model/*',
        reason:
          `The application inference profile ${this.modelId} routes to a model fixed when it was created, which its ARN does not name; ` +
          'the bedrock:InferenceProfileArn condition limits the statement to calls made through this profile.',
      });
      acknowledgeFinding(orchestrator.role, {
        id: 'AwsSolutions-IAM5',
        appliesTo: 'Resource::arn:<AWS::Partition>:bedrock:*:<AWS::AccountId>:inference-profile/*',
        reason: `The application inference profile ${this.modelId} may copy a cross-Region profile; the condition limits the statement to calls made through it.`,
      });
    }
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

function validateBedrockProps(props: BedrockAgentBackendProps): void {
  const fail = (problem: string): never => {
    throw new Error(`AgentBackend.bedrock: ${problem}`);
  };
  const { modelId, systemPrompt, inferenceConfig, guardrail } = props;
  if (!Token.isUnresolved(modelId) && !MODEL_ID.test(modelId) && !APPLICATION_PROFILE_ARN.test(modelId)) {
    fail(
      `modelId '${modelId}' is not a Bedrock model id, cross-Region inference profile id or application inference profile ARN ` +
        "(e.g. 'anthropic.claude-sonnet-4-5-20250929-v1:0', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' or " +
        "'arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123'); other ARNs are not accepted.",
    );
  }
  if (systemPrompt !== undefined && !Token.isUnresolved(systemPrompt)) {
    if (systemPrompt.trim() === '') fail('systemPrompt is empty; leave it out to start from the neutral default prompt.');
    const bytes = Buffer.byteLength(systemPrompt, 'utf8');
    if (bytes > SYSTEM_PROMPT_MAX_BYTES) {
      fail(
        `systemPrompt is ${bytes} bytes; at most ${SYSTEM_PROMPT_MAX_BYTES} fit in the orchestrator's environment (Lambda allows 4 KB in all). ` +
          'Deploy a shorter prompt and write the full one in the console (prompt resource "system"), which has no such limit.',
      );
    }
  }
  if (inferenceConfig) {
    const { maxTokens, temperature, topP, stopSequences } = inferenceConfig;
    if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || maxTokens < 1)) fail(`inferenceConfig.maxTokens must be a whole number of at least 1; got ${maxTokens}.`);
    for (const [name, value] of [['temperature', temperature], ['topP', topP]] as const) {
      if (value !== undefined && !(value >= 0 && value <= 1)) fail(`inferenceConfig.${name} must be from 0 to 1; got ${value}.`);
    }
    if (stopSequences?.some((sequence) => sequence === '')) fail('inferenceConfig.stopSequences must not contain an empty string.');
  }
  if (guardrail) {
    if (!Token.isUnresolved(guardrail.identifier) && !GUARDRAIL_ID.test(guardrail.identifier) && !GUARDRAIL_ARN.test(guardrail.identifier)) {
      fail(`guardrail.identifier '${guardrail.identifier}' is neither a guardrail id ('abc123def456') nor a guardrail ARN.`);
    }
    if (!Token.isUnresolved(guardrail.version) && !GUARDRAIL_VERSION.test(guardrail.version)) {
      fail(`guardrail.version '${guardrail.version}' must be a published version number ('1') or 'DRAFT'.`);
    }
  }
}

function isApplicationProfileArn(modelId: string): boolean {
  return !Token.isUnresolved(modelId) && APPLICATION_PROFILE_ARN.test(modelId);
}

/**
 * A geographic profile only routes within its geography: called from a stack outside it, Bedrock
 * refuses the profile (or the data leaves the geography the team chose). Global profiles route anywhere.
 */
function warnOnGeographyMismatch(scope: Construct, profileId: string, prefix: string): void {
  const region = Stack.of(scope).region;
  const regions = PROFILE_GEOGRAPHY_REGIONS[prefix];
  if (Token.isUnresolved(region) || regions === undefined) return;
  // 'us-gov-…' Regions also start with 'us-'; only the us-gov profile serves them.
  const inGeography = regions.some((start) => region.startsWith(start)) && !(prefix === 'us' && region.startsWith('us-gov-'));
  if (!inGeography) {
    Annotations.of(scope).addWarningV2(
      'cdk-whatsapp-agent-pipeline:inferenceProfileGeography',
      `The cross-Region inference profile '${profileId}' serves the '${prefix}' geography, but the stack is in ${region}. ` +
        `Use the profile of ${region}'s geography (or a 'global.' profile), or deploy the stack in a Region of that geography.`,
    );
  }
}

function guardrailArn(identifier: string): string {
  if (!Token.isUnresolved(identifier) && GUARDRAIL_ARN.test(identifier)) return identifier;
  return Arn.format({
    partition: Aws.PARTITION,
    service: 'bedrock',
    region: Aws.REGION,
    account: Aws.ACCOUNT_ID,
    resource: 'guardrail',
    resourceName: identifier,
    arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
  });
}
