import { Lazy } from 'aws-cdk-lib';
import type * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { AgentPipelineProps } from '../agent-pipeline-props';
import { AGENT_BACKEND_KINDS, KeyLayout, singleAgentsOf } from '../contract';
import { WhatsAppChannel } from '../whatsapp-channel';
import { resolveAlarmSettings } from './alarm-settings';
import { channelContext } from './channel-context';
import { buildCrmSyncWorker } from './crm-sync-worker';
import { buildEvaluator } from './evaluator-function';
import { PipelineFunctionFactory } from './function-factory';
import { buildIdleSweeper, resolveConversationIdleTimeout, resolveReengagement } from './idle-sweeper';
import { mediaBucket } from './media-bucket';
import { buildOperatorPlane, operatorPlaneOptions, resolveOperatorPlaneSettings } from './operator-plane';
import { bindAgentBackend, buildOrchestrator } from './orchestrator-function';
import { claimPhysicalNames } from './physical-name-claims';
import { PipelineGrants } from './pipeline-grants';
import { PipelineMetrics } from './pipeline-metrics';
import type { ObservedPipeline } from './observed-pipeline';
import { pipelinePlan } from './pipeline-plan';
import { resolvePipelineSettings } from './pipeline-settings';
import { pipelineTable } from './pipeline-table';
import { resolveProductionPlacement } from './production-placement';
import { resolveRetention } from './retention';
import { addPipelineOutputs } from './stack-outputs';
import { pipelineTurnQueue } from './turn-queue';
import type { InboundBinding, WhatsAppChannelBinding } from './whatsapp-channel-binding';

/** Everything an `AgentPipeline` creates, for the construct to expose and to watch. */
export interface AssembledPipeline extends Omit<ObservedPipeline, 'scope' | 'inboundDeadLetterQueue'>, Omit<InboundBinding, 'outputs'>, Pick<WhatsAppChannelBinding, 'whatsAppSecret' | 'eventTopic' | 'inboundDeadLetterQueue'> {
  readonly table: dynamodb.ITable;
  readonly queue: sqs.IQueue;
  readonly grants: PipelineGrants;
  readonly orchestratorAlias?: lambda.Alias;
  readonly webhookUrl?: string;
  readonly mediaBucket?: s3.IBucket;
  readonly operatorFunctionUrl?: lambda.FunctionUrl;
  readonly consoleDistribution?: cloudfront.Distribution;
  readonly consoleUrl?: string;
}

/**
 * Creates the pipeline in `scope`: every prop checked before anything is created; the table, the
 * queues, the bucket and the channel's resources; the agent backend and the CRM target bound to
 * their functions' roles; then the plan written once, and each function created with its share of
 * it, granted its role and watched.
 */
