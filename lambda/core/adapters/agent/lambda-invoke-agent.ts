import type { StoredMedia } from '../../domain/media';
import { LAMBDA_AGENT_MEDIA_CONTRACT_VERSION } from './agent-function-contract';
import { mediaDescription, type MediaDescription, withMediaNote } from '../../domain/media-note';
import {
  AgentInvocationError,
  type AgentAction,
  type AgentMediaStore,
  type AgentPort,
  type AgentRequest,
  type AgentResponse,
  type AgentSessionContext,
  type ConversationEntry,
} from '../../ports/agent';
import { isTokenUsage, type TokenUsage } from '../../domain/customer-budget';
import { type InteractiveReply, parseInteractiveReply } from '../../domain/interactive-reply';
import { AGENT_TOOLS, type AgentTool, parseAgentAction } from './agent-actions';
import { DEADLINE_REACHED, DEFAULT_FALLBACK_REPLY, callBeforeDeadline } from './agent-deadline';
import { lambdaInvoke, type LambdaInvocationResult, type LambdaInvoke } from '../lambda/lambda-invoke';

/**
 * Version 1 of the JSON contract between the pipeline and a consumer's agent function.
 *
 * Request (the function's event):
 * ```json
 * { "version": "1",
 *   "systemPrompt": "…",
 *   "history": [{ "role": "customer" | "assistant", "text": "…", "at": "2026-11-30T12:00:00.000Z" }],
 *   "session": { "sessionId": "…", "customerId": "…", "state": "QUALIFYING", "qualificationData": { "k": "v" },
 *                "cadastralData": { "name": "…" }, "segment": "…", "intent": "…", "agent": "…" },
 *   "deadline": 1795000000000,
 *   "earlierConversation": [{ "role": "customer" | "assistant", "text": "…", "at": "…" }] }
 * ```
 * `deadline` is epoch milliseconds: the pipeline stops waiting then and answers a fallback text.
 * The session's `cadastralData`, `segment`, `intent` and `agent` (the stage that has the
 * conversation, with `AgentBackend.stages()`) are present once something set them.
 * `earlierConversation` is present only in a conversation opened after the customer's previous one
 * closed: that one's last messages, as context (optional, so older functions may ignore it).
 *
 * Response (the function's return value):
 * ```json
 * { "reply": "text for the customer",
 *   "actions": [
 *     { "type": "record_out_of_portfolio_demand", "requestedService": "…", "estimatedSegment": "…", "notes": "…" },
 *     { "type": "update_qualification", "data": { "sample_type": "saliva" } },
 *     { "type": "request_human_handoff", "reason": "…" },
 *     { "type": "close_session", "reason": "…" },
 *     { "type": "update_cadastral_data", "data": { "name": "…", "email": "…", "document_id": "…", "company": "…", "city": "…" } },
 *     { "type": "set_segment", "segment": "…" },
 *     { "type": "set_intent", "intent": "…" },
 *     { "type": "handover_to_agent", "agent": "…", "reason": "…" } ],
 *   "usage": { "inputTokens": 1200, "outputTokens": 80 },
 *   "interactive": { "kind": "buttons", "buttons": [{ "id": "yes", "title": "Sim" }, { "id": "no", "title": "Não" }] } }
 * ```
 * `interactive` is optional: choices shown under the reply (its body), `kind` `buttons` (`buttons`),
 * `list` (`button`, `sections` of `{title?, rows: [{id, title, description?}]}`) or `cta_url`
 * (`displayText`, `url`), each with an optional `header` and `footer` (docs/DESIGN.md#interactive-replies).
 * A malformed shape breaks the contract; choices beyond WhatsApp's limits go to the customer as text.
 * `reply` is a non-empty string; `actions` is optional. `usage` is optional: the model tokens the
 * function spent on the turn (whole numbers), counted against the customer's daily token budget
 * and emitted as `AgentInputTokens` / `AgentOutputTokens`; without it only the turn budgets apply. Qualification keys are snake_case names
 * (`^[a-z][a-z0-9_]{0,39}$`, never a name every object inherits such as `constructor`). Nothing else is accepted: an unknown key, action
 * type or action field is a contract violation (the turn fails and is retried), so a typo never
 * silently drops a handoff. `handover_to_agent` is accepted only from a stage, naming another stage. The function must not perform these actions itself: the pipeline applies
 * them only if the turn is still the latest one when the reply is persisted.
 */
export const LAMBDA_AGENT_CONTRACT_VERSION = '1';

/** How long the presigned URLs of a version 2 event read their objects: the longest a turn waits for the function, and then some. */
export const LAMBDA_AGENT_MEDIA_URL_SECONDS = 900;

