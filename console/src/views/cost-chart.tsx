import { useId } from 'preact/hooks';
import type { AgentUsage } from '../../../lib/contract/operator-api';
import { useConsole } from '../context';

/** One day's estimated cost, in its two parts. */
export interface DailyCost {
  readonly day: string;
  readonly modelUsd: number;
  readonly metaUsd: number;
}

const CHART = { width: 640, height: 180, top: 12, bottom: 22, left: 8, right: 8 } as const;

/** A day's parts, for the chart: the model's tokens at `modelCostOf`, Meta's fees as the report priced them. */
export function dailyCostsOf(days: readonly (AgentUsage & { readonly day: string })[], modelCostOf: (usage: AgentUsage) => number): DailyCost[] {
  return days.map((usage) => ({ day: usage.day, modelUsd: modelCostOf(usage), metaUsd: usage.metaFees.usd }));
}

/**
 * The estimated cost per UTC day as stacked bars (the model's tokens under Meta's fees), read at a
 * glance; the table beside it carries every figure. Screen readers get the period's parts and its
 * dearest day from the chart's title and description instead of one shape per bar.
 */
export function CostChart({ days, dollars }: { readonly days: readonly DailyCost[]; readonly dollars: (value: number) => string }) {
  const { t } = useConsole();
  const titleId = useId();
  const descriptionId = useId();
  const totals = days.reduce((sum, day) => ({ model: sum.model + day.modelUsd, meta: sum.meta + day.metaUsd }), { model: 0, meta: 0 });
  const dearest = days.reduce<DailyCost | undefined>((top, day) => (top === undefined || day.modelUsd + day.metaUsd > top.modelUsd + top.metaUsd ? day : top), undefined);
  const highest = Math.max(...days.map((day) => day.modelUsd + day.metaUsd), 0);
  const plotHeight = CHART.height - CHART.top - CHART.bottom;
  const slot = (CHART.width - CHART.left - CHART.right) / Math.max(days.length, 1);
  const barWidth = Math.max(2, slot * 0.7);
  const heightOf = (usd: number) => (highest === 0 ? 0 : (usd / highest) * plotHeight);
  const labelEvery = Math.ceil(days.length / 7);
  return (
    <figure class="cost-chart">
      <svg viewBox={`0 0 ${CHART.width} ${CHART.height}`} role="img" aria-labelledby={`${titleId} ${descriptionId}`} preserveAspectRatio="none">
        <title id={titleId}>{t('reports.chart.title')}</title>
        <desc id={descriptionId}>
          {t('reports.chart.description', {
            model: dollars(totals.model),
            meta: dollars(totals.meta),
            day: dearest?.day ?? '—',
            dearest: dollars(dearest === undefined ? 0 : dearest.modelUsd + dearest.metaUsd),
          })}
        </desc>
        <line class="cost-axis" x1={CHART.left} x2={CHART.width - CHART.right} y1={CHART.top + plotHeight} y2={CHART.top + plotHeight} />
        {days.map((day, index) => {
          const x = CHART.left + index * slot + (slot - barWidth) / 2;
          const model = heightOf(day.modelUsd);
          const meta = heightOf(day.metaUsd);
          const base = CHART.top + plotHeight;
          return (
            <g data-day={day.day}>
              <rect class="cost-model" x={x} y={base - model} width={barWidth} height={model} />
              <rect class="cost-meta" x={x} y={base - model - meta} width={barWidth} height={meta} />
              {index % labelEvery === 0 && (
                <text class="cost-label" x={x + barWidth / 2} y={CHART.height - 6} text-anchor="middle">
                  {day.day.slice(5)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption>
        <span class="cost-key cost-key-model">{t('reports.chart.model', { usd: dollars(totals.model) })}</span>
        <span class="cost-key cost-key-meta">{t('reports.chart.meta', { usd: dollars(totals.meta) })}</span>
      </figcaption>
    </figure>
  );
}
