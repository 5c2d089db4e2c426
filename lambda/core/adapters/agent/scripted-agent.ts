import { setTimeout as sleep } from 'node:timers/promises';
import { localePreset } from '../../../../lib/contract';
import type { TokenUsage } from '../../domain/customer-budget';
import type { CadastralField } from '../../domain/agent-action';
import { PipelineError } from '../../domain/errors';
import type { InteractiveReply } from '../../domain/interactive-reply';
import { fillTemplate } from '../../domain/message-template';
import type { AgentAction, AgentPort, AgentRequest, AgentResponse, ConversationEntry } from '../../ports/agent';

export interface ScriptedAgentOptions {
  /** Real latency before answering, in milliseconds. */
  readonly delayMs?: number;
  /**
   * Awaited before answering (after `delayMs`), with the 1-based call number: lets a test hold the
   * agent mid-call — e.g. until a newer customer message was registered — and release it at will.
   */
  readonly respondAfter?: (request: AgentRequest, call: number) => Promise<void>;
  /** Returns an error to throw for this call instead of answering (after `respondAfter`). */
  readonly failWhen?: (request: AgentRequest, call: number) => Error | undefined;
  /** How many of the latest requests {@link ScriptedAgent.requests} keeps. Default 100. */
  readonly keptRequests?: number;
  /** Model tokens every answer reports, as a Bedrock agent would. Default: none reported. */
  readonly usage?: TokenUsage;
  /** The model it names, as a Bedrock agent names its model id. Default: none. */
  readonly model?: string;
  /** As a stage of `AgentBackend.stages()`: its name, which opens each reply as `[name] `. Default: none. */
  readonly stage?: string;
  /** As a stage: the other stages, which `#passar <stage>` hands the conversation to. Default: none. */
  readonly handoverTargets?: readonly string[];
  /** The reply, in the pipeline's locale: `{messages}` becomes the turn's messages, `{count}` the count. Default: the default locale's. */
  readonly replyTemplate?: string;
}

const DEFAULT_KEPT_REQUESTS = 100;

/** Thrown when a customer message of the turn contains `#falha`. */
export class ScriptedAgentFailure extends PipelineError {
  override readonly name = 'ScriptedAgentFailure';
  override readonly code = 'scripted_agent_failure';
  /** The same history fails the same way every time. */
  override readonly retryable = false;
}

/**
 * A deterministic agent for development and tests: the same history always gives the same answer.
 *
 * The turn's messages are the customer entries after the last assistant entry known to have reached
 * the customer (one marked `mayNotHaveReached` is answered again, as a cautious agent would). The
 * reply echoes them with the count of customer messages in the whole history, in the words of
 * `replyTemplate` — by default `Olá! Recebi: <message 1> | <message 2> (mensagem <count>)` — opened
 * by `[<stage>] ` for a stage.
 *
 * Keywords in the turn's messages trigger actions, returned in this order:
 * - `#fora <service>` (up to the next `#` or line end) → `record_out_of_portfolio_demand`, one per occurrence
 * - `#dado key=value` (value up to the next `#` or line end; several allowed) → one `update_qualification`
 * - `#cadastro key=value` (several allowed; keys `nome`, `email`, `documento`, `empresa`, `cidade`
 *   or the field names themselves) → one `update_cadastral_data`
 * - `#segmento <segment>` → `set_segment`; `#intencao <intent>` → `set_intent` (up to the next `#` or line end)
 * - `#passar <stage>` → `handover_to_agent`, to the first stage named that is one of `handoverTargets`
 * - `#humano` → `request_human_handoff`
 * - `#fim` → `close_session`
 * - `#falha` → the call throws {@link ScriptedAgentFailure} (every retry fails too: a poison message)
 *
 * And choices under the reply (up to the next `#` or line end, options split by `|`, ids `opcao-<n>`):
 * `#botoes <a> | <b>` → reply buttons; `#lista <a> | <b>` → a list of one section; `#link <label> <url>`
 * → a link button. Nothing checks WhatsApp's limits here: the turn does.
 *
 * Latency and failures can also be injected through {@link ScriptedAgentOptions}; {@link requests}
 * keeps the latest requests (a bounded number: a warm function must not grow with every turn), so
 * tests can assert which history each call saw; {@link calls} counts them all.
 */
export class ScriptedAgent implements AgentPort {
  /** The latest requests received (at most `keptRequests`), in call order. */
  readonly requests: AgentRequest[] = [];
  private callCount = 0;

  constructor(private readonly options: ScriptedAgentOptions = {}) {}

  /** Requests received since construction, including those no longer kept. */
  get calls(): number {
    return this.callCount;
  }

  get model(): string | undefined {
    return this.options.model;
  }

