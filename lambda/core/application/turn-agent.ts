import type { ConversationMemory } from '../domain/conversation-memory';
import { addUsage } from '../domain/customer-budget';
import { stableStringify } from '../domain/stable-json';
import type { PendingInbound } from '../domain/inbound-receipt';
import { interactiveAsText } from '../domain/interactive-reply';
import { withMediaNote } from '../domain/media-note';
import { isVisibleToAgent, type Message } from '../domain/message';
import { isHumanOwned, SessionState, type Session } from '../domain/session';
import { isoMicros, toEpochMicros } from '../domain/timestamps';
import { applyActions, newestWithin, qualificationAsText } from '../domain/turn';
import { type AgentAction, type AgentMediaStore, type AgentPort, type AgentResponse, type AgentSessionContext, type AgentStages, type ConversationEntry, isAgentStages } from '../ports/agent';
import type { Clock } from '../ports/clock';
import type { InboundReceiptRepository, MessageRepository, OperationalConfigRepository, VersionedResourceRepository } from '../ports/repositories';
import type { WhatsAppSender } from '../ports/whatsapp-sender';
import { type FoldedWindow, foldedWindow } from './memory-fold';
import { isStillLatest, isStillLatestForSideEffect } from './still-latest';
import type { ToolCallRecord, TurnCheckpointStore } from '../ports/agent-tools';
import { TurnToolRounds } from './turn-tool-rounds';
import { SystemPromptSource, stagePromptId, stagePromptMarker } from './system-prompt';
import type { AgentCallReport, TurnSettings } from './turn-settings';

export interface TurnAgentDependencies {
  /** One agent, or the stages of `AgentBackend.stages()`. */
  readonly agent: AgentPort | AgentStages;
  readonly whatsapp: WhatsAppSender;
  readonly messages: MessageRepository;
  /** Read between the agent's tool rounds: the latest-inbound marker. */
  readonly receipts: Pick<InboundReceiptRepository, 'getLatest'>;
  readonly resources: VersionedResourceRepository;
  readonly clock: Clock;
  readonly deployedSystemPrompt?: { readonly text: string; readonly config: OperationalConfigRepository };
  /** With stages: the prompt the construct set for each stage that has one, adopted like the single agent's. */
  readonly deployedStagePrompts?: { readonly texts: Readonly<Record<string, string>>; readonly config: OperationalConfigRepository };
  /** The media bucket, read by the agent for the history's stored attachments. Absent: attachments are described in text. */
  readonly mediaStore?: AgentMediaStore;
  /** Where the turn keeps its model rounds and consumer tool calls. Absent: consumer tools answer `unavailable`. */
  readonly checkpoints?: TurnCheckpointStore;
  /** The pipeline's locale, told to consumer tools. */
  readonly locale?: string;
}

/** The agent's answer, and how the call went (whether the read receipt went out is known only later). */
export interface AgentAnswer {
  readonly response: AgentResponse;
  /** The model that answered, when the agent names one. */
  readonly model?: string;
  /** With stages: the stage that answered. */
  readonly stage?: string;
  readonly call: Omit<AgentCallReport, 'readReceiptSent'> & { readonly readReceiptSent: Promise<boolean> };
  /** The session's memory as the turn leaves it, when the agent has memory. */
  readonly memory?: ConversationMemory;
}

/** An agent the turn may ask, with its prompt; `name` for a stage. */
interface Stage {
  readonly name?: string;
  readonly agent: AgentPort;
  readonly prompt: SystemPromptSource;
}

/** The stored messages a turn shows the agent, read before this turn's messages were appended. */
export interface StoredConversation {
  /** The session's own history (read now when absent). */
  readonly history?: Promise<Message[]>;
  /** The previous, closed conversation's last messages, for a session opened after it. */
  readonly earlier?: Promise<Message[]>;
}

/**
 * Step 6 of a turn (docs/DESIGN.md#a-normal-turn-step-by-step): what the agent is shown — the
 * system prompt, the session's visible history with this turn's messages, the session context —
 * and the call itself, within the invocation's deadline. With stages, the session's current stage
 * answers; a handover to another stage asks that stage next, in the same turn (docs/DESIGN.md#stages).
 */
export class TurnAgent {
  private readonly stages: ReadonlyMap<string | undefined, Stage>;
  private readonly entry?: string;
  private readonly maxHandovers: number;

