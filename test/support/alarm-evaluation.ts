import type { Template } from 'aws-cdk-lib/assertions';

/** One series as CloudWatch keys it: namespace, metric name and its dimensions. */
export interface MetricSeries {
  readonly namespace: string;
  readonly metricName: string;
  readonly dimensions: Readonly<Record<string, string>>;
  /** The sum of the values emitted in the period evaluated. */
  readonly sum: number;
}

interface MetricDataQuery {
  readonly Id: string;
  readonly Expression?: string;
  readonly ReturnData?: boolean;
  readonly MetricStat?: {
    readonly Metric: { readonly Namespace: string; readonly MetricName: string; readonly Dimensions?: { Name: string; Value: unknown }[] };
    readonly Period: number;
    readonly Stat: string;
  };
}

/**
 * The state a synthesized metric-math alarm takes for one period in which `series` were emitted,
 * as CloudWatch decides it: each query's series read by namespace, name and dimensions (a query
 * naming a series nobody emitted has no datapoint), the expression computed, compared with the
 * threshold. Only what the pipeline's cost alarm uses is understood — `Sum` statistics, a one-period
 * evaluation, an expression adding `FILL(id, n)` terms — and anything else throws, so a changed alarm
 * cannot pass for one this reads right.
 */
export function alarmStateFor(template: Template, alarmName: string, series: readonly MetricSeries[]): 'ALARM' | 'OK' {
  const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm', { Properties: { AlarmName: alarmName } }));
  if (alarms.length !== 1) throw new Error(`Expected one alarm named ${alarmName}, found ${alarms.length}`);
  const alarm = alarms[0].Properties as { Metrics: MetricDataQuery[]; Threshold: number; ComparisonOperator: string; EvaluationPeriods: number };
  if (alarm.ComparisonOperator !== 'GreaterThanThreshold' || alarm.EvaluationPeriods !== 1) throw new Error(`Unsupported alarm shape: ${alarm.ComparisonOperator}, ${alarm.EvaluationPeriods} periods`);
  const values = new Map<string, number | undefined>();
  for (const query of alarm.Metrics.filter((candidate) => candidate.MetricStat !== undefined)) {
    const { Metric, Stat } = query.MetricStat!;
    if (Stat !== 'Sum') throw new Error(`Unsupported statistic ${Stat} in query ${query.Id}`);
    const dimensions = Object.fromEntries((Metric.Dimensions ?? []).map(({ Name, Value }) => [Name, literal(Value, `dimension ${Name} of ${query.Id}`)]));
    const matching = series.filter(
      (candidate) => candidate.namespace === Metric.Namespace && candidate.metricName === Metric.MetricName && sameDimensions(candidate.dimensions, dimensions),
    );
    values.set(query.Id, matching.length === 0 ? undefined : matching.reduce((sum, candidate) => sum + candidate.sum, 0));
  }
  const returned = alarm.Metrics.filter((query) => query.ReturnData !== false);
  if (returned.length !== 1 || returned[0].Expression === undefined) throw new Error('Expected one returned math expression');
  const value = sumOfFilledTerms(returned[0].Expression, values);
  return value !== undefined && value > alarm.Threshold ? 'ALARM' : 'OK';
}

/** The periods of every metric an alarm reads, in seconds. */
export function alarmPeriods(template: Template, alarmName: string): number[] {
  const [alarm] = Object.values(template.findResources('AWS::CloudWatch::Alarm', { Properties: { AlarmName: alarmName } }));
  return (alarm.Properties.Metrics as MetricDataQuery[]).flatMap((query) => (query.MetricStat === undefined ? [] : [query.MetricStat.Period]));
}

function sumOfFilledTerms(expression: string, values: ReadonlyMap<string, number | undefined>): number | undefined {
  let total = 0;
  for (const term of expression.split('+').map((part) => part.trim())) {
    const fill = /^FILL\((\w+),\s*(\d+(?:\.\d+)?)\)$/.exec(term);
    if (fill === null || !values.has(fill[1])) throw new Error(`Unsupported term '${term}' in '${expression}'`);
    total += values.get(fill[1]) ?? Number(fill[2]);
  }
  return total;
}

function sameDimensions(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}

function literal(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new Error(`The alarm's ${what} is not a literal (${JSON.stringify(value)}): it cannot be matched with what a function emits`);
  return value;
}
