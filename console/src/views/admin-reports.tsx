import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { AgentUsage, HandoffFigures, HandoffReport, ModelUsage, UsageReport } from '../../../lib/contract/operator-api';
import { estimatedCost, MODEL_PRICES_CONFIG_KEY, modelPricesFrom, type ModelPrices } from '../../../lib/contract/model-prices';
import { AdminApi } from '../admin-api';
import { useConsole } from '../context';
import { formatDuration, LANGUAGES, type Translate } from '../i18n';
import { durationOf } from '../view-model';
import { LoadError, Section, useDollars, useRemote } from './common';
import { CostChart, dailyCostsOf } from './cost-chart';

/** The periods offered in one choice, in days up to today. */
const RECENT_PERIODS = [7, 14, 30] as const;
const DAY_MS = 86_400_000;

/** The UTC days of the last `days` days, today included. */
function recentPeriod(days: number, now = new Date()): { readonly from: string; readonly to: string } {
  const utcDayOf = (at: number) => new Date(at).toISOString().slice(0, 10);
  return { from: utcDayOf(now.getTime() - (days - 1) * DAY_MS), to: utcDayOf(now.getTime()) };
}

/**
 * Per UTC day of a period (the last week at first): what the agent answered and the model tokens
 * it used, and how people answered the conversations handed to them.
 */
