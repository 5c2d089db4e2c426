import Ajv, { type ValidateFunction } from 'ajv';
import type { ConsumerTool, ToolCallRequest, ToolCallResult, ToolOutcome } from '../../ports/agent-tools';
import { lambdaInvoke, type LambdaInvoke } from '../lambda/lambda-invoke';

/**
 * Version 1 of the JSON contract between the pipeline and a consumer's tool function
 * (`AgentTool.fromFunction()`; docs/AGENT.md#your-own-tools).
 *
 * Event:
 * ```json
 * { "version": "1", "tool": "create_order", "input": { … as the schema says },
 *   "toolUseId": "tooluse_…", "idempotencyKey": "3f9c…",
 *   "context": { "customerId": "5511…", "sessionId": "…", "stage": "sales", "locale": "pt-BR", "messageIds": ["wamid…"] },
 *   "deadline": 1795000000000 }
 * ```
 * `idempotencyKey` is present only for a tool declared with `sideEffects`: the same key for every
 * attempt of the same call. The function must perform the effect at most once per key and answer a
 * repeated key with the result of the first call, as payment APIs do. `stage` is present with stages.
 *
 * Answer: `{ "result": <any JSON> }`, or `{ "error": { "message": "…" } }` for a refusal the model
 * should explain (out of stock, no free slot). The answer is read up to {@link TOOL_RESULT_MAX_CHARACTERS}
 * characters of JSON. A raised error (Lambda's `FunctionError`) fails the turn, which is retried.
 */
export const TOOL_CONTRACT_VERSION = '1';

/** The most JSON characters of a result the model reads: a tool answers facts, not documents. */
export const TOOL_RESULT_MAX_CHARACTERS = 8_000;

/** Lambda's answers that no retry fixes: the configuration is wrong, the model is told the tool is unavailable. */
const UNAVAILABLE_ERRORS: ReadonlySet<string> = new Set(['ResourceNotFoundException', 'AccessDeniedException', 'AccessDeniedError', 'InvalidParameterValueException', 'RequestTooLargeException']);

export interface LambdaToolOptions {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly sideEffects: boolean;
  /** The function's name or ARN. */
  readonly functionName: string;
  /** Longest wait for one call, in milliseconds (within the turn's deadline). */
  readonly timeoutMs: number;
  /** Default: {@link lambdaInvoke} with the environment's region and credentials. */
  readonly invoke?: LambdaInvoke;
}

// One validator for every tool of the process: schemas are compiled once, at the first call.
const ajv = new Ajv({ allErrors: true, strict: false });

/** A consumer's tool function, invoked synchronously with the contract above. */
export class LambdaTool implements ConsumerTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly sideEffects: boolean;
  private readonly functionName: string;
  private readonly timeoutMs: number;
  private readonly invoke: LambdaInvoke;
  private validator?: ValidateFunction;

  constructor(options: LambdaToolOptions) {
    ({ name: this.name, description: this.description, inputSchema: this.inputSchema, sideEffects: this.sideEffects, functionName: this.functionName, timeoutMs: this.timeoutMs } = options);
    this.invoke = options.invoke ?? lambdaInvoke();
  }

  validate(input: unknown): readonly string[] {
    this.validator ??= ajv.compile(this.inputSchema);
    if (this.validator(input)) return [];
    return (this.validator.errors ?? []).map((error) => `${error.instancePath || 'the input'} ${error.message ?? 'is invalid'}`.trim());
  }

  async call(request: ToolCallRequest): Promise<ToolCallResult> {
    const event = {
      version: TOOL_CONTRACT_VERSION,
      tool: this.name,
      input: request.input,
      toolUseId: request.toolUseId,
      ...(request.idempotencyKey !== undefined && { idempotencyKey: request.idempotencyKey }),
      context: request.context,
      deadline: request.deadline,
    };
    const waitMs = Math.min(this.timeoutMs, request.deadline - Date.now());
    if (waitMs <= 0) return failure('invocation_failed');
    let answer;
    try {
      answer = await this.invoke({ FunctionName: this.functionName, Payload: new TextEncoder().encode(JSON.stringify(event)) }, { abortSignal: AbortSignal.timeout(waitMs) });
    } catch (error) {
      return failure(UNAVAILABLE_ERRORS.has((error as Error).name) ? 'unavailable' : 'invocation_failed');
    }
    if (answer.FunctionError !== undefined) return failure('function_error');
    return resultOf(new TextDecoder().decode(answer.Payload ?? new Uint8Array()));
  }
}

/** The function's answer under the contract: its result, its refusal, or what was wrong with it. */
export function resultOf(payload: string): ToolCallResult {
  let answer: unknown;
  try {
    answer = JSON.parse(payload);
  } catch {
    return failure('malformed_result');
  }
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) return failure('malformed_result');
  const { result, error } = answer as { result?: unknown; error?: unknown };
  if (error !== undefined) {
    const message = typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string' ? (error as { message: string }).message : undefined;
    return message === undefined ? failure('malformed_result') : bounded('refused', { error: 'refused', message });
  }
  if (result === undefined) return failure('malformed_result');
  return bounded('ok', result);
}

/** A result the model may read, or `result_too_large` in its place. */
function bounded(outcome: 'ok' | 'refused', content: unknown): ToolCallResult {
  if (JSON.stringify(content).length <= TOOL_RESULT_MAX_CHARACTERS) return { outcome, content };
  return { outcome: 'result_too_large', content: { error: 'result_too_large', ran: true, message: `The tool ran, but its answer is over ${TOOL_RESULT_MAX_CHARACTERS} characters and was withheld.` } };
}

function failure(outcome: ToolOutcome): ToolCallResult {
  return { outcome, content: { error: outcome } };
}