export interface LambdaAgentRequestV1 {
  readonly version: typeof LAMBDA_AGENT_CONTRACT_VERSION;
  readonly systemPrompt: string;
  readonly history: readonly LambdaAgentEntryV1[];
  readonly session: AgentSessionContext;
  readonly deadline: number;
  readonly earlierConversation?: readonly LambdaAgentEntryV1[];
}

/** A history entry of version 1: role, text and time (and whether a reply may not have reached the customer). */
export type LambdaAgentEntryV1 = Omit<ConversationEntry, 'media'>;

export interface LambdaAgentRequestV2 extends Omit<LambdaAgentRequestV1, 'version' | 'history'> {
  readonly version: typeof LAMBDA_AGENT_MEDIA_CONTRACT_VERSION;
  readonly history: readonly LambdaAgentEntryV2[];
}

export interface LambdaAgentEntryV2 extends LambdaAgentEntryV1 {
  readonly media?: readonly LambdaAgentMediaV2[];
}

/** One attachment as a version 2 event describes it, with a presigned URL of a stored one. */
export interface LambdaAgentMediaV2 extends MediaDescription {
  readonly url?: string;
  readonly urlExpiresAt?: number;
}

export interface LambdaAgentResponseV1 {
  readonly reply: string;
  readonly actions?: readonly AgentAction[];
  readonly usage?: TokenUsage;
  readonly interactive?: InteractiveReply;
}

export interface LambdaInvokeAgentOptions {
  /** Name, ARN or qualified ARN (alias) of the consumer's agent function. */
  readonly functionName: string;
  /** Default: {@link lambdaInvoke} with the environment's region and credentials. */
  readonly invoke?: LambdaInvoke;
  /** The actions the function may return. Default: {@link AGENT_TOOLS} (with stages, `agentTools` adds the handover). */
  readonly tools?: readonly AgentTool[];
  /** Answered when the function has not returned by the deadline. */
  readonly fallbackReply?: string;
  /** Clock in epoch ms, read against the request's deadline. Default `Date.now`. */
  readonly now?: () => number;
  /** The function reads version 2 (attachments). Default `false`: version 1 events, attachments described in the entries' text. */
  readonly readsMedia?: boolean;
}

/** The agent is a consumer's Lambda function, invoked synchronously with the versioned JSON contract above. */
export class LambdaInvokeAgent implements AgentPort {
  private readonly functionName: string;
  private readonly invoke: LambdaInvoke;
  private readonly tools: readonly AgentTool[];
  private readonly fallbackReply: string;
  private readonly now: () => number;
  private readonly readsMedia: boolean;

  constructor(options: LambdaInvokeAgentOptions) {
    this.functionName = options.functionName;
    this.invoke = options.invoke ?? lambdaInvoke();
    this.tools = options.tools ?? AGENT_TOOLS;
    this.fallbackReply = options.fallbackReply ?? DEFAULT_FALLBACK_REPLY;
    this.now = options.now ?? Date.now;
    this.readsMedia = options.readsMedia ?? false;
  }

  async respond(request: AgentRequest): Promise<AgentResponse> {
    const event = await this.eventOf(request);
    const output = await callBeforeDeadline(request.deadline, this.now, (abortSignal) => this.call(event, abortSignal));
    if (output === DEADLINE_REACHED) {
      return { reply: this.fallbackReply, actions: [], iterations: 0, stopReason: 'deadline' };
    }
    const response = this.parse(output);
    return { reply: response.reply, actions: response.actions ?? [], iterations: 1, stopReason: 'completed', ...(response.usage && { usage: response.usage }), ...(response.interactive && { interactive: response.interactive }) };
  }

  /** A version 2 event when the function reads it and the history carries an attachment, a version 1 event otherwise. */
  private async eventOf(request: AgentRequest): Promise<LambdaAgentRequestV1 | LambdaAgentRequestV2> {
    const common = {
      systemPrompt: request.systemPrompt,
      session: request.session,
      deadline: request.deadline,
      ...(request.earlierConversation === undefined ? {} : { earlierConversation: request.earlierConversation.map(withoutMedia) }),
    };
    if (!this.readsMedia || !request.history.some((entry) => entry.media !== undefined)) {
      return { version: LAMBDA_AGENT_CONTRACT_VERSION, ...common, history: request.history.map(withoutMedia) };
    }
    const history = await Promise.all(
      request.history.map(async (entry): Promise<LambdaAgentEntryV2> => {
        const { media, ...rest } = entry;
        return media === undefined ? rest : { ...rest, media: [await this.mediaOf(media, request.mediaStore)] };
      }),
    );
    return { version: LAMBDA_AGENT_MEDIA_CONTRACT_VERSION, ...common, history };
  }

