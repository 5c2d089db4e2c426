import type { PermissionLedger } from './permission-evaluator';

/** A (principal, action) pair the run must have evaluated — in one deployment variant, when it names one — and the suite that exercises it. */
export interface CoverageRequirement {
  readonly principal: string;
  readonly action: string;
  readonly variant?: string;
  readonly suite: string;
}

const CONVERSATION = 'test/e2e/conversation.test.ts';
const MEDIA = 'test/e2e/media.test.ts';

/**
 * What the suites must keep putting through the check, so that coverage cannot silently rot: both
 * channels, the operator plane with the CRM sync, erase and export, the media bucket, the agent's
 * model, tools and knowledge base's searches, and the redrive tool.
 */
export const COVERAGE_REQUIREMENTS: readonly CoverageRequirement[] = [
  ...['dynamodb:PutItem', 'dynamodb:UpdateItem', 'sqs:SendMessage', 'secretsmanager:GetSecretValue'].map((action) => ({ principal: 'webhook', action, suite: CONVERSATION })),
  ...['dynamodb:PutItem', 'sqs:SendMessage'].map((action) => ({ principal: 'eum-inbound', action, suite: CONVERSATION })),
  ...['dynamodb:Query', 'dynamodb:PutItem', 'sqs:ReceiveMessage', 'sqs:DeleteMessage', 'secretsmanager:GetSecretValue', 'social-messaging:SendWhatsAppMessage', 'kms:Decrypt'].map((action) => ({ principal: 'orchestrator', action, suite: CONVERSATION })),
  ...['dynamodb:BatchGetItem', 'dynamodb:DeleteItem'].map((action) => ({ principal: 'operator', action, suite: 'test/functions/operator/privacy.test.ts' })),
  ...['transcribe:StartTranscriptionJob', 'transcribe:GetTranscriptionJob', 'transcribe:DeleteTranscriptionJob'].map((action) => ({ principal: 'orchestrator', action, suite: 'test/e2e/voice-notes.test.ts' })),
  // The transcription jobs outliving their turn: the idle sweep and the erasure (the console's and the command's) list and delete them.
  ...(['idle-sweeper', 'operator'] as const).flatMap((principal) => ['transcribe:ListTranscriptionJobs', 'transcribe:DeleteTranscriptionJob'].map((action) => ({ principal, action, suite: 'test/e2e/erasure.test.ts' }))),
  ...['transcribe:ListTranscriptionJobs', 'transcribe:DeleteTranscriptionJob'].map((action) => ({ principal: 'customer-data', action, suite: 'test/cli/customer-data-cli.test.ts' })),
  { principal: 'operator', action: 'dynamodb:Query', variant: 'cloud-api-plane-crm-webhook', suite: 'test/functions/operator/crm-admin.test.ts' },
  { principal: 'handoff-sweeper', action: 'dynamodb:Query', suite: 'test/e2e/handoff-lifecycle.test.ts' },
  // The agent's searches of its knowledge base, signed as the orchestrator.
  { principal: 'orchestrator', action: 'bedrock:Retrieve', suite: 'test/e2e/knowledge-base.test.ts' },
  ...(['handoff-sweeper', 'operator'] as const).flatMap((principal) =>
    ['social-messaging:ListWhatsAppMessageTemplates', 'social-messaging:GetWhatsAppMessageTemplate'].map((action) => ({ principal, action, variant: 'end-user-messaging-plane-crm-off', suite: 'test/e2e/end-user-messaging-templates.test.ts' })),
  ),
  { principal: 'operator', action: 'social-messaging:PostWhatsAppMessageMedia', variant: 'end-user-messaging-plane-crm-off', suite: 'test/e2e/end-user-messaging-attachments.test.ts' },
  ...['dynamodb:Query', 'dynamodb:ConditionCheckItem', 'dynamodb:PutItem'].map((action) => ({ principal: 'idle-sweeper', action, suite: 'test/e2e/idle-conversations.test.ts' })),
  ...['dynamodb:Query', 'secretsmanager:GetSecretValue'].map((action) => ({ principal: 'crm-sync', action, suite: 'test/e2e/crm-sync.test.ts' })),
  ...['sqs:ReceiveMessage', 'sqs:SendMessage', 'sqs:DeleteMessage', 'dynamodb:Query'].map((action) => ({ principal: 'redrive', action, suite: 'test/reliability/redrive.test.ts' })),
  ...['dynamodb:BatchGetItem', 'dynamodb:DeleteItem'].map((action) => ({ principal: 'customer-data', action, suite: 'test/cli/customer-data-cli.test.ts' })),
  // The media bucket: the turn stores and reads attachments, the operator's erasure lists and deletes them, the console opens them by link.
  ...['s3:PutObject', 's3:GetObject', 'kms:GenerateDataKey'].map((action) => ({ principal: 'orchestrator', action, suite: MEDIA })),
  ...['s3:ListBucket', 's3:DeleteObject'].map((action) => ({ principal: 'operator', action, suite: MEDIA })),
  { principal: 'operator', action: 's3:GetObject', suite: 'test/browser/message-media.test.ts' },
  // The agent's model and the business's tools, through the fake Bedrock Runtime and the fake Lambda.
  ...['bedrock:InvokeModel', 'lambda:InvokeFunction'].map((action) => ({ principal: 'orchestrator', action, suite: 'test/e2e/consumer-tools.test.ts' })),
  ...['s3:ListBucket', 's3:DeleteObject'].map((action) => ({ principal: 'customer-data', action, suite: 'test/cli/customer-data-cli.test.ts' })),
];

