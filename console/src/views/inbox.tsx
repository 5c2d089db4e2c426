import type { ConversationState, ConversationSummary } from '../../../lib/contract/operator-api';
import { useConsole } from '../context';
import { formatDuration, type MessageKey } from '../i18n';
import { durationOf, hrefOf, inboxTabs, INBOX_TABS, type InboxTab } from '../view-model';
import { LoadError, useRemote } from './common';

/** The states of a conversation that is not over. */
const OPEN_STATES: readonly ConversationState[] = ['AWAITING_HUMAN', 'HUMAN_ACTIVE', 'QUALIFYING', 'NEW'];

const TAB_LABELS: Record<InboxTab, MessageKey> = { waiting: 'inbox.tab.waiting', mine: 'inbox.tab.mine', open: 'inbox.tab.open' };
const EMPTY_LABELS: Record<InboxTab, MessageKey> = { waiting: 'inbox.empty.waiting', mine: 'inbox.empty.mine', open: 'inbox.empty.open' };

/** The human inbox: who waits for a person (oldest first), what I handle, everything open. */
export function InboxScreen({ tab }: { readonly tab: InboxTab }) {
  const { t, api, session } = useConsole();
  const { data, error } = useRemote(
    async () => (await Promise.all(OPEN_STATES.map(async (state) => (await api.listConversations(state)).items))).flat(),
    [],
    true,
  );
  const tabs = inboxTabs(data ?? [], session.operator.phone);
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
            {t(TAB_LABELS[name], { count: tabs[name].length })}
          </a>
        ))}
      </div>
      <LoadError error={error} />
      <div id="inbox-list" role="tabpanel" aria-labelledby={`tab-${tab}`}>
        {data === undefined ? (
          <p role="status">{t('loading')}</p>
        ) : tabs[tab].length === 0 ? (
          <p>{t(EMPTY_LABELS[tab])}</p>
        ) : (
          <ul class="conversation-list">
            {tabs[tab].map((item) => (
              <InboxRow item={item} now={now} />
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}

function InboxRow({ item, now }: { readonly item: ConversationSummary; readonly now: number }) {
  const { t } = useConsole();
  const name = item.displayName ?? item.customerId;
  return (
    <li class={`conversation-row state-${item.state}`}>
      <a href={hrefOf({ kind: 'conversation', customerId: item.customerId })} aria-label={t('inbox.open', { name })}>
        <span class="row-name">{name}</span>
        <span class="row-state">{t(`state.${item.state}`)}</span>
        {item.state === 'AWAITING_HUMAN' && item.waitingSince !== undefined && (
          <span class="row-waiting">{t('inbox.waitingFor', { duration: formatDuration(t, durationOf(now - Date.parse(item.waitingSince))) })}</span>
        )}
        {item.assignedTo !== undefined && <span class="row-assigned">{t('inbox.assignedTo', { operator: item.assignedTo })}</span>}
        {item.lastMessage !== undefined && <span class="row-preview">{item.lastMessage.preview}</span>}
      </a>
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
