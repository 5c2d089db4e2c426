import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { CUSTOM_METRICS } from '../../lib/contract';
import { adminAudit, conversationRepositories, customerDataRepository, handoffReport, messageTemplates, sessionRepository } from '../core/adapters/dynamodb/dynamo-repositories';
import { DynamoEvaluationCleanup } from '../core/adapters/dynamodb/evaluation-cleanup';
import { CloseConversation } from '../core/application/close-conversation';
import { CloseIdleConversations, type IdleSweepReport } from '../core/application/close-idle-conversations';
import { OperatorAuditTrail } from '../core/application/operator/operator-audit';
import { CustomerPseudonyms } from '../core/application/privacy/customer-pseudonyms';
import { ReengageQuietCustomers, type ReengagementReport } from '../core/application/reengage-quiet-customers';
import { composeFunction, type FunctionPorts } from './compose-function';
import type { InvocationClock } from './crm-sync';
import { composeCustomerMessaging, type SenderPorts } from './customer-messaging';
import type { IdleSweeperSettings } from './deployment-settings';
import { composeTranscriber, type TranscribePorts } from './transcription-jobs';
import { TranscriptionJobSweep, type TranscriptionJobsDeleted } from '../core/application/transcription-jobs';

/** A run's closes, and its re-engagements and transcription jobs when they are on. */
export interface IdleSweeperReport extends IdleSweepReport {
  readonly reengagement?: ReengagementReport;
  readonly transcriptionJobs?: TranscriptionJobsDeleted;
}

export type IdleSweeperHandler = (event?: unknown, context?: InvocationClock) => Promise<IdleSweeperReport>;

export interface IdleSweeperPorts extends FunctionPorts, SenderPorts, TranscribePorts {}

/**
 * The idle sweeper: one pass over the idle conversations the agent serves per scheduled run, each
 * close audited; then, with `reengagement`, the re-engagement of the customers who went quiet (the
 * closes first, so a conversation past its timeout is closed rather than re-engaged); then, with
 * `media.transcription`, the deletion of the transcription jobs that ended and that no turn reads
 * again. The function already runs on a schedule in every deployment, and its runs are retention.
 */
export function composeIdleSweeper(settings: IdleSweeperSettings, ports: IdleSweeperPorts = {}): IdleSweeperHandler {
  const composed = composeFunction('idle-sweeper', settings, ports);
  const { table, clock, ids } = composed;
  const sessions = sessionRepository(table);
  const audit = new OperatorAuditTrail(adminAudit(table), clock, ids, new CustomerPseudonyms(customerDataRepository(table)));
  const leftovers = new DynamoEvaluationCleanup(customerDataRepository(table), handoffReport(table));
  const sweeper = new CloseIdleConversations({ sessions, closer: new CloseConversation({ sessions, audit }), leftovers, clock, settings: settings.idleSweep });
  const reengager = settings.reengagement && reengagerOf(settings.reengagement, settings, composed, ports);
  const jobs = settings.transcriptionJobsSweep && new TranscriptionJobSweep({ transcriber: composeTranscriber(ports), clock, afterMs: settings.transcriptionJobsSweep.afterMs });
  return (_event, context) =>
    composed.instrument(async () => {
      const remainingMs = context ? () => context.getRemainingTimeInMillis() : undefined;
      const report = await sweeper.sweep(remainingMs);
      composed.metrics.addMetric(CUSTOM_METRICS.conversationsClosedIdle, MetricUnit.Count, report.closed);
      const reengagement = await reengager?.sweep(remainingMs);
      if (reengagement) {
        composed.metrics.addMetric(CUSTOM_METRICS.reengagementsSent, MetricUnit.Count, reengagement.sent);
        composed.metrics.addMetric(CUSTOM_METRICS.reengagementTemplateNotReady, MetricUnit.Count, reengagement.templateReady ? 0 : 1);
      }
      const transcriptionJobs = await jobs?.sweep();
      if (transcriptionJobs) composed.metrics.addMetric(CUSTOM_METRICS.transcriptionJobsSwept, MetricUnit.Count, transcriptionJobs.deleted);
      const swept = { ...report, ...(reengagement ? { reengagement } : {}), ...(transcriptionJobs ? { transcriptionJobs } : {}) };
      composed.logger.info('idle_conversations_swept', swept);
      return swept;
    });
}

function reengagerOf(
  reengagement: NonNullable<IdleSweeperSettings['reengagement']>,
  settings: IdleSweeperSettings,
  composed: ReturnType<typeof composeFunction>,
  ports: SenderPorts,
): ReengageQuietCustomers {
  const { table, clock, ids } = composed;
  const { whatsapp, consent } = composeCustomerMessaging(reengagement.whatsApp, settings.locale, table, ports);
  const { sessions, messages, receipts } = conversationRepositories(table);
  return new ReengageQuietCustomers({ sessions, messages, receipts, templates: messageTemplates(table), whatsapp, consent, clock, ids, settings: reengagement });
}
