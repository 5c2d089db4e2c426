import { type Duration, Token } from 'aws-cdk-lib';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { IConstruct } from 'constructs';
import type { AgentPipelineProps } from '../agent-pipeline-props';
import { AlarmSeverity, type AlarmTuning } from '../pipeline-alarms';
import { accountUniqueName, stackQualifiedName } from './account-unique-names';
import type { AlarmSettings, AlarmTuningSettings } from './observed-pipeline';
import { type AlarmDefinition, PIPELINE_ALARMS, type PipelineAlarmId } from './pipeline-alarm-definitions';
import type { PipelineAlarms } from './pipeline-observability';
import { ALARM_PERIOD, checkInteger, definedFields } from './pipeline-settings';

/** CloudWatch allows 255 characters in an alarm name. */
const ALARM_NAME_MAX_LENGTH = 255;
const LONGEST_ALARM_ID = Math.max(...Object.keys(PIPELINE_ALARMS).map((id) => id.length));
/** The longest `alarms.alarmNamePrefix`: the longest alarm id follows it after a '-'. */
export const ALARM_NAME_PREFIX_MAX_LENGTH = ALARM_NAME_MAX_LENGTH - LONGEST_ALARM_ID - 1;
const DASHBOARD_NAME_MAX_LENGTH = 255;
/** CloudWatch evaluates at most a day of periods shorter than an hour, and a week of longer ones. */
function maxEvaluationPeriods(period: Duration): number {
  const seconds = period.toSeconds();
  return Math.floor((seconds < 3_600 ? 86_400 : 604_800) / seconds);
}
const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;
const DASHBOARD_NAME = /^[A-Za-z0-9_-]{1,255}$/;

/** Applies the defaults and throws on any alarm option that could not deploy or would never fire. */
export function resolveAlarmSettings(pipeline: IConstruct, props: AgentPipelineProps): AlarmSettings {
  const fail = (problem: string): never => {
    throw new Error(`AgentPipeline at '${pipeline.node.path}': ${problem}`);
  };
  const options = definedFields(props.alarms ?? {});

  const namePrefix = options.alarmNamePrefix ?? stackQualifiedName(pipeline);
  if (!Token.isUnresolved(namePrefix)) {
    if (!PRINTABLE_ASCII.test(namePrefix) || namePrefix.trim() !== namePrefix || namePrefix.length > ALARM_NAME_PREFIX_MAX_LENGTH) {
      fail(
        `alarms.alarmNamePrefix '${namePrefix}' cannot start CloudWatch alarm names: use 1 to ${ALARM_NAME_PREFIX_MAX_LENGTH} printable ASCII characters without leading or trailing spaces (e.g. 'orders-prod').`,
      );
    }
  }

  if (props.alarmTopic && options.criticalTopic && options.warningTopic) {
    fail('alarmTopic is never notified when alarms.criticalTopic and alarms.warningTopic are both set: leave alarmTopic out, or drop the severity it should take.');
  }
  const action = (topic: sns.ITopic | undefined) => topic && new cloudwatchActions.SnsAction(topic);
  const actions = {
    [AlarmSeverity.CRITICAL]: action(options.criticalTopic ?? props.alarmTopic),
    [AlarmSeverity.WARNING]: action(options.warningTopic ?? props.alarmTopic),
  };

  const overrides = definedFields(options.overrides ?? {});
  const alarmIds = Object.keys(PIPELINE_ALARMS) as PipelineAlarmId[];
  const unknown = Object.keys(overrides).filter((id) => !alarmIds.includes(id as PipelineAlarmId));
  if (unknown.length > 0) fail(`alarms.overrides names no alarm ${unknown.map((id) => `'${id}'`).join(', ')}: the alarm ids are ${alarmIds.join(', ')}.`);
  const tunings = Object.fromEntries(
    alarmIds.map((id) => [id, resolveTuning(fail, id, definedFields(overrides[id] ?? {}))]),
  ) as AlarmSettings['tunings'];

  const dashboardName = props.dashboardName;
  if (dashboardName !== undefined) {
    if (props.dashboard === false) fail('dashboardName names a dashboard that dashboard: false turns off: leave dashboardName out, or the dashboard on.');
    if (!Token.isUnresolved(dashboardName) && !DASHBOARD_NAME.test(dashboardName)) {
      fail(`dashboardName '${dashboardName}' is not a CloudWatch dashboard name: use 1 to 255 letters, digits, '-' and '_'.`);
    }
  }
  // One dashboard per pipeline, whatever the resources are named: the alarms' prefix is unique per account and
  // Region, and dashboards are named once per account, so the default adds the Region.
  const dashboardBase = Token.isUnresolved(namePrefix) ? namePrefix : namePrefix.replace(/[^A-Za-z0-9_-]/g, '-');
  const overridden = Object.keys(overrides) as PipelineAlarmId[];
  const { dailyCostUsd } = options;
  if (dailyCostUsd !== undefined && !Token.isUnresolved(dailyCostUsd) && !(Number.isFinite(dailyCostUsd) && dailyCostUsd > 0)) {
    fail(`alarms.dailyCostUsd must be a number of US dollars above 0 (the alarm fires when a day's estimated cost exceeds it); got ${dailyCostUsd}. Leave it out for no cost alarm.`);
  }
  return {
    namePrefix,
    actions,
    tunings,
    overridden,
    dashboardName: dashboardName ?? accountUniqueName(pipeline, dashboardBase, DASHBOARD_NAME_MAX_LENGTH),
    ...(dailyCostUsd !== undefined && { dailyCostUsd }),
  };
}

