import { useState } from 'preact/hooks';
import { customerNameOf } from '../../../lib/contract/customer-name';
import type { ConversationSummary, Page } from '../../../lib/contract/operator-api';
import type { OperatorApi } from '../api';
import { useConsole } from '../context';
import { formatDuration, type MessageKey, type Translate } from '../i18n';
import { COUNTED_TABS, durationOf, hrefOf, inboxTabs, INBOX_TABS, isJustNow, listKeyOf, listsToPoll, mergeRows, TAB_LISTS, type InboxList, type InboxTab } from '../view-model';
import { describeFailure, FeedbackLine, LoadError, useRemote, type Feedback } from './common';

const TAB_LABELS: Record<InboxTab, MessageKey> = { waiting: 'inbox.tab.waiting', mine: 'inbox.tab.mine', open: 'inbox.tab.open', closed: 'inbox.tab.closed' };
const EMPTY_LABELS: Record<InboxTab, MessageKey> = { waiting: 'inbox.empty.waiting', mine: 'inbox.empty.mine', open: 'inbox.empty.open', closed: 'inbox.empty.closed' };

/** The first page of each list a tab needs, by list. */
type FirstPages = ReadonlyMap<string, Page<ConversationSummary>>;

async function firstPages(api: OperatorApi, lists: readonly InboxList[], search: string | undefined): Promise<FirstPages> {
  const pages = await Promise.all(lists.map(async (list) => [listKeyOf(list), await api.listConversations(list.state, { mine: list.mine, search })] as const));
  return new Map(pages);
}

/**
 * The human inbox: who waits for a person (oldest first), what I handle, everything open, what was
 * closed; a search by name or phone; pages past the first with the API's cursor. It polls only the
 * lists it shows and counts, each a conditional request: an unchanged list costs one small read.
 */
export function InboxScreen({ tab }: { readonly tab: InboxTab }) {
  const { t, api, session } = useConsole();
  const [search, setSearch] = useState<string | undefined>(undefined);
  // Pages after the first, loaded on request, by list; the polls refresh the first pages.
  const [later, setLater] = useState<{ readonly key: string; readonly pages: ReadonlyMap<string, Page<ConversationSummary>[]> }>({ key: '', pages: new Map() });
  const [feedback, setFeedback] = useState<Feedback>(undefined);
  const [loadingMore, setLoadingMore] = useState(false);
  const viewKey = `${tab}|${search ?? ''}`;
  const { data, error } = useRemote(() => firstPages(api, listsToPoll(tab), search), [tab, search], true);
  const laterPages = later.key === viewKey ? later.pages : new Map<string, Page<ConversationSummary>[]>();

  const listsShown = TAB_LISTS[tab];
  const pagesOf = (list: InboxList): Page<ConversationSummary>[] => {
    const first = data?.get(listKeyOf(list));
    return first === undefined ? [] : [first, ...(laterPages.get(listKeyOf(list)) ?? [])];
  };
  const cursorOf = (list: InboxList) => pagesOf(list).at(-1)?.cursor;
  const rows = inboxTabs(mergeRows(listsShown.flatMap((list) => pagesOf(list).map((page) => page.items))), session.operator.phone)[tab];
  const hasMore = listsShown.some((list) => cursorOf(list) !== undefined);

  const countOf = (name: InboxTab): string | number => {
    const [list] = TAB_LISTS[name];
    const first = data?.get(listKeyOf(list));
    if (first === undefined) return '…';
    return first.cursor === undefined ? first.items.length : `${first.items.length}+`;
  };
  /** A counted tab's label: how many, and how many of them the customer wrote to since I last opened them. */
  const countedLabel = (name: InboxTab): string => {
    const label = t(TAB_LABELS[name], { count: countOf(name) });
    const unread = data?.get(listKeyOf(TAB_LISTS[name][0]))?.items.filter((item) => item.unread).length ?? 0;
    return unread === 0 ? label : `${label} · ${t('inbox.tab.unread', { count: unread })}`;
  };
  const loadMore = async () => {
    setLoadingMore(true);
    try {
      const next = new Map(laterPages);
      await Promise.all(
        listsShown.map(async (list) => {
          const cursor = cursorOf(list);
          if (cursor === undefined) return;
          const page = await api.listConversations(list.state, { mine: list.mine, search, cursor });
          next.set(listKeyOf(list), [...(next.get(listKeyOf(list)) ?? []), page]);
        }),
      );
      setLater({ key: viewKey, pages: next });
      setFeedback(undefined);
    } catch (failure) {
      setFeedback({ kind: 'error', text: describeFailure(t, failure, 'load') });
    } finally {
      setLoadingMore(false);
    }
  };

  const now = Date.now();
  return (
    <section aria-labelledby="inbox-heading">
      <h2 id="inbox-heading">{t('inbox.heading')}</h2>
      <div role="tablist" aria-label={t('inbox.tabs')} class="tabs" onKeyDown={moveBetweenTabs}>
        {INBOX_TABS.map((name) => (
          <a
            role="tab"
            id={`tab-${name}`}
            href={hrefOf({ kind: 'inbox', tab: name })}
            aria-selected={name === tab}
            aria-controls="inbox-list"
            tabIndex={name === tab ? 0 : -1}
          >
            {COUNTED_TABS.includes(name) ? countedLabel(name) : t(TAB_LABELS[name])}
          </a>
        ))}
      </div>
      <SearchForm current={search} onSearch={setSearch} />
      <LoadError error={error} stale={data !== undefined} />
      <div id="inbox-list" role="tabpanel" aria-labelledby={`tab-${tab}`}>
        {data === undefined ? (
          <p role="status">{t('loading')}</p>
        ) : rows.length === 0 ? (
          <p>{search === undefined ? t(EMPTY_LABELS[tab]) : t('inbox.noMatches', { query: search })}</p>
        ) : (
          <ul class="conversation-list">
            {rows.map((item) => (
              <InboxRow key={item.customerId} item={item} now={now} />
            ))}
          </ul>
        )}
        {hasMore && (
          <button type="button" class="load-more" disabled={loadingMore} onClick={loadMore}>
            {t('inbox.loadMore')}
          </button>
        )}
        <FeedbackLine feedback={feedback} />
      </div>
    </section>
  );
}

