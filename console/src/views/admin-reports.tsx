import { useEffect, useMemo, useState } from 'preact/hooks';
import type { AgentUsage, ModelUsage, UsageReport } from '../../../lib/contract/operator-api';
import { estimatedCost, MODEL_PRICES_CONFIG_KEY, modelPricesFrom, type ModelPrices } from '../../../lib/contract/model-prices';
import { AdminApi } from '../admin-api';
import { useConsole } from '../context';
import { LANGUAGES, type Translate } from '../i18n';
import { LoadError, Section, useRemote } from './common';

/** What the agent answered and the model tokens it used, per UTC day of a period (the last week at first). */
export function ReportsScreen() {
  const { t, api } = useConsole();
  const admin = useMemo(() => new AdminApi(api), [api]);
  const [period, setPeriod] = useState<{ readonly from?: string; readonly to?: string }>({});
  const { data, error } = useRemote(async () => {
    const [report, prices] = await Promise.all([admin.usageReport(period), admin.config(MODEL_PRICES_CONFIG_KEY)]);
    return { ...report, prices: modelPricesFrom(prices.value) };
  }, [period]);
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  // The fields show the period the report covers: the server's default week until one is chosen.
  useEffect(() => {
    if (data === undefined) return;
    setFrom(data.from);
    setTo(data.to);
  }, [data]);

  return (
    <Section heading={t('reports.heading')}>
      <p>{t('reports.help')}</p>
      <form
        class="actions"
        onSubmit={(event) => {
          event.preventDefault();
          setPeriod({ from, to });
        }}
      >
        <label>
          {t('reports.from')}
          <input type="date" value={from} required onInput={(event) => setFrom(event.currentTarget.value)} />
        </label>
        <label>
          {t('reports.to')}
          <input type="date" value={to} required onInput={(event) => setTo(event.currentTarget.value)} />
        </label>
        <button type="submit">{t('reports.show')}</button>
      </form>
      <LoadError error={error} />
      {data === undefined ? error === undefined && <p role="status">{t('loading')}</p> : <UsageTable report={data} prices={data.prices} />}
    </Section>
  );
}

function UsageTable({ report, prices }: { readonly report: UsageReport; readonly prices: ModelPrices }) {
  const { t, language } = useConsole();
  const count = useMemo(() => new Intl.NumberFormat(LANGUAGES[language].formatTag).format, [language]);
  const dollars = useMemo(() => new Intl.NumberFormat(LANGUAGES[language].formatTag, { style: 'currency', currency: 'USD', maximumFractionDigits: 4 }).format, [language]);
  const unpriced = estimatedCost(report.total, prices).unpricedReplies;
  const row = (heading: string, usage: AgentUsage) => (
    <tr>
      <th scope="row">{usage.complete ? heading : `${heading} ${t('reports.partial')}`}</th>
      <td class="number">{count(usage.replies)}</td>
      <td class="number">{count(usage.inputTokens)}</td>
      <td class="number">{count(usage.outputTokens)}</td>
      <td class="number">{`≈ ${dollars(estimatedCost(usage, prices).usd)}`}</td>
      <td>{usage.models.map((model) => <div>{modelLine(t, count, model)}</div>)}</td>
    </tr>
  );
  return (
    <>
      <div class="table-scroll" tabIndex={0} role="region" aria-label={t('reports.table')}>
        <table>
          <caption class="visually-hidden">{t('reports.table')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('reports.day')}</th>
              <th scope="col">{t('reports.replies')}</th>
              <th scope="col">{t('reports.inputTokens')}</th>
              <th scope="col">{t('reports.outputTokens')}</th>
              <th scope="col">{t('reports.cost')}</th>
              <th scope="col">{t('reports.models')}</th>
            </tr>
          </thead>
          <tbody>{report.days.map((day) => row(day.day, day))}</tbody>
          <tfoot>{row(t('reports.total'), report.total)}</tfoot>
        </table>
      </div>
      {!report.total.complete && <p>{t('reports.partialHint')}</p>}
      <p class="hint">{t('reports.costHint')}</p>
      {unpriced > 0 && <p class="hint">{t('reports.unpriced', { replies: count(unpriced) })}</p>}
    </>
  );
}

function modelLine(t: Translate, count: (value: number) => string, usage: ModelUsage): string {
  return t('reports.model', { model: usage.model ?? t('reports.unknownModel'), replies: count(usage.replies), input: count(usage.inputTokens), output: count(usage.outputTokens) });
}