/**
 * Throws when `alarms.overrides` tunes an alarm the pipeline does not create (one that watches a
 * feature it does not have), which would otherwise be ignored without a word.
 */
export function refuseOverridesOfAbsentAlarms(pipeline: IConstruct, overridden: readonly PipelineAlarmId[], alarms: PipelineAlarms): void {
  const absent = overridden.filter((id) => alarms[id] === undefined);
  if (absent.length === 0) return;
  throw new Error(
    `AgentPipeline at '${pipeline.node.path}': alarms.overrides tunes ${absent.map((id) => `'${id}'`).join(', ')}, which this pipeline does not create ` +
      `(each alarm's PipelineAlarmOverrides field says what it needs): remove ${absent.length > 1 ? 'those overrides' : 'the override'}, or turn on what the alarm watches. ` +
      `The alarms it creates are ${(Object.keys(PIPELINE_ALARMS) as PipelineAlarmId[]).filter((id) => alarms[id] !== undefined).join(', ')}.`,
  );
}

function resolveTuning(fail: (problem: string) => never, id: PipelineAlarmId, tuning: Partial<AlarmTuning>): AlarmTuningSettings {
  const label = `alarms.overrides.${id}`;
  const defaults: AlarmDefinition = PIPELINE_ALARMS[id];
  const { threshold, severity = defaults.severity, enabled = true } = tuning;
  const evaluationPeriods = tuning.evaluationPeriods ?? Math.max(defaults.evaluationPeriods, tuning.datapointsToAlarm ?? 0);
  const datapointsToAlarm = tuning.datapointsToAlarm ?? Math.min(defaults.datapointsToAlarm, evaluationPeriods);
  const maxPeriods = maxEvaluationPeriods(defaults.period ?? ALARM_PERIOD);
  checkInteger(fail, `${label}.evaluationPeriods`, evaluationPeriods, 1, maxPeriods);
  checkInteger(fail, `${label}.datapointsToAlarm`, datapointsToAlarm, 1, maxPeriods);
  if (!Token.isUnresolved(evaluationPeriods) && !Token.isUnresolved(datapointsToAlarm) && datapointsToAlarm > evaluationPeriods) {
    fail(`${label}.datapointsToAlarm (${datapointsToAlarm}) is more than its evaluationPeriods (${evaluationPeriods}): the alarm could never fire. Lower datapointsToAlarm or raise evaluationPeriods.`);
  }
  if (threshold !== undefined && !Token.isUnresolved(threshold) && !(Number.isFinite(threshold) && threshold >= 0)) {
    fail(`${label}.threshold must be a number of 0 or more (the alarm fires above it); got ${threshold}.`);
  }
  if (!Object.values(AlarmSeverity).includes(severity)) fail(`${label}.severity '${severity}' is not one of ${Object.values(AlarmSeverity).join(', ')}: use AlarmSeverity.CRITICAL or AlarmSeverity.WARNING.`);
  return { threshold, evaluationPeriods, datapointsToAlarm, enabled, severity };
}