  constructor(
    private readonly deps: TurnAgentDependencies,
    private readonly settings: TurnSettings,
  ) {
    const { agent } = deps;
    if (isAgentStages(agent)) {
      const deployed = deps.deployedStagePrompts;
      this.stages = new Map(
        agent.names.map((name) => {
          const text = deployed?.texts[name];
          const prompt = new SystemPromptSource(
            deps.resources,
            deps.clock,
            { ...settings, promptResource: { type: settings.promptResource.type, id: stagePromptId(name) } },
            text === undefined ? undefined : { text, config: deployed!.config, marker: stagePromptMarker(name) },
          );
          return [name, { name, agent: agent.agentOf(name)!, prompt }];
        }),
      );
      this.entry = agent.entry;
      this.maxHandovers = agent.maxHandoversPerTurn;
    } else {
      this.stages = new Map([[undefined, { agent, prompt: new SystemPromptSource(deps.resources, deps.clock, settings, deps.deployedSystemPrompt) }]]);
      this.maxHandovers = 0;
    }
  }

  /**
   * The session's stored history the agent may see: as many messages as it is shown, before the
   * turn's own `turnMessages`. A retried turn finds those appended already; read without them, the
   * oldest message of a full window would be missing, and the memory would never fold it.
   */
  storedHistory(customerId: string, sessionId: string, turnMessages: number): Promise<Message[]> {
    return this.deps.messages.historyForSession(customerId, sessionId, this.settings.historyLimit + turnMessages);
  }

  /** The last messages of a closed session, as the earlier conversation of the session opened after it. */
  earlierConversation(customerId: string, closedSessionId: string): Promise<Message[]> {
    return this.deps.messages.historyForSession(customerId, closedSessionId, this.settings.earlierConversationLimit);
  }

  /**
   * `stored`: what was read before this turn's messages were appended; `appended`: those messages as
   * they were appended (an attachment's entry says where it is stored, not that it is pending). Whether `last` is still the
   * latest is asked between the agent's tool rounds and before each handover; when a newer message
   * arrived, the answer so far is returned, and the result write (the latest-message guard) drops it.
   */
  async ask(
    session: Session,
    last: PendingInbound,
    deadline: number,
    stored: StoredConversation,
    appended: readonly Message[],
    drained: readonly PendingInbound[] = [last],
    showTyping: () => Promise<boolean> = () => markReadTyping(this.deps.whatsapp, last),
  ): Promise<AgentAnswer> {
    // Blue ticks and a typing indicator while the agent thinks (sent earlier when the turn waited
    // for a burst to settle): best effort, alongside the agent call and awaited only after the
    // persist, so it adds no latency even to an agent that answers at once, and its failure never
    // fails the turn.
    const readReceipt = showTyping();
    const agentStarted = this.deps.clock.now().getTime();
    let stage = this.stageOf(session.currentAgent);
    const [{ history, window }, earlier] = await Promise.all([this.conversation(session, stage.agent, stored.history, appended, deadline), stored.earlier]);
    const summary = window.memory?.summary;
    const earlierConversation = earlier && earlier.length > 0 ? newestWithin(earlier.filter(isVisibleToAgent).map(earlierConversationEntry), this.settings.earlierConversationMaxCharacters) : undefined;
    const responses: AgentResponse[] = [];
    let context = session;
    // The turn's model round trips are bounded as one agent's: the stages share them.
    let iterationsLeft = this.settings.maxAgentIterations;
    const toolCalls: ToolCallRecord[] = [];
    for (;;) {
      const toolRounds = this.toolRoundsOf(session, last, drained, deadline, `${responses.length}:${stage.name ?? ''}`, stage.name);
      const response = await stage.agent.respond({
        systemPrompt: await stage.prompt.current(),
        history,
        ...(earlierConversation === undefined ? {} : { earlierConversation }),
        ...(summary === undefined ? {} : { conversationSummary: summary }),
        session: agentContext(context, stage.name),
        deadline: deadline - this.settings.deliveryReserveMs,
        maxIterations: iterationsLeft,
        stillLatest: () => isStillLatest(this.deps.receipts, last),
        ...(this.deps.mediaStore === undefined ? {} : { mediaStore: this.deps.mediaStore }),
        ...(toolRounds && { toolRounds }),
      });
      responses.push(response);
      toolCalls.push(...(toolRounds?.calls ?? []));
      iterationsLeft -= response.iterations;
      const next = responses.length <= this.maxHandovers && iterationsLeft > 0 && response.stopReason !== 'superseded' ? this.handoverTarget(stage, response) : undefined;
      if (next === undefined) break;
      // The next stage sees what this one learned; a handoff to a human or a close ends the turn's agents.
      context = applyActions(context, response.actions, isoMicros(this.deps.clock.now()));
      if (isHumanOwned(context.state) || context.state === SessionState.CLOSED || !(await isStillLatest(this.deps.receipts, last))) break;
      stage = next;
    }
    const response = combined(responses);
    const modelCalls = responses.flatMap((each) => each.modelCalls ?? []);
    const { fold } = window;
    return {
      response,
      model: stage.agent.model,
      stage: stage.name,
      ...(window.memory === undefined ? {} : { memory: window.memory }),
      call: {
        iterations: response.iterations,
        latencyMs: this.deps.clock.now().getTime() - agentStarted,
        stopReason: response.stopReason,
        readReceiptSent: readReceipt,
        usage: response.usage,
        ...(stage.agent.model === undefined ? {} : { model: stage.agent.model }),
        ...(fold === undefined ? {} : { memoryFold: fold }),
        ...(toolCalls.length > 0 && { toolCalls }),
        ...(modelCalls.length > 0 && { modelCalls }),
      },
    };
  }