/** A search by name or phone over the tab's lists; the API refuses what it cannot search (the reason is shown). */
function SearchForm({ current, onSearch }: { readonly current: string | undefined; readonly onSearch: (search: string | undefined) => void }) {
  const { t } = useConsole();
  const [text, setText] = useState(current ?? '');
  const submit = (event: Event) => {
    event.preventDefault();
    onSearch(text.trim() === '' ? undefined : text.trim());
  };
  return (
    <form role="search" class="inbox-search" onSubmit={submit}>
      <input type="search" aria-label={t('inbox.search')} placeholder={t('inbox.search')} maxLength={64} value={text} onInput={(event) => setText((event.currentTarget as HTMLInputElement).value)} />
      <button type="submit">{t('inbox.searchButton')}</button>
      {current !== undefined && (
        <button
          type="button"
          class="link-button"
          onClick={() => {
            setText('');
            onSearch(undefined);
          }}
        >
          {t('inbox.clearSearch')}
        </button>
      )}
    </form>
  );
}

/** "há 5 min", or "agora" under a minute. */
function ago(t: Translate, now: number, at: string, key: MessageKey, justNowKey: MessageKey): string {
  const elapsed = now - Date.parse(at);
  return isJustNow(elapsed) ? t(justNowKey) : t(key, { duration: formatDuration(t, durationOf(elapsed)) });
}

function InboxRow({ item, now }: { readonly item: ConversationSummary; readonly now: number }) {
  const { t } = useConsole();
  const name = customerNameOf(item);
  const learned = item.displayName !== undefined && item.displayName !== name ? item.displayName : undefined;
  // The link holds the name alone, so what it is called contains what it shows (WCAG 2.5.3); it covers the whole row.
  return (
    <li class={`conversation-row state-${item.state}${item.unread ? ' unread' : ''}`}>
      <a href={hrefOf({ kind: 'conversation', customerId: item.customerId })} class="row-link">
        <span class="visually-hidden">{t('inbox.openWith')} </span>
        <span class="row-name">{name}</span>
      </a>
      {item.unread && <span class="row-unread">{t('inbox.unread')}</span>}
      <span class="row-who">{[learned, item.customerId === name ? undefined : item.customerId].filter(Boolean).join(' · ')}</span>
      <span class="row-state">{t(`state.${item.state}`)}</span>
      {item.state === 'AWAITING_HUMAN' && item.waitingSince !== undefined && <span class="row-waiting">{ago(t, now, item.waitingSince, 'inbox.waitingFor', 'inbox.waitingJustNow')}</span>}
      <span class="row-activity">{ago(t, now, item.updatedAt, 'inbox.lastActivity', 'inbox.lastActivityJustNow')}</span>
      {item.assignedTo !== undefined && <span class="row-assigned">{t('inbox.assignedTo', { operator: item.assignedToName ?? item.assignedTo })}</span>}
      {item.handoffReason !== undefined && <span class="row-reason">{t('inbox.reason', { reason: item.handoffReason })}</span>}
      {item.lastMessage !== undefined && <span class="row-preview">{t('inbox.lastMessage', { author: name, text: item.lastMessage.preview })}</span>}
    </li>
  );
}

/** Arrow keys move between tabs, as the ARIA tabs pattern expects. */
function moveBetweenTabs(event: KeyboardEvent) {
  if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
  const tabs = [...(event.currentTarget as HTMLElement).querySelectorAll<HTMLElement>('[role="tab"]')];
  const index = tabs.indexOf(document.activeElement as HTMLElement);
  const next = tabs[(index + (event.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length];
  next.focus();
  next.click();
}