  /** An attachment as the function reads it; a URL that could not be signed is left out (the state still says `stored`). */
  private async mediaOf(media: StoredMedia, store: AgentMediaStore | undefined): Promise<LambdaAgentMediaV2> {
    const described = mediaDescription(media);
    if (media.state !== 'stored' || media.objectKey === undefined || store === undefined) return described;
    const signedAt = this.now();
    const url = await store.presignedGetUrl(media.objectKey, LAMBDA_AGENT_MEDIA_URL_SECONDS).catch(() => undefined);
    return url === undefined ? described : { ...described, url, urlExpiresAt: signedAt + LAMBDA_AGENT_MEDIA_URL_SECONDS * 1000 };
  }

  private async call(event: LambdaAgentRequestV1 | LambdaAgentRequestV2, abortSignal: AbortSignal): Promise<LambdaInvocationResult> {
    try {
      return await this.invoke(
        { FunctionName: this.functionName, InvocationType: 'RequestResponse', Payload: new TextEncoder().encode(JSON.stringify(event)) },
        { abortSignal },
      );
    } catch (error) {
      if (abortSignal.aborted) throw error;
      const { name, message } = error as Error;
      throw new AgentInvocationError('invocation_failed', `Invoking agent function ${this.functionName} failed: ${name}: ${message}`, { cause: error });
    }
  }

  private parse(output: LambdaInvocationResult): LambdaAgentResponseV1 {
    const payload = output.Payload ? new TextDecoder().decode(output.Payload) : '';
    if (output.FunctionError) {
      const failure = parseJson(payload) as { errorType?: unknown; errorMessage?: unknown } | undefined;
      const detail = typeof failure?.errorMessage === 'string' ? `${String(failure.errorType ?? 'Error')}: ${failure.errorMessage}` : output.FunctionError;
      throw new AgentInvocationError('function_error', `Agent function ${this.functionName} raised ${detail}`);
    }
    if (output.StatusCode !== 200) {
      throw new AgentInvocationError('invocation_failed', `Agent function ${this.functionName} answered status ${output.StatusCode}`);
    }
    const problems: string[] = [];
    const response = parseLambdaAgentResponse(parseJson(payload), problems, this.tools);
    if (!response) {
      throw new AgentInvocationError(
        'malformed_response',
        `Agent function ${this.functionName} broke contract v${LAMBDA_AGENT_CONTRACT_VERSION}: ${problems.join('; ')}`,
      );
    }
    return response;
  }
}

const RESPONSE_KEYS = new Set(['reply', 'actions', 'usage', 'interactive']);

/** The response when it follows contract v1; otherwise `undefined`, with the reasons in `problems`. */
function parseLambdaAgentResponse(value: unknown, problems: string[], tools: readonly AgentTool[]): LambdaAgentResponseV1 | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    problems.push('the response must be a JSON object');
    return undefined;
  }
  const body = value as Record<string, unknown>;
  for (const key of Object.keys(body)) {
    if (!RESPONSE_KEYS.has(key)) problems.push(`unknown key "${key}"`);
  }
  if (typeof body.reply !== 'string' || body.reply.trim() === '') problems.push('reply must be a non-empty string');

  const actions: AgentAction[] = [];
  if (body.actions !== undefined) {
    if (!Array.isArray(body.actions)) problems.push('actions must be an array');
    else {
      body.actions.forEach((candidate: unknown, index) => {
        if (typeof candidate !== 'object' || candidate === null || Array.isArray(candidate)) {
          problems.push(`actions[${index}] must be an object`);
          return;
        }
        const { type, ...input } = candidate as Record<string, unknown>;
        const parsed = parseAgentAction(typeof type === 'string' ? type : JSON.stringify(type), input, tools);
        if (parsed.ok) actions.push(parsed.action);
        else problems.push(...parsed.problems.map((problem) => `actions[${index}]: ${problem}`));
      });
    }
  }
  let usage: TokenUsage | undefined;
  if (body.usage !== undefined) {
    if (isTokenUsage(body.usage) && Object.keys(body.usage).length === 2) usage = { inputTokens: body.usage.inputTokens, outputTokens: body.usage.outputTokens };
    else problems.push('usage must be an object of exactly inputTokens and outputTokens, whole numbers of 0 or more');
  }
  const interactive = body.interactive === undefined ? undefined : parseInteractiveReply(body.interactive);
  if (interactive !== undefined && 'problems' in interactive) problems.push(...interactive.problems.map((problem) => `interactive: ${problem}`));
  return problems.length === 0 ? { reply: body.reply as string, actions, ...(usage && { usage }), ...(interactive && 'interactive' in interactive && { interactive: interactive.interactive }) } : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A version 1 entry: an attachment is described in its text. */
function withoutMedia({ media, ...entry }: ConversationEntry): LambdaAgentEntryV1 {
  return media === undefined ? entry : { ...entry, text: withMediaNote(entry.text, media, false) };
}