  /** One agent run's side of the consumer tools: its checkpoint under the turn, and the turn's guarantees (docs/DESIGN.md#consumer-tools). */
  private toolRoundsOf(session: Session, last: PendingInbound, drained: readonly PendingInbound[], deadline: number, run: string, stage: string | undefined): TurnToolRounds | undefined {
    const { checkpoints, receipts, clock, locale } = this.deps;
    if (checkpoints === undefined) return undefined;
    const messageIds = [...drained.filter((message) => message.messageId !== last.messageId).map((message) => message.messageId), last.messageId];
    return new TurnToolRounds({
      store: checkpoints,
      clock,
      run,
      deadline: deadline - this.settings.deliveryReserveMs,
      context: { customerId: session.customerId, sessionId: session.sessionId, ...(stage !== undefined && { stage }), locale: locale ?? '', messageIds },
      stillLatest: () => isStillLatestForSideEffect(receipts, last),
    });
  }

  /** The session's current stage; the entry for a new session or one naming a stage no longer configured. */
  private stageOf(name: string | undefined): Stage {
    return this.stages.get(name !== undefined && this.stages.has(name) ? name : this.entry)!;
  }

  /** The stage the response handed the conversation to (its last handover to another configured stage). */
  private handoverTarget(from: Stage, response: AgentResponse): Stage | undefined {
    const handover = [...response.actions].reverse().find((action) => action.type === 'handover_to_agent' && action.agent !== from.name && this.stages.has(action.agent));
    return handover?.type === 'handover_to_agent' ? this.stages.get(handover.agent) : undefined;
  }

  /**
   * The session's history as the agent sees it: what was stored (read alongside the pending
   * messages, so before they were appended) and the messages this turn appended, each once — with
   * the agent's memory, the window after the fold point, folded first when it outgrew the limits.
   */
  private async conversation(session: Session, agent: AgentPort, stored: Promise<Message[]> | undefined, appended: readonly Message[], deadline: number): Promise<{ history: ConversationEntry[]; window: FoldedWindow }> {
    const read = await (stored ?? this.storedHistory(session.customerId, session.sessionId, appended.length));
    const byKey = new Map([...read, ...appended].map((message) => [`${message.timestamp}#${message.messageId}`, message]));
    const messages = [...byKey.values()].sort((a, b) => toEpochMicros(a.timestamp) - toEpochMicros(b.timestamp));
    const { historyLimit, historyMaxCharacters, deliveryReserveMs, agentReserveAfterFoldMs } = this.settings;
    const window = await foldedWindow(session, messages, agent.memory, { messages: historyLimit, characters: historyMaxCharacters }, { deadline: deadline - deliveryReserveMs, agentReserveMs: agentReserveAfterFoldMs }, this.deps.clock);
    const shown = window.messages.slice(-historyLimit);
    const quotable = byWamid(messages);
    return { history: newestWithin(shown.filter(isVisibleToAgent).map((message) => conversationEntry(message, quotable)), historyMaxCharacters), window };
  }
}