export function ReportsScreen() {
  const { t, api } = useConsole();
  const admin = useMemo(() => new AdminApi(api), [api]);
  const [period, setPeriod] = useState<{ readonly from?: string; readonly to?: string }>({});
  // The server's default period is the last week; dates chosen by hand leave the choice empty.
  const [recent, setRecent] = useState('7');
  const { data, error } = useRemote(async () => {
    const [report, handoffs, prices] = await Promise.all([admin.usageReport(period), admin.handoffReport(period), admin.config(MODEL_PRICES_CONFIG_KEY)]);
    return { ...report, handoffs, prices: modelPricesFrom(prices.value) };
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
      <label>
        {t('reports.recent')}
        <select
          value={recent}
          onChange={(event) => {
            const days = Number(event.currentTarget.value);
            setRecent(event.currentTarget.value);
            if (days > 0) setPeriod(recentPeriod(days));
          }}
        >
          <option value="">{t('reports.recentChosen')}</option>
          {RECENT_PERIODS.map((days) => (
            <option value={String(days)}>{t('reports.recentDays', { days })}</option>
          ))}
        </select>
      </label>
      <form
        class="actions"
        onSubmit={(event) => {
          event.preventDefault();
          setRecent('');
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
      {data === undefined ? (
        error === undefined && <p role="status">{t('loading')}</p>
      ) : (
        <>
          <UsageTable report={data} prices={data.prices} />
          <HandoffTable report={data.handoffs} />
        </>
      )}
    </Section>
  );
}

/**
 * A report as a table: a row per day, oldest first, then the period's total; a day read only in
 * part says so. `cells` are a row's figures after its day.
 */
function DayTable<Figures extends { readonly complete: boolean }>(props: {
  readonly label: string;
  readonly columns: readonly string[];
  readonly days: readonly (Figures & { readonly day: string })[];
  readonly total: Figures;
  readonly cells: (figures: Figures) => ComponentChildren;
}) {
  const { t } = useConsole();
  const row = (heading: string, figures: Figures) => (
    <tr>
      <th scope="row">{figures.complete ? heading : `${heading} ${t('reports.partial')}`}</th>
      {props.cells(figures)}
    </tr>
  );
  return (
    <div class="table-scroll" tabIndex={0} role="region" aria-label={props.label}>
      <table>
        <caption class="visually-hidden">{props.label}</caption>
        <thead>
          <tr>
            {[t('reports.day'), ...props.columns].map((column) => (
              <th scope="col">{column}</th>
            ))}
          </tr>
        </thead>
        <tbody>{props.days.map((day) => row(day.day, day))}</tbody>
        <tfoot>{row(t('reports.total'), props.total)}</tfoot>
      </table>
    </div>
  );
}

function useCount(): (value: number) => string {
  const { language } = useConsole();
  return useMemo(() => new Intl.NumberFormat(LANGUAGES[language].formatTag).format, [language]);
}

function UsageTable({ report, prices }: { readonly report: UsageReport; readonly prices: ModelPrices }) {
  const { t } = useConsole();
  const count = useCount();
  const dollars = useDollars();
  const unpriced = estimatedCost(report.total, prices).unpricedReplies;
  const modelCostOf = (usage: AgentUsage) => estimatedCost(usage, prices).usd;
  return (
    <>
      <CostChart days={dailyCostsOf(report.days, modelCostOf)} dollars={dollars} />
      <DayTable
        label={t('reports.table')}
        columns={[t('reports.replies'), t('reports.inputTokens'), t('reports.outputTokens'), t('reports.cost'), t('reports.metaFees'), t('reports.aws'), t('reports.models')]}
        days={report.days}
        total={report.total}
        cells={(usage: AgentUsage) => (
          <>
            <td class="number">{count(usage.replies)}</td>
            <td class="number">{count(usage.inputTokens)}</td>
            <td class="number">{count(usage.outputTokens)}</td>
            <td class="number">{`≈ ${dollars(estimatedCost(usage, prices).usd)}`}</td>
            <td class="number">{`≈ ${dollars(usage.metaFees.usd)}`}</td>
            <td class="number">{`≈ ${dollars(usage.aws.usd)}`}</td>
            <td>{usage.models.map((model) => <div>{modelLine(t, count, model)}</div>)}</td>
          </>
        )}
      />
      {!report.total.complete && <p>{t('reports.partialHint')}</p>}
      <p class="hint">{t('reports.costHint')}</p>
      <p class="hint">{t('reports.metaRates', { date: report.metaRatesCheckedOn })}</p>
      {(report.evaluation?.tokens ?? 0) > 0 && <p class="hint">{t('reports.evaluationTokens', { tokens: count(report.evaluation!.tokens) })}</p>}
      {unpriced > 0 && <p class="hint">{t('reports.unpriced', { replies: count(unpriced) })}</p>}
      {report.total.metaFees.unpriced > 0 && <p class="hint">{t('reports.metaUnpriced', { messages: count(report.total.metaFees.unpriced) })}</p>}
    </>
  );
}

function modelLine(t: Translate, count: (value: number) => string, usage: ModelUsage): string {
  return t('reports.model', { model: usage.model ?? t('reports.unknownModel'), replies: count(usage.replies), input: count(usage.inputTokens), output: count(usage.outputTokens) });
}

/** Per day: the handoffs, how many a person claimed and how many never were, and the medians of the customer's wait. */
function HandoffTable({ report }: { readonly report: HandoffReport }) {
  const { t } = useConsole();
  const count = useCount();
  const wait = (seconds: number | undefined) => (seconds === undefined ? '—' : seconds < 60 ? t('reports.seconds', { seconds: Math.round(seconds) }) : formatDuration(t, durationOf(seconds * 1000)));
  return (
    <>
      <h3>{t('reports.handoffs.heading')}</h3>
      <DayTable
        label={t('reports.handoffs.table')}
        columns={[t('reports.handoffs.count'), t('reports.handoffs.claimed'), t('reports.handoffs.waiting'), t('reports.handoffs.toClaim'), t('reports.handoffs.toFirstReply')]}
        days={report.days}
        total={report.total}
        cells={(figures: HandoffFigures) => (
          <>
            <td class="number">{count(figures.handoffs)}</td>
            <td class="number">{count(figures.claimed)}</td>
            <td class="number">{count(figures.waiting)}</td>
            <td class="number">{wait(figures.medianSecondsToClaim)}</td>
            <td class="number">{wait(figures.medianSecondsToFirstReply)}</td>
          </>
        )}
      />
      <p class="hint">{t('reports.handoffs.hint')}</p>
    </>
  );
}
