import type { IncomingMessage, ServerResponse } from 'node:http';
import { type LoopbackServer, serveOnLoopback } from './loopback-server';
import { type AwsPermissionCheck, restRefusal } from './permission-check';
import { readBody } from './request-body';

/** A function the fake serves: the event in, the answer out; a throw is the function's error. */
export type LocalFunctionHandler = (event: unknown) => Promise<unknown>;

export interface FakeLambdaOptions {
  /** Function name → its handler. A request may name a function by its name or by its ARN. */
  readonly functions: ReadonlyMap<string, LocalFunctionHandler>;
  /** Checks each request as IAM would. Default: everything is allowed. */
  readonly permissions?: AwsPermissionCheck;
  /** Default: a free port. */
  readonly port?: number;
}

const INVOKE_PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

/**
 * A stand-in for AWS Lambda's `Invoke` on 127.0.0.1 (`POST /2015-03-31/functions/{name}/invocations`),
 * answered as Lambda does: an asynchronous (`Event`) invocation as `202` at once, the handler run
 * after; a synchronous one with the handler's answer as the payload; a handler that throws
 * as `X-Amz-Function-Error: Unhandled` with `{errorType, errorMessage}` (status 200); an unknown
 * function as `ResourceNotFoundException` (404); a refusal of the permission check as
 * `AccessDeniedException` (403). The real `lambdaInvoke` client calls it with the caller's own
 * signed identity, which the check sees.
 */
export class FakeLambda {
  static async start(options: FakeLambdaOptions): Promise<FakeLambda> {
    const fake = new FakeLambda(options);
    fake.http = await serveOnLoopback(
      (request, response) => fake.handle(request, response),
      (response, error) => serviceException(response, 500, 'ServiceException', `Fake Lambda failure: ${String(error)}`),
      options.port,
    );
    return fake;
  }

  private http!: LoopbackServer;
  private invocationCount = 0;
  private readonly queued = new Set<Promise<void>>();

  private constructor(private readonly options: FakeLambdaOptions) {}

  /** The endpoint to give the client, e.g. `http://127.0.0.1:43210`. */
  get endpoint(): string {
    return this.http.endpoint;
  }

  /** Invocations that reached a handler. */
  get invocations(): number {
    return this.invocationCount;
  }

  /** Resolves once every asynchronous (`Event`) invocation so far has run. */
  async drained(): Promise<void> {
    await Promise.all(this.queued);
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readBody(request);
    const name = decodeURIComponent(INVOKE_PATH.exec(request.url ?? '')?.[1] ?? '');
    if (request.method !== 'POST' || name === '') {
      serviceException(response, 400, 'InvalidRequestContentException', `Unsupported operation ${request.method} ${request.url}`);
      return;
    }
    const refusal = await restRefusal('lambda', request, body, this.options.permissions);
    if (refusal !== undefined) {
      serviceException(response, 403, refusal.type, refusal.message);
      return;
    }
    const handler = this.options.functions.get(name.split(':function:').pop()!.split(':')[0]);
    if (handler === undefined) {
      serviceException(response, 404, 'ResourceNotFoundException', `Function not found: ${name}`);
      return;
    }
    this.invocationCount++;
    if (request.headers['x-amz-invocation-type'] === 'Event') {
      // Queued: Lambda answers 202 with no payload and runs the function afterwards; a failure is only logged.
      response.writeHead(202).end();
      const played: Promise<void> = handler(JSON.parse(body || 'null'))
        .then(() => undefined, () => undefined)
        .finally(() => this.queued.delete(played));
      this.queued.add(played);
      return;
    }
    let answer: unknown;
    try {
      answer = await handler(JSON.parse(body || 'null'));
    } catch (error) {
      response.writeHead(200, { 'content-type': 'application/json', 'x-amz-function-error': 'Unhandled' });
      response.end(JSON.stringify({ errorType: (error as Error).name ?? 'Error', errorMessage: (error as Error).message ?? String(error) }));
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(answer ?? null));
  }
}

function serviceException(response: ServerResponse, status: number, type: string, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': type });
  response.end(JSON.stringify({ Type: 'User', message }));
}
