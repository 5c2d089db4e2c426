import { useMemo, useState } from 'preact/hooks';
import { AdminApi } from '../admin-api';
import type { AuditEvent, ConsentEvent, Demand, JsonObject, Page } from '../../../lib/contract/operator-api';
import { useConsole } from '../context';
import { isMessageKey, type Language, type MessageKey, type Translate } from '../i18n';
import type { AdminScreen } from '../view-model';
import { formatTime, LoadError, Section, useRemote } from './common';

type ListScreen = Exclude<AdminScreen, 'prompts' | 'operators' | 'config' | 'templates' | 'quick-replies' | 'reports' | 'dead-letters' | 'crm' | 'customers'>;

/** A column: its header, and the words of one item's cell. */
interface Column<Item> {
  readonly heading: MessageKey;
  readonly cell: (item: Item, words: { readonly t: Translate; readonly language: Language }) => string;
}

interface ListSpec<Item> {
  readonly heading: MessageKey;
  readonly load: (admin: AdminApi, cursor?: string) => Promise<Page<Item>>;
  readonly columns: readonly Column<Item>[];
}

const when = <Item,>(at: (item: Item) => string): Column<Item> => ({ heading: 'list.col.when', cell: (item, { language }) => formatTime(at(item), language) });

const AUDIT: ListSpec<AuditEvent> = {
  heading: 'list.audit',
  load: (admin, cursor) => admin.list('GET admin/audit', cursor),
  columns: [
    when((event) => event.occurredAt),
    { heading: 'list.col.who', cell: (event) => event.author },
    { heading: 'list.col.action', cell: (event, { t }) => wordsOf(t, `audit.action.${event.action}`, event.action) },
    { heading: 'list.col.resource', cell: (event) => event.resourceId ?? '' },
    { heading: 'list.col.details', cell: (event) => detailsText(event.details) },
  ],
};

const DEMANDS: ListSpec<Demand> = {
  heading: 'list.demands',
  load: (admin, cursor) => admin.list('GET admin/demands', cursor),
  columns: [
    when((demand) => demand.recordedAt),
    { heading: 'list.col.customer', cell: (demand) => demand.customerId },
    { heading: 'list.col.service', cell: (demand) => demand.requestedService },
    { heading: 'list.col.message', cell: (demand) => demand.originalMessage },
    { heading: 'list.col.segment', cell: (demand) => demand.estimatedSegment ?? '' },
  ],
};

const CONSENTS: ListSpec<ConsentEvent> = {
  heading: 'list.consents',
  load: (admin, cursor) => admin.list('GET admin/consents', cursor),
  columns: [
    when((consent) => consent.recordedAt),
    { heading: 'list.col.customer', cell: (consent) => consent.customerId },
    { heading: 'list.col.purpose', cell: (consent) => consent.purpose },
    { heading: 'list.col.granted', cell: (consent, { t }) => t(consent.granted ? 'list.granted' : 'list.refused') },
    { heading: 'list.col.source', cell: (consent) => consent.source },
    { heading: 'list.col.terms', cell: (consent) => consent.termsVersion ?? '' },
  ],
};

// Each list's items and columns go together; the map erases the item type only here.
const LISTS = { audit: AUDIT, demands: DEMANDS, consents: CONSENTS } as unknown as Record<ListScreen, ListSpec<object>>;

/** A recent-first, read-only admin list, as a table of the columns people read. */
export function AdminListScreen({ screen }: { readonly screen: ListScreen }) {
  const { t, api } = useConsole();
  const admin = useMemo(() => new AdminApi(api), [api]);
  const spec = LISTS[screen];
  const { data, error } = useRemote(() => spec.load(admin), [screen]);
  const [more, setMore] = useState<Page<object> | undefined>(undefined);
  const items = [...(data?.items ?? []), ...(more?.items ?? [])];
  const cursor = more === undefined ? data?.cursor : more.cursor;
  const loadMore = async () => {
    const page = await spec.load(admin, cursor);
    setMore({ items: [...(more?.items ?? []), ...page.items], cursor: page.cursor });
  };
  return (
    <Section heading={t(spec.heading)}>
      <LoadError error={error} />
      {data === undefined ? error === undefined && <p role="status">{t('loading')}</p> : <ListTable caption={t(spec.heading)} items={items} columns={spec.columns} />}
      {cursor !== undefined && (
        <button type="button" onClick={loadMore}>
          {t('list.more')}
        </button>
      )}
    </Section>
  );
}

function ListTable<Item>({ caption, items, columns }: { readonly caption: string; readonly items: readonly Item[]; readonly columns: readonly Column<Item>[] }) {
  const { t, language } = useConsole();
  if (items.length === 0) return <p>{t('list.empty')}</p>;
  return (
    <div class="table-scroll" tabIndex={0} role="region" aria-label={caption}>
      <table class="admin-list">
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th scope="col">{t(column.heading)}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <tr>
              {columns.map((column) => (
                <td>{column.cell(item, { t, language })}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The words of a key made from data (an action name), or the data itself when the console has none. */
function wordsOf(t: Translate, key: string, fallback: string): string {
  return isMessageKey(key) ? t(key) : fallback;
}

/** Details as `name: value` pairs on one line, lists joined; whole, never cut. */
function detailsText(details: JsonObject | undefined): string {
  if (details === undefined) return '';
  return Object.entries(details)
    .filter(([, value]) => value !== null && value !== undefined && !(Array.isArray(value) && value.length === 0))
    .map(([name, value]) => `${name}: ${Array.isArray(value) ? value.join(', ') : typeof value === 'object' ? JSON.stringify(value) : String(value)}`)
    .join(' · ');
}
