import { useId } from 'preact/hooks';
import type { AgentUsage } from '../../../lib/contract/operator-api';
import { useConsole } from '../context';

/** The parts of a day's cost, stacked in this order from the axis up. */
const PARTS = ['model', 'meta', 'aws'] as const;
type CostPart = (typeof PARTS)[number];

/** One day's estimated cost, in its parts (US$). */
export interface DailyCost {
  readonly day: string;
  readonly usd: Readonly<Record<CostPart, number>>;
}

const totalOf = (day: DailyCost) => PARTS.reduce((sum, part) => sum + day.usd[part], 0);

const CHART = { width: 640, height: 180, top: 12, bottom: 22, left: 8, right: 8 } as const;

/** A day's parts, for the chart: the model's tokens at `modelCostOf`, Meta's fees and AWS as the report estimated them. */
export function dailyCostsOf(days: readonly (AgentUsage & { readonly day: string })[], modelCostOf: (usage: AgentUsage) => number): DailyCost[] {
  return days.map((usage) => ({ day: usage.day, usd: { model: modelCostOf(usage), meta: usage.metaFees.usd, aws: usage.aws.usd } }));
}

/**
 * The estimated cost per UTC day as stacked bars (the model's tokens, Meta's fees, AWS), read at a
 * glance; the table beside it carries every figure. Screen readers get the period's parts and its
 * dearest day from the chart's title and description instead of one shape per bar.
 */
export function CostChart({ days, dollars }: { readonly days: readonly DailyCost[]; readonly dollars: (value: number) => string }) {
  const { t } = useConsole();
  const titleId = useId();
  const descriptionId = useId();
  const totals = Object.fromEntries(PARTS.map((part) => [part, days.reduce((sum, day) => sum + day.usd[part], 0)])) as Record<CostPart, number>;
  const dearest = days.reduce<DailyCost | undefined>((top, day) => (top === undefined || totalOf(day) > totalOf(top) ? day : top), undefined);
  const highest = Math.max(...days.map(totalOf), 0);
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
            aws: dollars(totals.aws),
            day: dearest?.day ?? '—',
            dearest: dollars(dearest === undefined ? 0 : totalOf(dearest)),
          })}
        </desc>
        <line class="cost-axis" x1={CHART.left} x2={CHART.width - CHART.right} y1={CHART.top + plotHeight} y2={CHART.top + plotHeight} />
        {days.map((day, index) => {
          const x = CHART.left + index * slot + (slot - barWidth) / 2;
          let top = CHART.top + plotHeight;
          return (
            <g data-day={day.day}>
              {PARTS.map((part) => {
                const height = heightOf(day.usd[part]);
                top -= height;
                return <rect class={`cost-${part}`} x={x} y={top} width={barWidth} height={height} />;
              })}
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
        {PARTS.map((part) => (
          <span class={`cost-key cost-key-${part}`}>{t(`reports.chart.${part}`, { usd: dollars(totals[part]) })}</span>
        ))}
      </figcaption>
    </figure>
  );
}
