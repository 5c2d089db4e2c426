import type { ComponentChildren } from 'preact';
import { useMemo, useState } from 'preact/hooks';
import { AdminApi, operatorsOf, operatorsValue, type OperatorEntry } from '../admin-api';
import { useConsole } from '../context';
import { isMessageKey } from '../i18n';
import { marketsOf, META_MESSAGE_RATES, META_RATE_CATEGORIES } from '../../../lib/contract/meta-message-rates';
import { handoffTextsOf, handoffTextsValue, helpFactsOf, metaRatesValue, priceRowsOf, priceTableValue, rateFieldsOf, SETTING_FORMS, type PriceRow, type SettingForm } from '../settings-schema';
import { describeFailure, describeProblem, FeedbackLine, LoadError, Section, useRemote, type Feedback } from './common';

const OPERATORS_KEY = 'operators';

/**
 * Who may sign in, and as what: the deployment's admins (only a deployment changes them), then the
 * team of the `operators` setting. Every change rewrites the setting (audited by the API); a removal
 * is confirmed first, since it ends the person's access at once.
 */
export function OperatorsScreen() {
  const { t, api } = useConsole();
  const admin = useMemo(() => new AdminApi(api), [api]);
  const { data, error, reload } = useRemote(() => admin.config(OPERATORS_KEY), []);
  const deployment = useRemote(() => admin.deploymentAdmins(), []);
  const [feedback, setFeedback] = useState<Feedback>(undefined);
  const [phone, setPhone] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<'operator' | 'admin'>('operator');
  const [removing, setRemoving] = useState<string | undefined>(undefined);

  const [saving, setSaving] = useState(false);
  const rows = operatorsOf(data?.value);
  const deploymentPhones = new Set((deployment.data ?? []).map((entry) => entry.phone));
  const who = (entry: { readonly phone: string; readonly name?: string }) => (entry.name === undefined ? entry.phone : t('operators.who', { name: entry.name, phone: entry.phone }));
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
  const remove = async (entry: OperatorEntry) => {
    setRemoving(undefined);
    await save(rows.filter((row) => row.phone !== entry.phone));
  };

  return (
    <Section heading={t('operators.heading')}>
      <LoadError error={error ?? deployment.error} />
      <FeedbackLine feedback={feedback} />
      {deployment.data !== undefined && deployment.data.length > 0 && (
        <section aria-label={t('operators.deployment')}>
          <h3>{t('operators.deployment')}</h3>
          <p class="hint">{t('operators.deploymentHint')}</p>
          <ul class="operator-list">
            {deployment.data.map((entry) => (
              <li>
                <span>{who(entry)}</span>
                <span class="badge">{t('operators.role.admin')}</span>
              </li>
            ))}
          </ul>
        </section>
      )}
      <section aria-label={t('operators.team')}>
        <h3>{t('operators.team')}</h3>
        <ul class="operator-list">
          {rows
            .filter((entry) => !deploymentPhones.has(entry.phone))
            .map((entry) => (
              <li>
                <span>{who(entry)}</span>
                <select
                  aria-label={t('operators.roleOf', { who: who(entry) })}
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
                {removing === entry.phone ? (
                  <span class="confirm-remove" role="group" aria-label={t('operators.confirmRemove', { who: who(entry) })}>
                    <span>{t('operators.confirmRemove', { who: who(entry) })}</span>
                    <button type="button" class="danger" disabled={saving} ref={(button) => button?.focus()} onClick={() => remove(entry)}>
                      {t('operators.confirmRemoveButton', { who: who(entry) })}
                    </button>
                    <button type="button" onClick={() => setRemoving(undefined)}>
                      {t('operators.cancel')}
                    </button>
                  </span>
                ) : (
                  <button type="button" disabled={saving} onClick={() => setRemoving(entry.phone)}>
                    {t('operators.remove', { who: who(entry) })}
                  </button>
                )}
              </li>
            ))}
        </ul>
      </section>
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

/** The operational settings, each as its own typed form; the API validates them again and its refusals are worded here. */
export function ConfigScreen() {
  const { t, api } = useConsole();
  const admin = useMemo(() => new AdminApi(api), [api]);
  return (
    <Section heading={t('config.heading')}>
      {SETTING_FORMS.map((form) => (
        <SettingEditor key={form.key} admin={admin} form={form} />
      ))}
    </Section>
  );
}

/** One setting: read with its version, saved compare-and-set on it. */
function SettingEditor({ admin, form }: { readonly admin: AdminApi; readonly form: SettingForm }) {
  const { t } = useConsole();
  const { data, error, reload } = useRemote(() => admin.config(form.key), [form.key]);
  const [feedback, setFeedback] = useState<Feedback>(undefined);
  const heading = t(form.heading);
  const save = async (value: unknown) => {
    if (data === undefined) return;
    try {
      await admin.saveConfig(form.key, value, data.version);
      setFeedback({ kind: 'ok', text: t('config.saved', { setting: heading }) });
    } catch (failure) {
      setFeedback({ kind: 'error', text: describeFailure(t, failure, 'saveConfig') });
    }
    await reload();
  };
  return (
    <section class="setting" aria-label={heading}>
      <h3>{heading}</h3>
      <p class="hint">{t(form.help, helpFactsOf(form))}</p>
      <LoadError error={error} />
      {data === undefined ? (
        error === undefined && <p role="status">{t('loading')}</p>
      ) : form.kind === 'hours' ? (
        <HoursForm key={data.version} form={form} stored={data.value} heading={heading} onSave={save} />
      ) : form.kind === 'texts' ? (
        <TextsForm key={data.version} form={form} stored={data.value} heading={heading} onSave={save} />
      ) : form.kind === 'prices' ? (
        <PricesForm key={data.version} form={form} stored={data.value} heading={heading} onSave={save} onRefusal={setFeedback} />
      ) : form.kind === 'rates' ? (
        <RatesForm key={data.version} form={form} stored={data.value} heading={heading} onSave={save} onRefusal={setFeedback} />
      ) : (
        <TemplateForm key={data.version} form={form} stored={data.value} heading={heading} onSave={save} />
      )}
      <FeedbackLine feedback={feedback} />
    </section>
  );
}

interface FormProps<Form extends SettingForm> {
  readonly form: Form;
  readonly stored: unknown;
  readonly heading: string;
  readonly onSave: (value: unknown) => Promise<void>;
}

// The forms leave checking to the API (noValidate): its refusals come back as codes worded in the
// console's language, where the browser's own messages would be in the browser's.
function SettingFormFrame({ heading, onSubmit, children }: { readonly heading: string; readonly onSubmit: () => void; readonly children: ComponentChildren }) {
  const { t } = useConsole();
  return (
    <form
      class="setting-form"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
    >
      {children}
      <button type="submit" class="primary">
        {t('config.save', { setting: heading })}
      </button>
    </form>
  );
}

function HoursForm({ form, stored, heading, onSave }: FormProps<Extract<SettingForm, { kind: 'hours' }>>) {
  const { t } = useConsole();
  const [hours, setHours] = useState(typeof stored === 'number' ? String(stored) : '');
  return (
    <SettingFormFrame heading={heading} onSubmit={() => onSave(hours.trim() === '' ? null : Number(hours))}>
      <label>
        {t(form.label)}
        <input type="number" inputMode="numeric" min={form.min} max={form.max} step={1} placeholder={String(form.byDefault)} value={hours} onInput={(event) => setHours(event.currentTarget.value)} />
      </label>
    </SettingFormFrame>
  );
}

function TextsForm({ form, stored, heading, onSave }: FormProps<Extract<SettingForm, { kind: 'texts' }>>) {
  const { t } = useConsole();
  const [texts, setTexts] = useState(() => handoffTextsOf(stored));
  return (
    <SettingFormFrame heading={heading} onSubmit={() => onSave(handoffTextsValue(texts))}>
      {form.fields.map((field) => (
        <label class="setting-text">
          {t(field.label)}
          <textarea rows={3} maxLength={form.maxLength} value={texts[field.name]} onInput={(event) => setTexts({ ...texts, [field.name]: event.currentTarget.value })} />
        </label>
      ))}
    </SettingFormFrame>
  );
}

function TemplateForm({ form, stored, heading, onSave }: FormProps<Extract<SettingForm, { kind: 'template' }>>) {
  const { t, api } = useConsole();
  const { data: templates } = useRemote(() => api.templates(), []);
  const current = stored !== null && typeof stored === 'object' ? (stored as { name?: string; language?: string }) : {};
  const [choice, setChoice] = useState(current.name === undefined ? '' : `${current.name}|${current.language}`);
  // The notice fills the customer's name at most: a template taking more is not offered (the API would refuse it).
  const approved = (templates ?? []).filter((template) => template.sendableByPipeline);
  if (templates !== undefined && approved.length === 0) return <p>{t('config.template.none')}</p>;
  return (
    <SettingFormFrame
      heading={heading}
      onSubmit={() => {
        const [name, language] = choice.split('|');
        return onSave(choice === '' ? null : { name, language });
      }}
    >
      <label>
        {t(form.label)}
        <select value={choice} onChange={(event) => setChoice(event.currentTarget.value)}>
          <option value="">{t('config.template.deployed')}</option>
          {approved.map((template) => (
            <option value={`${template.name}|${template.language}`}>{`${template.name} (${template.language})`}</option>
          ))}
        </select>
      </label>
    </SettingFormFrame>
  );
}

/**
 * The admin's price table, a row per model (US dollars per million tokens, as the setting stores
 * them); the default prices still apply to the models it leaves out. Checked here with the API's
 * bounds before it is sent, and worded like the API's refusals.
 */
function PricesForm({ form, stored, heading, onSave, onRefusal }: FormProps<Extract<SettingForm, { kind: 'prices' }>> & { readonly onRefusal: (feedback: Feedback) => void }) {
  const { t } = useConsole();
  const [rows, setRows] = useState<PriceRow[]>(() => priceRowsOf(stored));
  const change = (index: number, edit: Partial<PriceRow>) => setRows(rows.map((row, at) => (at === index ? { ...row, ...edit } : row)));
  const submit = () => {
    const checked = priceTableValue(rows, form.limits);
    if ('problem' in checked) return onRefusal({ kind: 'error', text: describeProblem(t, checked.problem) ?? t('config.prices.invalid') });
    return onSave(rows.length === 0 ? null : checked.value);
  };
  return (
    <SettingFormFrame heading={heading} onSubmit={submit}>
      {rows.length === 0 && <p>{t('config.prices.none')}</p>}
      {rows.map((row, index) => {
        const which = row.model.trim() === '' ? String(index + 1) : row.model;
        return (
          <fieldset class="price-row">
            <legend class="visually-hidden">{t('config.prices.row', { model: which })}</legend>
            <label>
              {t('config.prices.model')}
              <input value={row.model} maxLength={form.limits.maxKeyLength} onInput={(event) => change(index, { model: event.currentTarget.value })} />
            </label>
            <label>
              {t('config.prices.input')}
              <input inputMode="decimal" value={row.input} onInput={(event) => change(index, { input: event.currentTarget.value })} />
            </label>
            <label>
              {t('config.prices.output')}
              <input inputMode="decimal" value={row.output} onInput={(event) => change(index, { output: event.currentTarget.value })} />
            </label>
            <button type="button" onClick={() => setRows(rows.filter((_, at) => at !== index))}>
              {t('config.prices.remove', { model: which })}
            </button>
          </fieldset>
        );
      })}
      <button type="button" disabled={rows.length >= form.limits.maxModels} onClick={() => setRows([...rows, { model: '', input: '', output: '' }])}>
        {t('config.prices.add')}
      </button>
    </SettingFormFrame>
  );
}

/**
 * Meta's rates as the admin read them on Meta's rate card, over the packaged table: a field per
 * market and category, empty for the packaged rate (shown as the placeholder), and the day read.
 */
function RatesForm({ stored, heading, onSave, onRefusal }: FormProps<Extract<SettingForm, { kind: 'rates' }>> & { readonly onRefusal: (feedback: Feedback) => void }) {
  const { t } = useConsole();
  const [fields, setFields] = useState(() => rateFieldsOf(stored));
  // A market the words do not name yet shows as the table names it.
  const marketName = (market: string) => {
    const key = `config.rates.market.${market}`;
    return isMessageKey(key) ? t(key) : market;
  };
  const submit = () => {
    const checked = metaRatesValue(fields);
    if ('problem' in checked) return onRefusal({ kind: 'error', text: describeProblem(t, checked.problem) ?? t('config.rates.invalid') });
    return onSave(checked.value);
  };
  return (
    <SettingFormFrame heading={heading} onSubmit={submit}>
      <label>
        {t('config.rates.checkedOn', { packaged: META_MESSAGE_RATES.checkedOn })}
        <input type="date" value={fields.checkedOn} onInput={(event) => setFields({ ...fields, checkedOn: event.currentTarget.value })} />
      </label>
      {marketsOf().map(({ market, rates }) => (
        <fieldset class="price-row">
          <legend>{marketName(market)}</legend>
          {META_RATE_CATEGORIES.map((category) => (
            <label>
              {t(`config.rates.category.${category}`)}
              <input
                inputMode="decimal"
                placeholder={String(rates[category])}
                value={fields.rates[market][category]}
                onInput={(event) => setFields({ ...fields, rates: { ...fields.rates, [market]: { ...fields.rates[market], [category]: event.currentTarget.value } } })}
              />
            </label>
          ))}
        </fieldset>
      ))}
    </SettingFormFrame>
  );
}