export interface ConformanceReport {
  /** What was evaluated, for the run's output and the summary file. */
  readonly summary: string;
  /** Every reason the run fails: each request the check could not evaluate, each distinct denial, each requirement never seen. */
  readonly failures: readonly string[];
}

/**
 * The run's verdict. A requirement counts when its suite ran (it sent an evaluated request) or the
 * whole suite ran; a principal no variant has a role for (the erase and export commands' role
 * before the construct grants one) is reported as not evaluated instead.
 */
export function conformanceReport(ledger: PermissionLedger, wholeRun: boolean): ConformanceReport {
  const notEvaluated = new Set([...ledger.unevaluated.keys()].map((key) => key.split(' ')[0]));
  const missing = COVERAGE_REQUIREMENTS.filter(
    ({ principal, action, variant, suite }) =>
      (wholeRun || ledger.suites.has(suite)) && !notEvaluated.has(principal) && !ledger.seenPairs.has(`${variant === undefined ? principal : `${principal}@${variant}`} ${action}`),
  );
  const denials = [...ledger.denials.values()].sort((a, b) => `${a.principal}${a.action}`.localeCompare(`${b.principal}${b.action}`));
  const failures = [
    ...[...ledger.unavailable].map(
      ([key, { reason, count }]) => `COULD NOT CHECK ${count} request(s) of ${key.replace(' ', ' (')}): ${reason}\n  A run that cannot check its requests proves nothing: run \`npm run build\` first if the bundles are missing.`,
    ),
    ...denials.map(
      (denial) =>
        `DENIED ${denial.action} on ${denial.resource}\n  principal ${denial.principal} (${denial.variant}), ${denial.result}, ${denial.count}×\n` +
        `  context ${JSON.stringify(denial.context)}\n  suites ${[...denial.suites].sort().join(', ') || '(not named)'}`,
    ),
    ...missing.map(({ principal, action, variant, suite }) => `NEVER EVALUATED ${principal}${variant === undefined ? '' : ` (${variant})`} ${action} (expected from ${suite})`),
  ];
  const byFunction = new Map<string, string[]>();
  for (const [key, count] of [...ledger.requests].sort()) {
    const [principal, variant, service] = key.split(' ');
    byFunction.set(principal, [...(byFunction.get(principal) ?? []), `${service} ${count} (${variant})`]);
  }
  const summary = [
    `Permission conformance: ${[...ledger.requests.values()].reduce((sum, count) => sum + count, 0)} requests of the pipeline's principals, ` +
      `${ledger.decisionsEvaluated} distinct decisions evaluated, ${ledger.denials.size} distinct denials, ${ledger.suites.size} suites` +
      `${ledger.unavailable.size === 0 ? '' : `, ${[...ledger.unavailable.values()].reduce((sum, { count }) => sum + count, 0)} requests that could not be checked`}`,
    ...[...byFunction].map(([principal, lines]) => `  ${principal}: ${lines.join('; ')}`),
    ...[...ledger.unevaluated].map(([key, count]) => `  not evaluated (no role in the template): ${key}, ${count} requests`),
  ].join('\n');
  return { summary, failures };
}
