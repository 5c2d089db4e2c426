import type { AwsCredentialIdentity } from '@smithy/types';
import { WHATSAPP_CHANNEL_KINDS } from '../../lib/contract';
import type { LocalChannel } from './local-pipeline-options';

/**
 * Who signs the pipeline's AWS calls: each function (and each operator tool) as the role it has in
 * a deployment. The local runtime gives each its own access key id, naming it and the deployment
 * it belongs to, so whatever stands in front of the local servers can tell the callers apart — and
 * check each request against that caller's role in the synthesized stack — as IAM would.
 */
export const PIPELINE_PRINCIPALS = ['webhook', 'orchestrator', 'operator', 'handoff-sweeper', 'idle-sweeper', 'crm-sync', 'eum-inbound', 'evaluator', 'redrive', 'customer-data'] as const;

export type PipelinePrincipal = (typeof PIPELINE_PRINCIPALS)[number];

/** How the CRM sync is set up: off, a signed webhook, or the consumer's function. */
export type CrmSyncKind = 'off' | 'webhook' | 'function';

/**
 * The deployment choices that change who is granted what: channel × operator plane × CRM sync, and
 * the two that add a partition to a role (the key layout's migration, the pipeline-wide budget).
 */
export interface DeploymentVariant {
  readonly channel: LocalChannel;
  readonly operatorPlane: boolean;
  readonly crmSync: CrmSyncKind;
  /** `KeyLayout.MIGRATING`: the lists look up the backfill's marker. Default false. */
  readonly keyLayoutMigration?: boolean;
  /** `pipelineBudget` is set: the orchestrator counts the day's tokens. Default false. */
  readonly pipelineBudget?: boolean;
}

/** What a principal's access key id says: which caller, of which deployment. */
export interface PrincipalIdentity {
  readonly principal: PipelinePrincipal;
  readonly variant: DeploymentVariant;
}

const PREFIX = 'PIPELINE';
const CHANNELS: readonly LocalChannel[] = [WHATSAPP_CHANNEL_KINDS.cloudApi, WHATSAPP_CHANNEL_KINDS.endUserMessaging];
const CRM_SYNC_KINDS: readonly CrmSyncKind[] = ['off', 'webhook', 'function'];
/** `handoff-sweeper` → `HandoffSweeper`: DynamoDB Local accepts only letters and digits in an access key id. */
const pascal = (kebab: string) => kebab.replace(/(^|-)([a-z])/g, (_, _dash: string, letter: string) => letter.toUpperCase());
const alternatives = (values: readonly string[]) => values.map(pascal).join('|');
const ACCESS_KEY_ID = new RegExp(`^${PREFIX}(${alternatives(PIPELINE_PRINCIPALS)})(${alternatives(CHANNELS)})(Plane|NoPlane)Crm(${alternatives(CRM_SYNC_KINDS)})(Migrating)?(Budget)?$`);
const kebabOf = <T extends string>(values: readonly T[], pascalCased: string): T => values.find((value) => pascal(value) === pascalCased)!;

/** `cloud-api-plane-crm-webhook`: the variant as the access key ids and the reports name it. */
export function variantName(variant: DeploymentVariant): string {
  return `${variant.channel}-${variant.operatorPlane ? 'plane' : 'noplane'}-crm-${variant.crmSync}${variant.keyLayoutMigration ? '-migrating' : ''}${variant.pipelineBudget ? '-budget' : ''}`;
}

/** `PIPELINEOrchestratorCloudApiPlaneCrmWebhook`: letters only, as DynamoDB Local requires. */
export function principalAccessKeyId({ principal, variant }: PrincipalIdentity): string {
  return `${PREFIX}${pascal(principal)}${pascal(variant.channel)}${variant.operatorPlane ? 'Plane' : 'NoPlane'}Crm${pascal(variant.crmSync)}${variant.keyLayoutMigration ? 'Migrating' : ''}${variant.pipelineBudget ? 'Budget' : ''}`;
}

/** The caller an access key id names, or `undefined` for any other key (test code, tools, fixtures). */
export function parsePrincipalAccessKeyId(accessKeyId: string): PrincipalIdentity | undefined {
  const match = ACCESS_KEY_ID.exec(accessKeyId);
  if (!match) return undefined;
  const [, principal, channel, plane, crmSync, migrating, budget] = match;
  return {
    principal: kebabOf(PIPELINE_PRINCIPALS, principal),
    variant: { channel: kebabOf(CHANNELS, channel), operatorPlane: plane === 'Plane', crmSync: kebabOf(CRM_SYNC_KINDS, crmSync), keyLayoutMigration: migrating !== undefined, pipelineBudget: budget !== undefined },
  };
}

/**
 * The credentials `principal` signs with locally. The local servers accept any secret; the session
 * token, when given, travels with every request (the tests name their suite with it).
 */
export function principalCredentials(identity: PrincipalIdentity, sessionToken?: string): AwsCredentialIdentity {
  return { accessKeyId: principalAccessKeyId(identity), secretAccessKey: 'local', ...(sessionToken === undefined ? {} : { sessionToken }) };
}
