import { Annotations, Arn, ArnFormat, Aws, Stack, Token } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { BedrockAgentBackendProps, BedrockAgentMemory, BedrockKnowledgeBase } from '../bedrock-agent-backend-props';
import { CONVERSATION_MEMORY_LIMITS } from '../contract/conversation-memory';
import { KNOWLEDGE_BASE_LIMITS, retrievalFilterProblems } from '../contract/knowledge-base';
import { SYSTEM_PROMPT_MAX_CHARACTERS } from '../contract/operator-setting-limits';

// What a Bedrock model id, inference profile or guardrail may be, and the ARNs they grant.

/**
 * Prefixes of Amazon Bedrock's system-defined cross-Region inference profiles
 * (`<prefix>.<foundation model id>`).
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-support.html
 */
const CROSS_REGION_PROFILE_PREFIXES = ['us', 'us-gov', 'eu', 'apac', 'jp', 'au', 'ca', 'global'] as const;
export const GLOBAL_PROFILE_PREFIX = 'global';

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

export function crossRegionProfilePrefix(modelId: string): string | undefined {
  if (Token.isUnresolved(modelId)) {
    return undefined;
  }
  return CROSS_REGION_PROFILE_PREFIXES.find((prefix) => modelId.startsWith(`${prefix}.`));
}

export function foundationModelArn(foundationModelId: string, region: string): string {
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

export function validateBedrockProps(props: BedrockAgentBackendProps): void {
  const fail = (problem: string): never => {
    throw new Error(`AgentBackend.bedrock: ${problem}`);
  };
  const { modelId, systemPrompt, inferenceConfig, guardrail, knowledgeBase, memory } = props;
  if (!Token.isUnresolved(modelId) && !isModelId(modelId)) {
    fail(
      `modelId '${modelId}' is not a Bedrock model id, cross-Region inference profile id or application inference profile ARN ` +
        "(e.g. 'anthropic.claude-sonnet-4-5-20250929-v1:0', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' or " +
        "'arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123'); other ARNs are not accepted.",
    );
  }
  if (systemPrompt !== undefined && !Token.isUnresolved(systemPrompt)) checkSystemPrompt(fail, systemPrompt);
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
  if (knowledgeBase) checkKnowledgeBase(fail, knowledgeBase);
  if (memory) checkMemory(fail, memory);
}

function isModelId(modelId: string): boolean {
  return MODEL_ID.test(modelId) || APPLICATION_PROFILE_ARN.test(modelId);
}

function checkMemory(fail: (problem: string) => never, { modelId, foldEveryTurns }: BedrockAgentMemory): void {
  if (modelId !== undefined && Token.isUnresolved(modelId)) fail("memory.modelId holds a value CloudFormation resolves only at deploy time; it is written into the orchestrator's asset at synth. Give the model id itself.");
  if (modelId !== undefined && !isModelId(modelId)) fail(`memory.modelId '${modelId}' is not a Bedrock model id, cross-Region inference profile id or application inference profile ARN.`);
  const { minFoldEveryTurns, maxFoldEveryTurns } = CONVERSATION_MEMORY_LIMITS;
  if (foldEveryTurns !== undefined && (!Number.isInteger(foldEveryTurns) || foldEveryTurns < minFoldEveryTurns || foldEveryTurns > maxFoldEveryTurns)) {
    fail(`memory.foldEveryTurns must be a whole number from ${minFoldEveryTurns} to ${maxFoldEveryTurns}; got ${foldEveryTurns}.`);
  }
}

function checkKnowledgeBase(fail: (problem: string) => never, { knowledgeBaseId, numberOfResults, filter }: BedrockKnowledgeBase): void {
  if (!Token.isUnresolved(knowledgeBaseId) && !KNOWLEDGE_BASE_LIMITS.idPattern.test(knowledgeBaseId)) {
    fail(`knowledgeBase.knowledgeBaseId '${knowledgeBaseId}' is not a knowledge base id; give its ten upper-case letters and digits (e.g. 'ABCDE12345'), not its name or ARN.`);
  }
  const { maxNumberOfResults } = KNOWLEDGE_BASE_LIMITS;
  if (numberOfResults !== undefined && (!Number.isInteger(numberOfResults) || numberOfResults < 1 || numberOfResults > maxNumberOfResults)) {
    fail(`knowledgeBase.numberOfResults must be a whole number from 1 to ${maxNumberOfResults}; got ${numberOfResults}.`);
  }
  if (filter === undefined) return;
  if (Token.isUnresolved(JSON.stringify(filter))) fail("knowledgeBase.filter holds a value CloudFormation resolves only at deploy time; the filter is written into the orchestrator's asset at synth. Give the values themselves.");
  const problems = retrievalFilterProblems(filter, 'knowledgeBase.filter');
  if (problems.length > 0) fail(`${problems.join('; ')}.`);
}

/** `bedrock:Retrieve`'s resource: the knowledge base in the stack's account and Region. */
export function knowledgeBaseArn(knowledgeBaseId: string): string {
  return Arn.format({ partition: Aws.PARTITION, service: 'bedrock', region: Aws.REGION, account: Aws.ACCOUNT_ID, resource: 'knowledge-base', resourceName: knowledgeBaseId, arnFormat: ArnFormat.SLASH_RESOURCE_NAME });
}

/**
 * The prompt as the orchestrator's settings document carries it: a `Lazy` resolved now, so its
 * length is checked as a plain prompt's is, and a reference CloudFormation resolves only at deploy
 * time refused, since the document is written at synth.
 */
export function synthesizedSystemPrompt(scope: Construct, systemPrompt: string): string {
  const fail = (problem: string): never => {
    throw new Error(`AgentBackend.bedrock: ${problem}`);
  };
  const resolved: unknown = Token.isUnresolved(systemPrompt) ? Stack.of(scope).resolve(systemPrompt) : systemPrompt;
  if (typeof resolved !== 'string') {
    fail(`systemPrompt holds a value CloudFormation resolves only at deploy time (${JSON.stringify(resolved)}); the prompt is written into the orchestrator's asset at synth. Give the text itself, or a Lazy that produces it.`);
  }
  checkSystemPrompt(fail, resolved as string);
  return resolved as string;
}

function checkSystemPrompt(fail: (problem: string) => never, systemPrompt: string): void {
  if (systemPrompt.trim() === '') fail('systemPrompt is empty; leave it out to start from the neutral default prompt.');
  if (systemPrompt.length > SYSTEM_PROMPT_MAX_CHARACTERS) {
    fail(
      `systemPrompt is ${systemPrompt.length} characters; at most ${SYSTEM_PROMPT_MAX_CHARACTERS} are accepted, as in the console's prompt editor. ` +
        'Move reference material the agent rarely needs out of the prompt (a tool or a knowledge base answers it when asked).',
    );
  }
}

export function isApplicationProfileArn(modelId: string): boolean {
  return !Token.isUnresolved(modelId) && APPLICATION_PROFILE_ARN.test(modelId);
}

export function guardrailArn(identifier: string): string {
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

/**
 * A geographic profile only routes within its geography: called from a stack outside it, Bedrock
 * refuses the profile (or the data leaves the geography the team chose). Global profiles route anywhere.
 */
export function warnOnGeographyMismatch(scope: Construct, profileId: string, prefix: string): void {
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
