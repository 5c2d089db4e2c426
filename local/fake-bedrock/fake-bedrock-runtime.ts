import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import type { ConverseCall } from '../../lambda/core/adapters/agent/bedrock-converse-agent';
import { type LoopbackServer, serveOnLoopback } from '../fake-aws/loopback-server';
import { type AwsPermissionCheck, restRefusal } from '../fake-aws/permission-check';
import { readBody } from '../fake-aws/request-body';
import { sendRestJsonError } from '../fake-aws/service-answers';

export interface FakeBedrockRuntimeOptions {
  /** What answers each Converse call: `FakeConverseModel.converse`, or any stand-in. */
  readonly converse: ConverseCall;
  /** Checks each request as IAM would. Default: everything is allowed. */
  readonly permissions?: AwsPermissionCheck;
}

const CONVERSE_PATH = /^\/model\/([^/]+)\/converse$/;

/**
 * A stand-in for Bedrock Runtime's `Converse` on 127.0.0.1 (`POST /model/{modelId}/converse`): the
 * request the orchestrator's own signed client sends — so the permission check sees it as IAM
 * would, the model or inference profile it names — answered by `converse` as Bedrock answers (the
 * output, stop reason, usage and metrics as JSON); a refusal of the check as
 * `AccessDeniedException` (403), and a throw of `converse` as the error Bedrock would name.
 */
export class FakeBedrockRuntime {
  static async start(options: FakeBedrockRuntimeOptions): Promise<FakeBedrockRuntime> {
    const fake = new FakeBedrockRuntime(options);
    fake.http = await serveOnLoopback(
      (request, response) => fake.handle(request, response),
      // A stand-in's error keeps its name (`ThrottlingException`…), so the caller classifies it as it would Bedrock's.
      (response, error) => sendRestJsonError(response, 500, error instanceof Error && error.name !== 'Error' ? error.name : 'InternalServerException', String(error)),
    );
    return fake;
  }

  private http!: LoopbackServer;

  private constructor(private readonly options: FakeBedrockRuntimeOptions) {}

  /** The endpoint to give the client, e.g. `http://127.0.0.1:43210`. */
  get endpoint(): string {
    return this.http.endpoint;
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readBody(request);
    const modelId = decodeURIComponent(CONVERSE_PATH.exec(request.url ?? '')?.[1] ?? '');
    if (request.method !== 'POST' || modelId === '') {
      sendRestJsonError(response, 400, 'ValidationException', `Unsupported operation ${request.method} ${request.url}`);
      return;
    }
    const refusal = await restRefusal('bedrock', request, body, this.options.permissions);
    if (refusal !== undefined) {
      sendRestJsonError(response, 403, refusal.type, refusal.message);
      return;
    }
    const input = { ...(JSON.parse(body || '{}') as Omit<ConverseCommandInput, 'modelId'>), modelId };
    const controller = new AbortController();
    response.on('close', () => controller.abort());
    const { $metadata: _metadata, ...output } = await this.options.converse(input, { abortSignal: controller.signal });
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(output));
  }
}