/** What the agent is told about the session: what was recorded, each learned field once it is set. */
function agentContext(session: Session, stage: string | undefined): AgentSessionContext {
  const cadastralData = qualificationAsText(session.cadastralData);
  return {
    sessionId: session.sessionId,
    customerId: session.customerId,
    state: session.state,
    qualificationData: qualificationAsText(session.qualificationData),
    ...(Object.keys(cadastralData).length > 0 ? { cadastralData } : {}),
    ...(session.segment === undefined ? {} : { segment: session.segment }),
    ...(session.intent === undefined ? {} : { intent: session.intent }),
    ...(stage === undefined ? {} : { agent: stage }),
  };
}

/**
 * The turn's answer over its stages: the last agent's reply and stop, every agent's actions, round
 * trips and tokens. A later stage reads the same history, so it may record a demand an earlier one
 * recorded: such a repeat is dropped (every other action is idempotent, or must apply in order).
 */
function combined(responses: readonly AgentResponse[]): AgentResponse {
  if (responses.length === 1) return responses[0];
  const last = responses[responses.length - 1];
  const reported = responses.flatMap((response) => (response.usage === undefined ? [] : [response.usage]));
  const knowledgeSources = [...new Set(responses.flatMap((response) => response.knowledgeSources ?? []))];
  const demandKey = (action: AgentAction) => (action.type === 'record_out_of_portfolio_demand' ? stableStringify(action) : undefined);
  const recordedEarlier = new Set<string>();
  const actions: AgentAction[] = [];
  for (const response of responses) {
    actions.push(...response.actions.filter((action) => !recordedEarlier.has(demandKey(action) ?? '')));
    for (const key of response.actions.map(demandKey)) if (key !== undefined) recordedEarlier.add(key);
  }
  return {
    reply: last.reply,
    actions,
    iterations: responses.reduce((total, response) => total + response.iterations, 0),
    stopReason: last.stopReason,
    ...(reported.length === 0 ? {} : { usage: reported.reduce(addUsage) }),
    ...(knowledgeSources.length === 0 ? {} : { knowledgeSources }),
    ...(last.interactive === undefined ? {} : { interactive: last.interactive }),
  };
}

function conversationEntry(message: Message, quotable?: ReadonlyMap<string, Message>): ConversationEntry {
  const quoted = message.quotedMessageId === undefined ? undefined : quotable?.get(message.quotedMessageId);
  const text = [quoted && quoteLine(shownText(quoted)), shownText(message), message.choiceId === undefined ? undefined : `[chose option id: ${message.choiceId}]`].filter((line) => line !== undefined).join('\n');
  return {
    role: message.role === 'user' ? 'customer' : 'assistant',
    text,
    at: message.timestamp,
    ...(message.deliveryStatus === 'maybe_sent' && { mayNotHaveReached: true }),
    ...(message.media !== undefined && message.role === 'user' && { media: message.media }),
  };
}

/** A message as the customer read it: an interactive reply's body with its options. */
function shownText(message: Message): string {
  return message.interactive === undefined ? message.text : interactiveAsText(message.text, message.interactive);
}

/** How much of a quoted message the agent is shown: enough to tell which one it is. */
const QUOTE_MAX_CHARACTERS = 200;

/** A reply's quoted message, as WhatsApp shows it above the reply: one `> ` line, shortened. */
function quoteLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return `> ${line.length > QUOTE_MAX_CHARACTERS ? `${line.slice(0, QUOTE_MAX_CHARACTERS - 1)}…` : line}`;
}

/** The messages a reply may quote, by the wamid the customer's app knows: a customer message's own, a reply's from Meta. */
function byWamid(history: readonly Message[]): ReadonlyMap<string, Message> {
  return new Map(history.flatMap((message) => [[message.messageId, message] as const, ...(message.providerMessageId === undefined ? [] : [[message.providerMessageId, message] as const])]));
}

/** An entry of the earlier conversation: context in text, so its attachments are only described. */
function earlierConversationEntry(message: Message): ConversationEntry {
  const { media, ...entry } = conversationEntry(message);
  return { ...entry, text: withMediaNote(entry.text, media, false) };
}

/** Blue ticks and a typing indicator on `last`, best effort: `false` when it failed. */
export function markReadTyping(whatsapp: Pick<WhatsAppSender, 'markAsRead'>, last: PendingInbound): Promise<boolean> {
  return whatsapp.markAsRead({ businessPhoneNumberId: last.businessPhoneNumberId, messageId: last.messageId, showTypingIndicator: true }).then(
    () => true,
    () => false,
  );
}
