import { isEvaluationCustomer } from '../../domain/evaluation/prompt-gate';
import { type InboxVersion, seenMarkOf } from '../../domain/inbox-summary';
import type { MetaRateTable } from '../../../../lib/contract/meta-message-rates';
import type { ModelPrices } from '../../../../lib/contract/model-prices';
import type { Operator } from '../../domain/operator';
import { isAgentOwned, type Session, SessionState } from '../../domain/session';
import type { Page, PageRequest } from '../../ports/repositories';
import type { OperatorDirectory } from './operator-directory';
import { ActiveConversations, type ActiveConversationsDependencies, type ConversationSummary, type ConversationView, type HistoryEntry, historyEntryOf, type InboxFilter, summaryOf } from './conversation-views';

export interface OperatorInboxDependencies extends ActiveConversationsDependencies {
  /** What rises with every change an inbox row shows, and each operator's count of mark changes (inbox-version.ts). */
  readonly inboxVersion: { current(operatorPhone: string, options?: { readonly agentLanes?: boolean }): Promise<InboxVersion>; raiseSeenMarks(operatorPhone: string): Promise<void> };
  /** Who the operators are (cached per process): a row names the person who has it. @default by phone alone */
  readonly operators?: Pick<OperatorDirectory, 'find' | 'list'>;
  /** The rate table an admin sees Meta's fees at (the admin's `meta_rates` over the packaged one). @default the packaged table */
  readonly metaRates?: () => Promise<MetaRateTable>;
  /** The prices an admin sees an agent reply's model cost at (the admin's `model_prices` over the packaged ones). @default no reply's cost is given */
  readonly modelPrices?: () => Promise<ModelPrices>;
}

/**
 * The human inbox's reads (docs/OPERATOR-API.md#who-may-do-what): an operator lists and reads every
 * conversation waiting for a person and the ones they own; an admin, every conversation. Opening a
 * conversation clears its unread mark for the one who opened it.
 */
export class OperatorInbox {
  private readonly conversations: ActiveConversations;

  constructor(private readonly deps: OperatorInboxDependencies) {
    this.conversations = new ActiveConversations(deps);
  }

  /**
   * The conversations in `state` the operator may read (for an operator, only waiting ones and their
   * own), only the operator's own with `mine`, only those a search finds with `search`.
   */
  async list(operator: Operator, state: SessionState, page: PageRequest, filter: InboxFilter = {}): Promise<Page<ConversationSummary>> {
    const everything = operator.role === 'admin' || state === SessionState.AWAITING_HUMAN;
    if (!everything && state !== SessionState.HUMAN_ACTIVE) return { items: [] };
    const assignedTo = filter.mine || !everything ? operator.phone : undefined;
    // One index page: a row is what the session item says (inbox-summary.ts), no history read per row.
    const sessions = await this.deps.sessions.listByState(state, page, { assignedTo, search: filter.search });
    // A scenario being played lives for seconds and is erased after; people never see it.
    const served = sessions.items.filter((session) => !isEvaluationCustomer(session.customerId));
    const names = await this.operatorNames(served.flatMap((session) => (session.assignedTo === undefined ? [] : [session.assignedTo])));
    return { items: served.map((session) => summaryOf(session, operator, names)), cursor: sessions.cursor };
  }

  /**
   * Everything a row of the operator's list of `state` is made of besides the sessions: the inbox's
   * version (raised by every write that changes or removes a row people's lists show), the
   * operator's unread marks, for an admin's list of the agent's conversations the agent's activity,
   * and the operators' names as this process has them (a row names who has it). While it stays the
   * same, the list is the same: its conditional answer is not read again. No clock: the waiting
   * times a row shows are the browser's, from the row's timestamps.
   */
  async listVersion(operator: Operator, state: SessionState): Promise<unknown[]> {
    const [inbox, operators] = await Promise.all([this.deps.inboxVersion.current(operator.phone, { agentLanes: operator.role === 'admin' && isAgentOwned(state) }), this.deps.operators?.list()]);
    return [inbox.version, inbox.seenMarks, inbox.agentActivity ?? null, (operators ?? []).map(({ phone, name }) => [phone, name ?? null])];
  }

  async get(operator: Operator, customerId: string, page: PageRequest): Promise<{ readonly conversation: ConversationView; readonly history: Page<HistoryEntry> }> {
    const session = await this.readable(operator, customerId);
    const [history, conversation] = await Promise.all([this.deps.messages.history(customerId, page), this.conversations.view(session), this.markSeen(operator, session)]);
    // Costs are the admins' to see: only their page of priced messages or agent replies reads the prices in force.
    const admin = operator.role === 'admin';
    const [rates, modelPrices] = await Promise.all([
      admin && history.items.some((message) => message.metaPricing !== undefined) ? this.deps.metaRates?.() : undefined,
      admin && history.items.some((message) => message.llm !== undefined) ? this.deps.modelPrices?.() : undefined,
    ]);
    return { conversation, history: { items: await this.withOperatorNames(history.items.map((message) => historyEntryOf(message, rates, modelPrices))), cursor: history.cursor } };
  }

  /** The customer's active session, when the operator may read it (else `not_found`, or the rule's refusal: who has it, say). */
  readable(operator: Operator, customerId: string): Promise<Session> {
    return this.conversations.permitted(operator, customerId, 'read');
  }

  /** The names of the operators the list's rows are assigned to, from the cached operators list. */
  private async operatorNames(phones: readonly string[]): Promise<ReadonlyMap<string, string>> {
    const { operators } = this.deps;
    if (operators === undefined) return new Map();
    const found = await Promise.all([...new Set(phones)].map(async (phone) => [phone, (await operators.find(phone))?.name] as const));
    return new Map(found.flatMap(([phone, name]) => (name === undefined ? [] : [[phone, name] as const])));
  }

  /** Opening the conversation clears its unread mark for the operator: two writes when the customer wrote since their last open, none otherwise. */
  private async markSeen(operator: Operator, session: Session): Promise<void> {
    const mark = seenMarkOf(session, operator.phone);
    if (mark !== undefined && (await this.deps.sessions.markSeen(session, mark))) await this.deps.inboxVersion.raiseSeenMarks(operator.phone);
  }

  /** Each operator's reply with the operator's name as the operators list has it now. */
  private async withOperatorNames(entries: readonly HistoryEntry[]): Promise<HistoryEntry[]> {
    const phones = [...new Set(entries.flatMap((entry) => (entry.operatorPhone === undefined ? [] : [entry.operatorPhone])))];
    const operators = await Promise.all(phones.map((phone) => this.deps.operators?.find(phone)));
    const names = new Map(phones.map((phone, index) => [phone, operators[index]?.name]));
    return entries.map((entry) => (entry.operatorPhone === undefined || names.get(entry.operatorPhone) === undefined ? entry : { ...entry, operatorName: names.get(entry.operatorPhone) }));
  }
}
