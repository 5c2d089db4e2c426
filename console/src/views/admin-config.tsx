import { useMemo, useState } from 'preact/hooks';
import { AdminApi, operatorsOf, operatorsValue, type OperatorEntry } from '../admin-api';
import { useConsole } from '../context';
import { describeFailure, FeedbackLine, LoadError, Section, useRemote, type Feedback } from './common';

const OPERATORS_KEY = 'operators';
/** The settings edited as JSON here (operators have their own screen). */
const JSON_KEYS = ['handoff_texts', 'handoff_notice_template', 'availability_ttl_hours'];

/** Who may sign in, and as what. Every change rewrites the `operators` setting (audited by the API). */
export function OperatorsScreen() {
  const { t, api } = useConsole();
  const admin = useMemo(() => new AdminApi(api), [api]);
  const { data, error, reload } = useRemote(() => admin.config(OPERATORS_KEY), []);
  const [feedback, setFeedback] = useState<Feedback>(undefined);
  const [phone, setPhone] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<'operator' | 'admin'>('operator');

  const [saving, setSaving] = useState(false);
  const rows = operatorsOf(data?.value);
  // One change at a time: each is a compare-and-set on the version the screen shows.
  const save = async (next: readonly OperatorEntry[]) => {
    if (data === undefined) return;
    setSaving(true);
    try {
      await admin.saveConfig(OPERATORS_KEY, operatorsValue(next), data.version);
      setFeedback({ kind: 'ok', text: t('operators.saved') });
    } catch (failure) {
      setFeedback({ kind: 'error', text: describeFailure(t, failure, 'saveConfig') });
    }
    await reload();
    setSaving(false);
  };
  const add = async (event: Event) => {
    event.preventDefault();
    const entry: OperatorEntry = { phone: phone.trim(), role, name: name.trim() === '' ? undefined : name.trim() };
    await save([...rows.filter((row) => row.phone !== entry.phone), entry]);
    setPhone('');
    setName('');
  };

  return (
    <Section heading={t('operators.heading')}>
      <LoadError error={error} />
      <FeedbackLine feedback={feedback} />
      <ul class="operator-list">
        {rows.map((entry) => (
          <li>
            <span>
              {entry.name ?? ''} {entry.phone}
            </span>
            <select
              aria-label={t('operators.roleOf', { phone: entry.phone })}
              value={entry.role}
              disabled={saving}
              onChange={(event) => {
                const next = (event.currentTarget as HTMLSelectElement).value === 'admin' ? 'admin' : 'operator';
                void save(rows.map((row) => (row.phone === entry.phone ? { ...row, role: next } : row)));
              }}
            >
              <option value="operator">{t('operators.role.operator')}</option>
              <option value="admin">{t('operators.role.admin')}</option>
            </select>
            <button type="button" disabled={saving} onClick={() => save(rows.filter((row) => row.phone !== entry.phone))}>
              {t('operators.remove', { phone: entry.phone })}
            </button>
          </li>
        ))}
      </ul>
      <form class="inline-form" onSubmit={add}>
        <label>
          {t('operators.phone')}
          <input inputMode="numeric" pattern="[0-9]{8,15}" required value={phone} onInput={(event) => setPhone((event.currentTarget as HTMLInputElement).value)} />
        </label>
        <label>
          {t('operators.name')}
          <input value={name} onInput={(event) => setName((event.currentTarget as HTMLInputElement).value)} />
        </label>
        <label>
          {t('operators.role')}
          <select value={role} onChange={(event) => setRole((event.currentTarget as HTMLSelectElement).value === 'admin' ? 'admin' : 'operator')}>
            <option value="operator">{t('operators.role.operator')}</option>
            <option value="admin">{t('operators.role.admin')}</option>
          </select>
        </label>
        <button type="submit" disabled={saving}>
          {t('operators.add')}
        </button>
      </form>
    </Section>
  );
}

/** Any operational setting as JSON, validated by the API per key. */
export function ConfigScreen() {
  const { t, api } = useConsole();
  const admin = useMemo(() => new AdminApi(api), [api]);
  const [key, setKey] = useState(JSON_KEYS[0]);
  return (
    <Section heading={t('config.heading')}>
      <label>
        {t('config.key')}
        <select value={key} onChange={(event) => setKey((event.currentTarget as HTMLSelectElement).value)}>
          {JSON_KEYS.map((known) => (
            <option value={known}>{known}</option>
          ))}
        </select>
      </label>
      <ConfigEditor key={key} admin={admin} configKey={key} />
    </Section>
  );
}

function ConfigEditor({ admin, configKey }: { readonly admin: AdminApi; readonly configKey: string }) {
  const { t } = useConsole();
  const { data, error, reload } = useRemote(() => admin.config(configKey), [configKey]);
  const [draft, setDraft] = useState<string | undefined>(undefined);
  const [feedback, setFeedback] = useState<Feedback>(undefined);
  if (data === undefined) return error === undefined ? <p role="status">{t('loading')}</p> : <LoadError error={error} />;
  const text = draft ?? (data.value === null || data.value === undefined ? '' : JSON.stringify(data.value, null, 2));
  const save = async () => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      setFeedback({ kind: 'error', text: t('config.badJson') });
      return;
    }
    try {
      await admin.saveConfig(configKey, value, data.version);
      setDraft(undefined);
      setFeedback({ kind: 'ok', text: t('config.saved', { key: configKey }) });
    } catch (failure) {
      setFeedback({ kind: 'error', text: describeFailure(t, failure, 'saveConfig') });
    }
    await reload();
  };
  return (
    <div class="config-editor">
      <label for="config-value">{t('config.value', { key: configKey })}</label>
      <textarea id="config-value" rows={10} value={text} onInput={(event) => setDraft((event.currentTarget as HTMLTextAreaElement).value)} />
      <button type="button" class="primary" onClick={save}>
        {t('config.save', { key: configKey })}
      </button>
      <FeedbackLine feedback={feedback} />
    </div>
  );
}