export function assemblePipeline(scope: Construct, props: AgentPipelineProps): AssembledPipeline {
  const path = scope.node.path;
  const settings = resolvePipelineSettings(path, props);
  const retention = resolveRetention(path, props);
  const operatorPlane = resolveOperatorPlaneSettings(path, props);
  const idleTimeout = resolveConversationIdleTimeout(path, props);
  const reengagement = resolveReengagement(path, props.messageTemplates?.reengagement, idleTimeout);
  const placement = resolveProductionPlacement(path, props);
  const alarmSettings = resolveAlarmSettings(scope, props);
  const { encryptionKey, existingTable, existingTurnQueue, existingDeadLetterQueue, deadLetterQueueProps } = props;
  claimPhysicalNames(scope, [
    ...(existingTable ? [] : [settings.physicalNames.table]),
    ...(existingTurnQueue ? [] : [settings.physicalNames.queue]),
    ...(existingTurnQueue || existingDeadLetterQueue ? [] : [deadLetterQueueProps?.queueName ?? settings.physicalNames.deadLetterQueue]),
  ].filter((name) => name !== undefined), settings.dashboard ? alarmSettings.dashboardName : undefined);
  const functions = new PipelineFunctionFactory(scope, settings, placement, encryptionKey);
  const table = pipelineTable(scope, settings, { existingTable, encryptionKey, backupPlan: props.backupPlan });
  const { queue, deadLetterQueue } = pipelineTurnQueue(scope, settings, { existingTurnQueue, existingDeadLetterQueue, deadLetterQueueProps, encryptionKey });
  const resources = { table, queue, deadLetterQueue, encryptionKey };
  const media = mediaBucket(scope, settings, props);
  const channel = (props.channel ?? WhatsAppChannel.cloudApi())._bind(scope, channelContext({ settings, functions, encryptionKey }));
  const agent = bindAgentBackend(scope, settings, functions, props.agentBackend);
  const crmSync = props.crmSync?.bind(scope, functions.createRole('CrmSync'))._crmSync;

  // The console's URL is the operator function's, which is created from the plan it is written in;
  // the evaluator's name is the evaluator's, created from the plan too.
  let consoleUrl: string | undefined;
  let evaluatorFunction: lambda.Function | undefined;
  const plan = pipelinePlan({
    ...resources,
    settings,
    retention,
    channel: channel.channel,
    agent: agent._agent,
    media: media?.media,
    operatorPlane: operatorPlane && {
      ...operatorPlaneOptions(operatorPlane),
      consoleUrl: Lazy.string({ produce: () => consoleUrl }),
      evaluatorFunctionName: Lazy.string({ produce: () => evaluatorFunction?.functionName }),
    },
    idleTimeout,
    reengagement,
    crmSync,
  });
  const grants = new PipelineGrants({
    ...resources,
    channel,
    mediaBucket: media?.bucket,
    transcribesVoiceNotes: media?.transcribesVoiceNotes,
    features: {
      operatorPlane: operatorPlane !== undefined,
      crmSync: crmSync !== undefined,
      keyLayoutMigration: settings.keyLayout === KeyLayout.MIGRATING,
      pipelineBudget: settings.pipelineBudget !== undefined,
      reengagement: reengagement !== undefined,
      media: media !== undefined,
    },
  });
  const { outputs, ...inbound } = channel.createInbound(plan.webhook ?? plan['eum-inbound']!);
  grants.grantInbound(inbound.webhookFunction);
  const { orchestratorFunction, orchestratorAlias } = buildOrchestrator({ settings, functions, queue, told: plan.orchestrator! });
  grants.grantTurns(orchestratorFunction);

  const deploymentName = settings.names.table;
  const plane =
    operatorPlane &&
    buildOperatorPlane({ scope, settings: operatorPlane, channel: channel.channel, functions, told: { operator: plan.operator!, handoffSweeper: plan['handoff-sweeper']! }, deploymentName });
  consoleUrl = plane?.consoleUrl;
  if (plane) {
    grants.grantOperatorPlane(plane.operatorFunction);
    grants.grantSweeper(plane.handoffSweeperFunction);
    evaluatorFunction = buildEvaluator({ scope, settings, functions, agentBackend: props.agentBackend, told: plan.evaluator!, deploymentName, invokedBy: plane.operatorFunction });
    grants.grantEvaluator(evaluatorFunction);
  }
  const idleSweeperFunction = buildIdleSweeper({ scope, told: plan['idle-sweeper']!, functions, deploymentName }).sweeperFunction;
  grants.grantIdleSweeper(idleSweeperFunction);
  const crmSyncFunction = crmSync && buildCrmSyncWorker({ scope, told: plan['crm-sync']!, functions, deploymentName }).workerFunction;
  if (crmSyncFunction) grants.grantCrmWorker(crmSyncFunction);
  addPipelineOutputs(scope, {
    tableName: table.tableName,
    turnQueueUrl: queue.queueUrl,
    deadLetterQueueUrl: deadLetterQueue.queueUrl,
    ...outputs,
    consoleUrl,
    evaluatorFunctionName: evaluatorFunction?.functionName,
    ...media?.outputs,
  });
  return {
    ...inbound,
    table,
    queue,
    deadLetterQueue,
    grants,
    settings,
    metrics: new PipelineMetrics(settings.serviceName, settings.names.table, table, queue),
    orchestratorFunction,
    orchestratorAlias,
    webhookUrl: outputs.webhookUrl,
    whatsAppSecret: channel.whatsAppSecret,
    eventTopic: channel.eventTopic,
    inboundDeadLetterQueue: channel.inboundDeadLetterQueue,
    mediaBucket: media?.bucket,
    operatorFunction: plane?.operatorFunction,
    operatorFunctionUrl: plane?.operatorFunctionUrl,
    consoleDistribution: plane?.consoleDistribution,
    consoleUrl,
    handoffSweeperFunction: plane?.handoffSweeperFunction,
    evaluatorFunction,
    idleSweeperFunction,
    crmSyncFunction,
    bedrockModelId: agent.bedrockModelId,
    downloadsMedia: media !== undefined,
    callsConsumerTools: singleAgentsOf(agent._agent).some((single) => single.backend === AGENT_BACKEND_KINDS.bedrock && (single.tools?.length ?? 0) > 0),
    alarmSettings,
  };
}
