import { crossRegionProfilePrefix } from '../../../lib/private/bedrock-model-ids';
import type { DeploymentPermissions } from './deployment-permissions';
import type { IamRequest } from './iam-requests';

type Body = Record<string, unknown>;

/** The agent's services, by signing name: the tools' functions and the model. */
export type AgentService = 'lambda' | 'bedrock';

const LAMBDA_INVOKE_PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;
const BEDROCK_CONVERSE_PATH = /^\/model\/([^/]+)\/converse$/;

/**
 * The operation of a request to the agent's services (REST: by its route) and what it names:
 * Lambda's `Invoke` (`POST /2015-03-31/functions/{name}/invocations`) and Bedrock Runtime's
 * `Converse` (`POST /model/{modelId}/converse`, with the guardrail of its body).
 */
export function agentServiceCall(service: AgentService, path: string, body: Body): { readonly operation: string; readonly body: Body } {
  const pathname = new URL(path, 'http://127.0.0.1').pathname;
  if (service === 'lambda') {
    const name = LAMBDA_INVOKE_PATH.exec(pathname)?.[1];
    return name === undefined ? { operation: pathname, body: {} } : { operation: 'Invoke', body: { FunctionName: decodeURIComponent(name) } };
  }
  const modelId = BEDROCK_CONVERSE_PATH.exec(pathname)?.[1];
  return modelId === undefined ? { operation: pathname, body: {} } : { operation: 'Converse', body: { modelId: decodeURIComponent(modelId), guardrailConfig: body.guardrailConfig } };
}

/** `lambda:InvokeFunction` on the function the request names (by name, or by its ARN). */
export function lambdaIamRequests(operation: string, body: Body, deployment: DeploymentPermissions): IamRequest[] {
  const named = String(body.FunctionName ?? '');
  const name = named.startsWith('arn:') ? named.split(':')[6] : named;
  const action = operation === 'Invoke' ? 'lambda:InvokeFunction' : `lambda:${operation}`;
  return [{ action, resource: `arn:aws:lambda:${deployment.region}:${deployment.account}:function:${name}`, context: {} }];
}

/**
 * What Bedrock authorises for a `Converse` (as `bedrock:InvokeModel`): a foundation model in the
 * caller's Region; a system-defined cross-Region profile itself, then the foundation model in the
 * destination Region it routes to (evaluated in the caller's Region), with `bedrock:InferenceProfileArn`;
 * an application inference profile by its ARN. With a guardrail, `bedrock:ApplyGuardrail` on it.
 */
export function bedrockIamRequests(operation: string, body: Body, deployment: DeploymentPermissions): IamRequest[] {
  const action = operation === 'Converse' ? 'bedrock:InvokeModel' : `bedrock:${operation}`;
  const model = modelRequests(action, String(body.modelId ?? ''), deployment);
  const guardrail = body.guardrailConfig as { guardrailIdentifier?: unknown } | undefined;
  if (guardrail?.guardrailIdentifier === undefined) return model;
  const identifier = String(guardrail.guardrailIdentifier);
  const guardrailArn = identifier.startsWith('arn:') ? identifier : `arn:aws:bedrock:${deployment.region}:${deployment.account}:guardrail/${identifier}`;
  return [...model, { action: 'bedrock:ApplyGuardrail', resource: guardrailArn, context: {} }];
}

function modelRequests(action: string, modelId: string, { region, account }: DeploymentPermissions): IamRequest[] {
  const foundationModel = (id: string) => `arn:aws:bedrock:${region}::foundation-model/${id}`;
  if (modelId.startsWith('arn:')) return [{ action, resource: modelId, context: {} }];
  const prefix = crossRegionProfilePrefix(modelId);
  if (prefix === undefined) return [{ action, resource: foundationModel(modelId), context: {} }];
  const profileArn = `arn:aws:bedrock:${region}:${account}:inference-profile/${modelId}`;
  return [
    { action, resource: profileArn, context: {} },
    { action, resource: foundationModel(modelId.slice(prefix.length + 1)), context: { 'bedrock:InferenceProfileArn': profileArn } },
  ];
}
