import { matchProblems, type ObservedToolCall } from '../../domain/evaluation/expectations';
import type { CustomerMessage, RecordedToolAnswer } from '../../domain/evaluation/scenario';
import type { AgentPort, AgentRequest, AgentStages } from '../../ports/agent';
import { isAgentStages } from '../../ports/agent';
import type { Clock, IdGenerator } from '../../ports/clock';
import type { EvaluationStage, StageRecording } from '../../ports/evaluation';
import type { OutboundMediaMessage, OutboundTemplateMessage, OutboundTextMessage, SentTextMessage, WhatsAppSender } from '../../ports/whatsapp-sender';
import type { InboundTurn } from '../../domain/inbound-turn';
import type { LambdaInvocationResult, LambdaInvoke, LambdaInvokeInput } from '../lambda/lambda-invoke';
import { parseWebhookPayload } from '../whatsapp/webhook-payload';

/** What registers a customer message: the inbound use case (register-inbound.ts). */
export interface InboundRegistration {
  execute(turns: readonly InboundTurn[]): Promise<unknown>;
}

interface CustomerRecording {
  tools: Readonly<Record<string, readonly RecordedToolAnswer[]>>;
  replies: string[];
  toolCalls: ObservedToolCall[];
  unrecorded: string[];
}

/**
 * The evaluation's stand-ins at the edges of the turn path, one per run (docs/EVALUATION.md#how-a-scenario-runs):
 * the WhatsApp sender records each customer's replies and sends nothing; the consumer tools' Lambda
 * invoke answers from the scenario's recordings and never reaches the function; the agent is watched
 * for the actions it takes. Customer messages enter as Meta's notifications, read by the webhook's
 * own reader.
 */
export class RecordingEvaluationStage implements EvaluationStage {
  private readonly recordings = new Map<string, CustomerRecording>();

  constructor(
    private readonly inbound: InboundRegistration,
    private readonly businessPhoneNumberId: string,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  async receive(customerId: string, message: CustomerMessage): Promise<void> {
    const now = this.clock.now();
    const notification = {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'evaluation',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: this.businessPhoneNumberId, phone_number_id: this.businessPhoneNumberId },
                messages: [{ from: customerId, id: `wamid.evaluation-${this.ids.newId()}`, timestamp: String(Math.floor(now.getTime() / 1000)), ...metaMessageOf(message, this.ids) }],
              },
            },
          ],
        },
      ],
    };
    const { turns } = parseWebhookPayload(JSON.stringify(notification), now);
    await this.inbound.execute(turns);
  }

  recordTools(customerId: string, tools: Readonly<Record<string, readonly RecordedToolAnswer[]>>): void {
    this.recordings.set(customerId, { tools, replies: [], toolCalls: [], unrecorded: [] });
  }

  take(customerId: string): StageRecording {
    const recording = this.recordingOf(customerId);
    const taken = { replies: recording.replies, toolCalls: recording.toolCalls, unrecorded: recording.unrecorded };
    this.recordings.set(customerId, { tools: recording.tools, replies: [], toolCalls: [], unrecorded: [] });
    return taken;
  }

  release(customerId: string): void {
    this.recordings.delete(customerId);
  }

  /** The sender of the evaluation's turn path: every text is recorded, nothing leaves the process. */
  readonly sender: WhatsAppSender = {
    sendText: async (message: OutboundTextMessage) => this.sent(message.customerId, message.text),
    sendTemplate: async (message: OutboundTemplateMessage) => this.sent(message.customerId, `[template ${message.templateName}] ${message.parameters.map((parameter) => parameter.value).join(' | ')}`),
    sendMedia: async (message: OutboundMediaMessage) => this.sent(message.customerId, `[${message.kind}]${message.caption === undefined ? '' : ` ${message.caption}`}`),
    markAsRead: async () => undefined,
  };

  /** The consumer tools' invoke: the scenario's recorded answer for the input, never the function. */
  readonly invoke: LambdaInvoke = async (request: LambdaInvokeInput): Promise<LambdaInvocationResult> => {
    const event = JSON.parse(new TextDecoder().decode(request.Payload)) as { tool: string; input: unknown; context: { customerId: string } };
    const recording = this.recordingOf(event.context.customerId);
    recording.toolCalls.push({ name: event.tool, input: event.input });
    const answers = Object.hasOwn(recording.tools, event.tool) ? recording.tools[event.tool] : [];
    const answer = answers.find((candidate) => candidate.input === undefined || matchProblems(candidate.input, event.input, 'input').length === 0);
    if (answer === undefined) recording.unrecorded.push(`${event.tool} was called with ${JSON.stringify(event.input)}, which no recorded answer of the scenario matches`);
    const payload = answer === undefined ? { error: { message: 'No recorded answer for this input.' } } : answer.error !== undefined ? { error: { message: answer.error } } : { result: answer.result };
    return { StatusCode: 200, Payload: new TextEncoder().encode(JSON.stringify(payload)) };
  };

  /** The agent, watched: the actions of each answer (its built-in tools) are recorded as the customer's tool calls. */
  observe(agent: AgentPort | AgentStages): AgentPort | AgentStages {
    if (!isAgentStages(agent)) return this.watched(agent);
    const watched = new Map<string, AgentPort>();
    return {
      entry: agent.entry,
      maxHandoversPerTurn: agent.maxHandoversPerTurn,
      names: agent.names,
      agentOf: (stage) => {
        const found = agent.agentOf(stage);
        if (found === undefined) return undefined;
        if (!watched.has(stage)) watched.set(stage, this.watched(found));
        return watched.get(stage);
      },
    };
  }

  private watched(agent: AgentPort): AgentPort {
    return {
      model: agent.model,
      memory: agent.memory,
      respond: async (request: AgentRequest) => {
        const response = await agent.respond(request);
        const recording = this.recordingOf(request.session.customerId);
        for (const { type, ...input } of response.actions) recording.toolCalls.push({ name: type, input });
        return response;
      },
    };
  }

  private sent(customerId: string, text: string): SentTextMessage {
    this.recordingOf(customerId).replies.push(text);
    const id = `wamid.evaluation-reply-${this.ids.newId()}`;
    return { providerMessageId: id, providerMessageIds: [id] };
  }

  private recordingOf(customerId: string): CustomerRecording {
    const recording = this.recordings.get(customerId);
    if (recording === undefined) throw new Error(`customer ${customerId} is not a scenario of this evaluation`);
    return recording;
  }
}

/** The scenario's message as Meta's `messages[]` element (without its sender, id and time). */
function metaMessageOf(message: CustomerMessage, ids: IdGenerator): Record<string, unknown> {
  if (message.text !== undefined) return { type: 'text', text: { body: message.text } };
  if (message.tap !== undefined) {
    const kind = message.tap.kind === 'list' ? 'list_reply' : 'button_reply';
    return { type: 'interactive', interactive: { type: kind, [kind]: { id: message.tap.id ?? message.tap.title, title: message.tap.title } } };
  }
  const { kind, caption, filename } = message.media!;
  return { type: kind, [kind]: { id: `evaluation-media-${ids.newId()}`, ...(caption !== undefined && { caption }), ...(filename !== undefined && { filename }) } };
}
