import type { Stack } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { AgentBackend, AgentTool } from '../../../lib';
import type { LocalBedrockAgent } from '../../../local/runtime/local-pipeline-options';
import { localToolFunctionName } from '../../../local/runtime/local-plan';
import { CHECK_STOCK_TOOL, CREATE_ORDER_TOOL } from '../fake-order-service';

/** The tools of the agent every variant deploys: those the suites give the local runtime's agent. */
const CONFORMANCE_TOOLS = [CREATE_ORDER_TOOL, CHECK_STOCK_TOOL];

/**
 * The agent every variant deploys: `agent`'s Bedrock model and knowledge base with the tools the
 * suites give the local runtime's agent, each a function named as the fake Lambda serves it. So the
 * model's `Converse` and the tools' `Invoke` are evaluated against the orchestrator's widest role;
 * a suite on the scripted agent makes neither request.
 */
export function conformanceAgent(stack: Stack, agent: { readonly modelId: string; readonly knowledgeBaseId: string }): AgentBackend {
  const tools = CONFORMANCE_TOOLS.map((tool) => {
    const fn = new lambda.Function(stack, `Tool-${tool.name}`, {
      functionName: localToolFunctionName(tool.name),
      runtime: lambda.Runtime.NODEJS_24_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('exports.handler = async () => ({ result: {} })'),
    });
    return AgentTool.fromFunction(fn, tool);
  });
  return AgentBackend.bedrock({ modelId: agent.modelId, knowledgeBase: { knowledgeBaseId: agent.knowledgeBaseId }, tools });
}

/** The same agent as the local runtime plays it, for comparing what each is told (its model is never asked). */
export const CONFORMANCE_LOCAL_AGENT: LocalBedrockAgent = {
  converse: () => Promise.reject(new Error('The conformance agent only configures the plan')),
  tools: CONFORMANCE_TOOLS.map((tool) => ({ ...tool, handler: async () => ({ result: {} }) })),
};
