import { Duration, Token } from 'aws-cdk-lib';
import type { AgentPipelineProps } from '../agent-pipeline-props';
import { type DeploymentOptions, RETENTION_DEFAULTS } from '../contract';

const MIN_RETENTION = Duration.days(1);

/**
 * How long closed conversations and demands live, as every function is told (they set the TTL and
 * check it on read). Validated here so a wrong value fails the synth, not a turn.
 */
export function resolveRetention(path: string, props: Pick<AgentPipelineProps, 'conversationRetention' | 'demandRetention'>): NonNullable<DeploymentOptions['retention']> {
  const conversation = props.conversationRetention ?? Duration.days(RETENTION_DEFAULTS.conversationDays);
  const demand = props.demandRetention ?? Duration.days(RETENTION_DEFAULTS.demandDays);
  for (const [name, value] of [['conversationRetention', conversation], ['demandRetention', demand]] as const) {
    if (!Token.isUnresolved(value.toSeconds()) && value.toSeconds() < MIN_RETENTION.toSeconds()) {
      throw new Error(`AgentPipeline at '${path}': ${name} must be at least 1 day (Duration.days(1)); got ${value.toSeconds()} s.`);
    }
  }
  return { conversationSeconds: conversation.toSeconds(), demandSeconds: demand.toSeconds() };
}
