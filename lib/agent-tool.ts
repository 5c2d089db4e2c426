import { Duration, Token } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { AGENT_TOOL_LIMITS, type ConsumerToolOptions } from './contract';
import { AGENT_TOOL_INVOKE_ACTIONS } from './private/permissions';

/** Options of `AgentTool.fromFunction()`. */
export interface AgentToolOptions {
  /**
   * The tool's name as the model sees it: a letter, then up to 63 letters, digits, `_` or `-`
   * (`create_order`). Not the name of a built-in tool (`update_qualification`, `request_human_handoff`…).
   */
  readonly name: string;

  /** What the tool does and when to call it, for the model (at most 1,000 characters). */
  readonly description: string;

  /**
   * The tool's input as a JSON Schema object (`{ type: 'object', properties: {…}, required: […] }`),
   * at most 10,000 characters of JSON. The model is told it, and every input is checked against it
   * before the call: an input that does not match is refused back to the model, which may correct
   * it, and the function is not called.
   */
  readonly inputSchema: { [key: string]: any };

  /**
   * The tool changes something outside the conversation (creates an order, books a slot, charges).
   * Such a tool is called only while the turn still answers the customer's latest message, with an
   * intent recorded before the call and its result recorded before the model reads it; the event
   * carries an `idempotencyKey`, the same for every attempt of the same call, and the function must
   * perform the effect at most once per key, answering a repeated key with the first call's result
   * (as payment APIs do). A retried turn replays the recorded result instead of calling again; a
   * turn a newer message superseded never calls it.
   *
   * @default false — a read-only tool (look up an order, check stock), simply called
   */
  readonly sideEffects?: boolean;

  /**
   * The longest the orchestrator waits for one call (1 to 30 seconds, and never past the turn's
   * deadline). A call that times out fails the turn, which is retried — a tool with side effects
   * under the same idempotency key.
   *
   * @default Duration.seconds(10)
   */
  readonly timeout?: Duration;
}

/**
 * A tool of your own the Bedrock agent may call: a Lambda function you own that answers it, offered
 * to the model beside the built-in tools (`AgentBackend.bedrock({ tools })`, in a stage too). The
 * orchestrator may invoke exactly that function (`lambda:InvokeFunction`).
 *
 * The function is invoked synchronously with version "1" of a JSON contract: the event is
 * `{version: "1", tool, input, toolUseId, idempotencyKey?, context: {customerId, sessionId, stage?,
 * locale, messageIds}, deadline}` and the function returns `{result}` (any JSON, at most 8,000
 * characters of it are read) or `{error: {message}}` for a refusal the model should explain. A raised
 * error, a throttle or a timeout fails the turn, which is retried; a missing function or a refused
 * invocation tells the model the tool is unavailable. docs/AGENT.md ("Your own tools") has the
 * whole contract and an example.
 */
export class AgentTool {
  /**
   * A tool answered by a Lambda function you own. Validated when called: a bad name, description,
   * schema or timeout throws, naming what to change.
   *
   * @param toolFunction the function that answers each call
   * @param options the tool's name, description and input schema, whether it has side effects, and its timeout
   *
   * @example
   * import type * as lambda from 'aws-cdk-lib/aws-lambda';
   * import { AgentTool } from 'cdk-whatsapp-agent-pipeline';
   *
   * declare const ordersFunction: lambda.IFunction;
   *
   * const createOrder = AgentTool.fromFunction(ordersFunction, {
   *   name: 'create_order',
   *   description: 'Create an order for the customer once they confirmed the items and the quantity.',
   *   inputSchema: {
   *     type: 'object',
   *     properties: { sku: { type: 'string' }, quantity: { type: 'integer', minimum: 1 } },
   *     required: ['sku', 'quantity'],
   *     additionalProperties: false,
   *   },
   *   sideEffects: true,
   * });
   */
  public static fromFunction(toolFunction: lambda.IFunction, options: AgentToolOptions): AgentTool {
    return new AgentTool(toolFunction, options);
  }

  /** The tool's name as the model sees it. */
  public readonly name: string;

  /** The function that answers the tool's calls. */
  public readonly toolFunction: lambda.IFunction;

  /** Whether the tool changes something: called at most once per idempotency key, only in a turn still the latest. */
  public readonly sideEffects: boolean;

  private readonly options: AgentToolOptions;

  private constructor(toolFunction: lambda.IFunction, options: AgentToolOptions) {
    validateToolOptions(options);
    this.toolFunction = toolFunction;
    this.name = options.name;
    this.sideEffects = options.sideEffects ?? false;
    this.options = options;
  }

  /**
   * Grants the orchestrator the invocation of the tool's function and returns what it is told.
   *
   * @internal
   */
  public _bind(orchestrator: iam.IGrantable): ConsumerToolOptions {
    // Unqualified invocation by name needs the function ARN only, not the `:*` versions/aliases.
    iam.Grant.addToPrincipal({ grantee: orchestrator, actions: [...AGENT_TOOL_INVOKE_ACTIONS], resourceArns: [this.toolFunction.functionArn] });
    const { name, description, inputSchema, timeout } = this.options;
    return {
      name,
      description,
      inputSchema: JSON.parse(JSON.stringify(inputSchema)) as Record<string, unknown>,
      sideEffects: this.sideEffects,
      functionName: this.toolFunction.functionName,
      ...(timeout !== undefined && { timeoutMs: timeout.toMilliseconds() }),
    };
  }
}

function validateToolOptions(options: AgentToolOptions): void {
  const fail = (problem: string): never => {
    throw new Error(`AgentTool.fromFunction: ${problem}`);
  };
  const { name, description, inputSchema, timeout } = options;
  if (Token.isUnresolved(name) || !AGENT_TOOL_LIMITS.namePattern.test(name ?? '')) {
    fail(`name '${name}' is not allowed; use a letter, then up to 63 letters, digits, '_' or '-' (e.g. 'create_order').`);
  }
  if (AGENT_TOOL_LIMITS.builtInNames.includes(name)) fail(`name '${name}' is a built-in tool's; choose another name.`);
  if (typeof description !== 'string' || Token.isUnresolved(description) || description.trim() === '' || description.length > AGENT_TOOL_LIMITS.descriptionMaxCharacters) {
    fail(`description must be 1 to ${AGENT_TOOL_LIMITS.descriptionMaxCharacters} characters telling the model what the tool does and when to call it.`);
  }
  let json: string | undefined;
  try {
    json = JSON.stringify(inputSchema);
  } catch {
    json = undefined;
  }
  if (json === undefined || typeof inputSchema !== 'object' || inputSchema === null || Array.isArray(inputSchema) || inputSchema.type !== 'object' || Token.isUnresolved(json)) {
    fail(`inputSchema of '${name}' must be a JSON Schema object of plain values with type 'object' (e.g. { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] }).`);
  }
  if (json!.length > AGENT_TOOL_LIMITS.inputSchemaMaxCharacters) {
    fail(`inputSchema of '${name}' is ${json!.length} characters of JSON; at most ${AGENT_TOOL_LIMITS.inputSchemaMaxCharacters} are allowed, since it is sent with every model call.`);
  }
  if (timeout !== undefined && !timeout.isUnresolved()) {
    const ms = timeout.toMilliseconds();
    if (ms < AGENT_TOOL_LIMITS.minTimeoutMs || ms > AGENT_TOOL_LIMITS.maxTimeoutMs) fail(`timeout of '${name}' must be from 1 to 30 seconds; got ${timeout.toHumanString()}.`);
  }
}
