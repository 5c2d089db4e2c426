/**
 * The console's decisions that do not need a browser: routes, inbox order and counts, the 24-hour
 * window, durations, prompt diffs and what to tell a person when a call is refused. Pure functions,
 * unit-tested without a DOM.
 */
import type { ConversationState, ConversationSummary, HistoryEntry } from '../../lib/contract/operator-api';

export type InboxTab = 'waiting' | 'mine' | 'open' | 'closed';
export const INBOX_TABS: readonly InboxTab[] = ['waiting', 'mine', 'open', 'closed'];

/** One list call of the operator API: a state's conversations, only the caller's own with `mine`. */
export interface InboxList {
  readonly state: ConversationState;
  readonly mine?: boolean;
}

/** What each tab lists. An operator's closed list is empty: only an admin reads closed conversations. */
export const TAB_LISTS: Readonly<Record<InboxTab, readonly InboxList[]>> = {
  waiting: [{ state: 'AWAITING_HUMAN' }],
  mine: [{ state: 'HUMAN_ACTIVE', mine: true }],
  open: [{ state: 'AWAITING_HUMAN' }, { state: 'HUMAN_ACTIVE' }, { state: 'QUALIFYING' }, { state: 'NEW' }],
  closed: [{ state: 'CLOSED' }],
};

/** The tabs whose count the tab bar shows at all times (what a person answers); the others count only what they list. */
export const COUNTED_TABS: readonly InboxTab[] = ['waiting', 'mine'];

export function listKeyOf(list: InboxList): string {
  return `${list.state}${list.mine ? ':mine' : ''}`;
}

/**
 * The lists a poll of `tab` asks for: the tab's own, and those of the counted tabs. Each is a
 * conditional request (see api.ts), so an unchanged list costs the API one small read.
 */
export function listsToPoll(tab: InboxTab): InboxList[] {
  const lists = [...TAB_LISTS[tab], ...COUNTED_TABS.flatMap((counted) => TAB_LISTS[counted])];
  return [...new Map(lists.map((list) => [listKeyOf(list), list])).values()];
}

/** The rows of several pages of one or more lists, each conversation once (a later page's copy wins: it is newer). */
export function mergeRows(pages: readonly (readonly ConversationSummary[])[]): ConversationSummary[] {
  const rows = new Map<string, ConversationSummary>();
  for (const page of pages) for (const row of page) rows.set(row.customerId, row);
  return [...rows.values()];
}


export type AdminScreen = 'prompts' | 'scenarios' | 'operators' | 'config' | 'templates' | 'quick-replies' | 'reports' | 'demands' | 'consents' | 'audit' | 'crm' | 'dead-letters' | 'customers';
export const ADMIN_SCREENS: readonly AdminScreen[] = ['prompts', 'scenarios', 'operators', 'config', 'templates', 'quick-replies', 'reports', 'demands', 'consents', 'audit', 'crm', 'dead-letters', 'customers'];

export type Route =
  | { readonly kind: 'inbox'; readonly tab: InboxTab }
  | { readonly kind: 'conversation'; readonly customerId: string }
  | { readonly kind: 'admin'; readonly screen: AdminScreen };

/** The same id rule the API applies to path segments. */
const ID_SEGMENT = /^(?!\.+$)[A-Za-z0-9_.-]{1,128}$/;

/** Reads a `#/…` location; anything unknown is the waiting inbox. */
export function parseRoute(hash: string): Route {
  const [first, second] = hash.replace(/^#\/?/, '').split('/');
  if (first === 'inbox' && INBOX_TABS.includes(second as InboxTab)) return { kind: 'inbox', tab: second as InboxTab };
  if (first === 'conversations' && second !== undefined && ID_SEGMENT.test(decodeURIComponent(second))) {
    return { kind: 'conversation', customerId: decodeURIComponent(second) };
  }
  if (first === 'admin' && ADMIN_SCREENS.includes(second as AdminScreen)) return { kind: 'admin', screen: second as AdminScreen };
  return { kind: 'inbox', tab: 'waiting' };
}

export function hrefOf(route: Route): string {
  switch (route.kind) {
    case 'inbox':
      return `#/inbox/${route.tab}`;
    case 'conversation':
      return `#/conversations/${encodeURIComponent(route.customerId)}`;
    case 'admin':
      return `#/admin/${route.screen}`;
  }
}

/** The login link is `{console}/login#{token}`: the token, or undefined on any other page. */
export function loginTokenOf(pathname: string, hash: string): string | undefined {
  if (pathname !== '/login') return undefined;
  const token = hash.replace(/^#/, '');
  return token === '' ? undefined : token;
}

/** The inbox tabs, built from the conversations the API listed. */
export function inboxTabs(open: readonly ConversationSummary[], me: string): Record<InboxTab, ConversationSummary[]> {
  const waiting = open.filter((item) => item.state === 'AWAITING_HUMAN');
  waiting.sort((a, b) => Date.parse(a.waitingSince ?? a.updatedAt) - Date.parse(b.waitingSince ?? b.updatedAt));
  const newestFirst = [...open].sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt));
  return {
    waiting,
    mine: newestFirst.filter((item) => item.state === 'HUMAN_ACTIVE' && item.assignedTo === me),
    open: newestFirst.filter((item) => item.state !== 'CLOSED'),
    closed: newestFirst.filter((item) => item.state === 'CLOSED'),
  };
}