  async respond(request: AgentRequest): Promise<AgentResponse> {
    const call = ++this.callCount;
    this.requests.push(request);
    if (this.requests.length > (this.options.keptRequests ?? DEFAULT_KEPT_REQUESTS)) this.requests.shift();
    if (this.options.delayMs) await sleep(this.options.delayMs);
    await this.options.respondAfter?.(request, call);
    const injected = this.options.failWhen?.(request, call);
    if (injected) throw injected;
    const answer = scriptedAnswer(request.history, this.options);
    return this.options.usage ? { ...answer, usage: this.options.usage } : answer;
  }
}

/** The words `#cadastro` takes for each registration field, besides the field names themselves. */
const CADASTRAL_WORDS: Readonly<Record<string, CadastralField>> = {
  nome: 'name',
  name: 'name',
  email: 'email',
  documento: 'document_id',
  document_id: 'document_id',
  empresa: 'company',
  company: 'company',
  cidade: 'city',
  city: 'city',
};

function scriptedAnswer(history: readonly ConversationEntry[], { stage, handoverTargets = [], replyTemplate = localePreset().texts.scriptedReply }: ScriptedAgentOptions): AgentResponse {
  const lastAssistant = history.map((entry) => (entry.role === 'assistant' && !entry.mayNotHaveReached ? 'said' : 'other')).lastIndexOf('said');
  const turn = history
    .slice(lastAssistant + 1)
    .filter((entry) => entry.role === 'customer')
    .map((entry) => entry.text);
  if (turn.length === 0) throw new RangeError('The agent needs a history that ends with the customer messages of the turn');

  const text = turn.join('\n');
  if (/#falha\b/i.test(text)) throw new ScriptedAgentFailure('The customer message asked the scripted agent to fail (#falha)');

  const actions: AgentAction[] = [];
  for (const [, service] of text.matchAll(/#fora\s+([^#\n]+)/gi)) {
    actions.push({ type: 'record_out_of_portfolio_demand', requestedService: service.trim() });
  }
  const data = Object.fromEntries([...text.matchAll(/#dado\s+([^\s=#]+)=([^#\n]*)/gi)].map(([, key, value]) => [key, value.trim()]));
  if (Object.keys(data).length > 0) actions.push({ type: 'update_qualification', data });
  const cadastral = Object.fromEntries(
    [...text.matchAll(/#cadastro\s+([^\s=#]+)=([^#\n]*)/gi)].flatMap(([, word, value]) => {
      const field = Object.hasOwn(CADASTRAL_WORDS, word.toLowerCase()) ? CADASTRAL_WORDS[word.toLowerCase()] : undefined;
      return field === undefined ? [] : [[field, value.trim()]];
    }),
  );
  if (Object.keys(cadastral).length > 0) actions.push({ type: 'update_cadastral_data', data: cadastral });
  const segment = /#segmento\s+([^#\n]+)/i.exec(text)?.[1].trim();
  if (segment) actions.push({ type: 'set_segment', segment });
  const intent = /#intencao\s+([^#\n]+)/i.exec(text)?.[1].trim();
  if (intent) actions.push({ type: 'set_intent', intent });
  const target = [...text.matchAll(/#passar\s+([a-z][a-z0-9_-]*)/gi)].map(([, name]) => name.toLowerCase()).find((name) => handoverTargets.includes(name));
  if (target !== undefined) actions.push({ type: 'handover_to_agent', agent: target, reason: `O cliente pediu a etapa ${target} (#passar)` });
  if (/#humano\b/i.test(text)) actions.push({ type: 'request_human_handoff', reason: 'O cliente pediu atendimento humano (#humano)' });
  if (/#fim\b/i.test(text)) actions.push({ type: 'close_session', reason: 'O cliente encerrou a conversa (#fim)' });

  const customerMessages = history.filter((entry) => entry.role === 'customer').length;
  const interactive = scriptedChoices(text);
  return {
    ...(interactive === undefined ? {} : { interactive }),
    reply: `${stage === undefined ? '' : `[${stage}] `}${fillTemplate(replyTemplate, { messages: turn.join(' | '), count: String(customerMessages) })}`,
    actions,
    iterations: 1,
    stopReason: 'completed',
  };
}

/** The choices `#botoes`, `#lista` or `#link` ask for, as the model would offer them. */
function scriptedChoices(text: string): InteractiveReply | undefined {
  const titled = (keyword: string) =>
    new RegExp(`#${keyword}\\s+([^#\\n]+)`, 'i').exec(text)?.[1].split('|').map((title, index) => ({ id: `opcao-${index + 1}`, title: title.trim() }));
  const buttons = titled('botoes');
  if (buttons) return { kind: 'buttons', buttons };
  const rows = titled('lista');
  if (rows) return { kind: 'list', button: 'Ver opções', sections: [{ rows }] };
  const link = /#link\s+([^#\n]+?)\s+(\S+:\/\/\S+)/i.exec(text);
  return link ? { kind: 'cta_url', displayText: link[1].trim(), url: link[2] } : undefined;
}
