import { useMemo, useState } from 'preact/hooks';
import { AdminApi } from '../admin-api';
import type { Page } from '../../../lib/contract/operator-api';
import { useConsole } from '../context';
import type { MessageKey } from '../i18n';
import type { AdminScreen } from '../view-model';
import { LoadError, Section, useRemote } from './common';

type ListScreen = Exclude<AdminScreen, 'prompts' | 'operators' | 'config' | 'templates' | 'quick-replies' | 'reports' | 'dead-letters' | 'crm' | 'customers'>;

type Loader = (admin: AdminApi, cursor?: string) => Promise<Page<object>>;

const LISTS: Record<ListScreen, { readonly load: Loader; readonly heading: MessageKey }> = {
  demands: { load: (admin, cursor) => admin.list('GET admin/demands', cursor), heading: 'list.demands' },
  consents: { load: (admin, cursor) => admin.list('GET admin/consents', cursor), heading: 'list.consents' },
  audit: { load: (admin, cursor) => admin.list('GET admin/audit', cursor), heading: 'list.audit' },
};

/** A recent-first, read-only admin list, as a table whose columns are the items' fields. */
export function AdminListScreen({ screen }: { readonly screen: ListScreen }) {
  const { t, api } = useConsole();
  const admin = useMemo(() => new AdminApi(api), [api]);
  const { load, heading } = LISTS[screen];
  const { data, error } = useRemote(() => load(admin), [screen]);
  const [more, setMore] = useState<Page<object> | undefined>(undefined);
  const items = [...(data?.items ?? []), ...(more?.items ?? [])];
  const cursor = more === undefined ? data?.cursor : more.cursor;
  const loadMore = async () => {
    const page = await load(admin, cursor);
    setMore({ items: [...(more?.items ?? []), ...page.items], cursor: page.cursor });
  };
  return (
    <Section heading={t(heading)}>
      <LoadError error={error} />
      {data === undefined ? error === undefined && <p role="status">{t('loading')}</p> : <DataTable caption={t(heading)} items={items} />}
      {cursor !== undefined && (
        <button type="button" onClick={loadMore}>
          {t('list.more')}
        </button>
      )}
    </Section>
  );
}

/** Rows of JSON objects: one column per field seen, nested values shown as JSON. */
export function DataTable({ caption, items }: { readonly caption: string; readonly items: readonly object[] }) {
  const { t } = useConsole();
  if (items.length === 0) return <p>{t('list.empty')}</p>;
  const rows = items.map((item) => new Map(Object.entries(item)));
  const columns = [...new Set(rows.flatMap((row) => [...row.keys()]))];
  return (
    <div class="table-scroll" tabIndex={0} role="region" aria-label={caption}>
      <table>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th scope="col">{column}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr>
              {columns.map((column) => (
                <td>{cellText(row.get(column))}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
