import type { DeploymentPermissions } from './deployment-permissions';
import type { IamRequest } from './iam-requests';

type Body = Record<string, unknown>;

const RETRIEVE_PATH = /^\/knowledgebases\/([^/]+)\/retrieve$/;

/** The operation of a Bedrock Agent Runtime request (REST: `POST /knowledgebases/{id}/retrieve` is `Retrieve`) and the knowledge base it names. */
export function knowledgeBaseCall(path: string): { readonly operation: string; readonly body: Body } {
  const { pathname } = new URL(path, 'http://127.0.0.1');
  const knowledgeBaseId = RETRIEVE_PATH.exec(pathname)?.[1];
  return knowledgeBaseId === undefined ? { operation: pathname, body: {} } : { operation: 'Retrieve', body: { knowledgeBaseId: decodeURIComponent(knowledgeBaseId) } };
}

/** A knowledge base's search: `bedrock:Retrieve` on the knowledge base the request names, in the deployment's account and Region. */
export function knowledgeBaseIamRequests(operation: string, body: Body, { region, account }: DeploymentPermissions): IamRequest[] {
  return [{ action: `bedrock:${operation}`, resource: `arn:aws:bedrock:${region}:${account}:knowledge-base/${String(body.knowledgeBaseId ?? '')}`, context: {} }];
}