export interface Duration {
  readonly days: number;
  readonly hours: number;
  readonly minutes: number;
}

/** Less than a minute: a row says "just now", not "0 min". */
export function isJustNow(milliseconds: number): boolean {
  return milliseconds < 60_000;
}

/** Whole days, hours and minutes of a span (negative spans count as zero). */
export function durationOf(milliseconds: number): Duration {
  const totalMinutes = Math.max(0, Math.floor(milliseconds / 60_000));
  return { days: Math.floor(totalMinutes / 1440), hours: Math.floor((totalMinutes % 1440) / 60), minutes: totalMinutes % 60 };
}

/** WhatsApp lets a business write freely only within 24 hours of the customer's last message. */
export const SERVICE_WINDOW_MS = 24 * 3_600_000;

export type ServiceWindow = { readonly open: true; readonly closesInMs: number } | { readonly open: false };

/** The window as the loaded history shows it: from the newest customer message. */
export function serviceWindowOf(history: readonly HistoryEntry[], now: Date): ServiceWindow {
  let newest: number | undefined;
  for (const entry of history) {
    if (entry.direction !== 'inbound') continue;
    const at = Date.parse(entry.at);
    if (newest === undefined || at > newest) newest = at;
  }
  if (newest === undefined) return { open: false };
  const closesInMs = newest + SERVICE_WINDOW_MS - now.getTime();
  return closesInMs > 0 ? { open: true, closesInMs } : { open: false };
}

export interface DiffLine {
  readonly kind: 'same' | 'added' | 'removed';
  readonly text: string;
}

/** A line diff (longest common subsequence) from `before` to `after`. */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  // common[i][j]: length of the longest common subsequence of a[i..] and b[j..].
  const common = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i][j] = a[i] === b[j] ? common[i + 1][j + 1] + 1 : Math.max(common[i + 1][j], common[i][j + 1]);
    }
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      lines.push({ kind: 'same', text: a[i] });
      i++;
      j++;
    } else if (i < a.length && (j === b.length || common[i + 1][j] >= common[i][j + 1])) {
      // Removals first on a tie: a changed line reads as old, then new.
      lines.push({ kind: 'removed', text: a[i++] });
    } else {
      lines.push({ kind: 'added', text: b[j++] });
    }
  }
  return lines;
}

/** What the person was doing when a call was refused: the explanation depends on it. */
export type Action =
  | 'signIn'
  | 'claim'
  | 'takeOver'
  | 'reply'
  | 'attach'
  | 'note'
  | 'release'
  | 'close'
  | 'availability'
  | 'saveDraft'
  | 'publish'
  | 'evaluate'
  | 'rollback'
  | 'saveConfig'
  | 'saveScenario'
  | 'removeScenario'
  | 'draftScenario'
  | 'saveQuickReply'
  | 'redrive'
  | 'syncTemplates'
  | 'load';

/** Dictionary keys of the explanations (see i18n.ts). */
export type Explanation =
  | 'error.badLink'
  | 'error.tooManyAttempts'
  | 'error.claimTaken'
  | 'error.conversationChanged'
  | 'error.promptStale'
  | 'error.draftStale'
  | 'error.scenarioStale'
  | 'error.evaluationRegression'
  | 'error.notEvaluated'
  | 'error.noScenarios'
  | 'error.evaluationRequired'
  | 'error.configStale'
  | 'error.notYours'
  | 'error.adminOnly'
  | 'error.windowClosed'
  | 'error.sendFailed'
  | 'error.notFound'
  | 'error.invalid'
  | 'error.network'
  | 'error.templateNotApproved'
  | 'error.unexpected';

/** Says in words why a call failed and what to do, from its status (or the API's code, where it says more) and the action tried. */
export function explain(status: number | undefined, action: Action, code?: string): Explanation {
  // Its fix is elsewhere in the console: sync, or pick another template.
  if (code === 'template_not_approved') return 'error.templateNotApproved';
  // The prompt gate's refusals: the console offers the override they ask for.
  if (code === 'evaluation_regression') return 'error.evaluationRegression';
  if (code === 'not_evaluated') return 'error.notEvaluated';
  if (code === 'no_scenarios') return 'error.noScenarios';
  if (code === 'evaluation_required') return 'error.evaluationRequired';
  switch (status) {
    case undefined:
      return 'error.network';
    case 400:
    case 413:
    case 415:
      return 'error.invalid';
    case 401:
      return 'error.badLink';
    case 403:
      return action === 'reply' || action === 'attach' || action === 'note' || action === 'release' || action === 'close' ? 'error.notYours' : 'error.adminOnly';
    case 404:
      return 'error.notFound';
    case 409:
      if (action === 'claim') return 'error.claimTaken';
      if (action === 'rollback' || action === 'publish') return 'error.promptStale';
      if (action === 'saveDraft') return 'error.draftStale';
      if (action === 'saveScenario' || action === 'removeScenario') return 'error.scenarioStale';
      if (action === 'saveConfig' || action === 'saveQuickReply') return 'error.configStale';
      return 'error.conversationChanged';
    case 422:
      return action === 'reply' || action === 'attach' ? 'error.windowClosed' : 'error.invalid';
    case 429:
      return 'error.tooManyAttempts';
    case 502:
      return 'error.sendFailed';
    default:
      return 'error.unexpected';
  }
}
