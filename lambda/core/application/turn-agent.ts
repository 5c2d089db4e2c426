import type { PendingInbound } from '../domain/inbound-receipt';
import { customerMessage, isVisibleToAgent, type Message } from '../domain/message';
import type { Session } from '../domain/session';
import { toEpochMicros } from '../domain/timestamps';
import { answersLatest, newestWithin, qualificationAsText } from '../domain/turn';
import type { AgentPort, AgentResponse, ConversationEntry } from '../ports/agent';
import type { Clock } from '../ports/clock';
import type { InboundReceiptRepository, MessageRepository, OperationalConfigRepository, VersionedResourceRepository } from '../ports/repositories';
import type { WhatsAppSender } from '../ports/whatsapp-sender';
import { SystemPromptSource } from './system-prompt';
import type { AgentCallReport, TurnSettings } from './turn-settings';

export interface TurnAgentDependencies {
  readonly agent: AgentPort;
  readonly whatsapp: WhatsAppSender;
  readonly messages: MessageRepository;
  /** Read between the agent's tool rounds: the latest-inbound marker. */
  readonly receipts: Pick<InboundReceiptRepository, 'getLatest'>;
  readonly resources: VersionedResourceRepository;
  readonly clock: Clock;
  readonly deployedSystemPrompt?: { readonly text: string; readonly config: OperationalConfigRepository };
}

/** The agent's answer, and how the call went (whether the read receipt went out is known only later). */
export interface AgentAnswer {
  readonly response: AgentResponse;
  /** The model that answered, when the agent names one. */
  readonly model?: string;
  readonly call: Omit<AgentCallReport, 'readReceiptSent'> & { readonly readReceiptSent: Promise<boolean> };
}

/**
 * Step 6 of a turn (docs/DESIGN.md#a-normal-turn-step-by-step): what the agent is shown — the
 * system prompt, the session's visible history with this turn's messages, the session context —
 * and the call itself, within the invocation's deadline.
 */
export class TurnAgent {
  private readonly systemPrompt: SystemPromptSource;

  constructor(
    private readonly deps: TurnAgentDependencies,
    private readonly settings: TurnSettings,
  ) {
    this.systemPrompt = new SystemPromptSource(deps.resources, deps.clock, settings, deps.deployedSystemPrompt);
  }

  /** The session's stored history the agent may see, as many messages as it is shown. */
  storedHistory(customerId: string, sessionId: string): Promise<Message[]> {
    return this.deps.messages.historyForSession(customerId, sessionId, this.settings.historyLimit);
  }

  /** `stored`: the session's history as read before this turn's messages were appended (read now when absent). */
  async ask(session: Session, last: PendingInbound, deadline: number, stored: Promise<Message[]> | undefined, pending: readonly PendingInbound[]): Promise<AgentAnswer> {
    // Blue ticks and a typing indicator while the agent thinks: best effort, alongside the agent
    // call and awaited only after the persist, so it adds no latency even to an agent that answers
    // at once, and its failure never fails the turn.
    const readReceipt = this.deps.whatsapp.markAsRead({ businessPhoneNumberId: last.businessPhoneNumberId, messageId: last.messageId, showTypingIndicator: true }).then(
      () => true,
      () => false,
    );
    const agentStarted = this.deps.clock.now().getTime();
    const response = await this.deps.agent.respond({
      systemPrompt: await this.systemPrompt.current(),
      history: await this.conversation(session, stored, pending),
      session: { sessionId: session.sessionId, customerId: session.customerId, state: session.state, qualificationData: qualificationAsText(session.qualificationData) },
      deadline: deadline - this.settings.deliveryReserveMs,
      maxIterations: this.settings.maxAgentIterations,
      stillLatest: () => this.stillLatest(last),
    });
    return { response, model: this.deps.agent.model, call: { iterations: response.iterations, latencyMs: this.deps.clock.now().getTime() - agentStarted, stopReason: response.stopReason, readReceiptSent: readReceipt, usage: response.usage } };
  }

  /**
   * Whether `last` is still the message the turn answers, as the persist guard will check it: one
   * strongly consistent read of the marker. A failed read lets the agent go on; the guard decides.
   */
  private async stillLatest(last: PendingInbound): Promise<boolean> {
    const latest = await this.deps.receipts.getLatest(last.customerId).catch(() => undefined);
    return latest === undefined || answersLatest(latest, last.messageId);
  }

  /**
   * The session's history as the agent sees it: what was stored (read alongside the pending
   * messages, so before they were appended) and the messages this turn appended, each once.
   */
  private async conversation(session: Session, stored: Promise<Message[]> | undefined, pending: readonly PendingInbound[]): Promise<ConversationEntry[]> {
    const read = await (stored ?? this.storedHistory(session.customerId, session.sessionId));
    const appended = pending.map((turn) => customerMessage(turn, session.sessionId, turn.historyTimestamp));
    const byKey = new Map([...read, ...appended].map((message) => [`${message.timestamp}#${message.messageId}`, message]));
    const history = [...byKey.values()].sort((a, b) => toEpochMicros(a.timestamp) - toEpochMicros(b.timestamp)).slice(-this.settings.historyLimit);
    return newestWithin(
      history.filter(isVisibleToAgent).map((message): ConversationEntry => ({ role: message.role === 'user' ? 'customer' : 'assistant', text: message.text, at: message.timestamp })),
      this.settings.historyMaxCharacters,
    );
  }
}
