import { GATE_OVERRIDE_REASON_MAX_CHARACTERS, SYSTEM_PROMPT_MAX_CHARACTERS } from '../../lib/contract/operator-setting-limits';
import type { AdminConsole } from '../core/application/operator/admin-console';
import { CrmSyncStatus } from '../core/domain/crm-sync';
import type { DeadLetterScreen } from '../core/application/operator/dead-letter-snapshot';
import { HttpError } from './http-kit';
import { ok, pageOf, requireEmptyObjectOrNoBody, route, type Route, signedInOf } from './router';

/** A prompt's text as an admin writes it, in the prompt itself or in its draft. */
export const PROMPT_TEXT_FIELDS = {
  content: { type: 'string', required: true, maxLength: SYSTEM_PROMPT_MAX_CHARACTERS },
  expectedVersion: { type: 'integer', required: true },
  description: { type: 'string', maxLength: 500 },
} as const;

/** A prompt answers every customer: a blank one is refused before anything is written. */
export function requirePromptContent(content: string): void {
  if (content.trim() === '') throw new HttpError('bad_field', 'Field "content" must not be blank');
}

/** The admin API (role `admin`; others get 403 before anything is read). */
export function adminRoutes(admin: AdminConsole, deadLetters?: DeadLetterScreen): Route[] {
  return [
    route('GET admin/prompts', 'admin', async ({ event }) => ok(await admin.listPrompts(pageOf(event)))),
    route('GET admin/prompts/:id', 'admin', async ({ params }) => ok({ prompt: await admin.getPrompt(params.id) })),
    route('GET admin/prompts/:id/versions', 'admin', async ({ event, params }) => ok(await admin.listPromptVersions(params.id, pageOf(event)))),
    route('PUT admin/prompts/:id', 'admin', async (context) => {
      const edit = context.body({ ...PROMPT_TEXT_FIELDS, overrideReason: { type: 'string', maxLength: GATE_OVERRIDE_REASON_MAX_CHARACTERS } });
      requirePromptContent(edit.content);
      if (edit.expectedVersion < 0) throw new HttpError('bad_field', 'Field "expectedVersion" must be 0 (create) or the version you edited');
      return ok({ prompt: await admin.editPrompt(signedInOf(context).operator, context.params.id, edit) });
    }),
    route('POST admin/prompts/:id/rollback', 'admin', async (context) => {
      const { targetVersion } = context.body({ targetVersion: { type: 'integer', required: true } });
      if (targetVersion < 1) throw new HttpError('bad_field', 'Field "targetVersion" must be a version number (1 or more)');
      return ok({ prompt: await admin.rollbackPrompt(signedInOf(context).operator, context.params.id, targetVersion) });
    }),
    route('GET admin/config/:key', 'admin', async ({ params }) => ok({ config: await admin.getConfig(params.key) })),
    route('PUT admin/config/:key', 'admin', async (context) => {
      const { value, expectedVersion } = context.body({ value: { type: 'any', required: true }, expectedVersion: { type: 'integer', required: true } });
      if (expectedVersion < 0) throw new HttpError('bad_field', 'Field "expectedVersion" must be 0 (create) or the version you read');
      return ok({ config: await admin.setConfig(signedInOf(context).operator, context.params.key, value, expectedVersion) });
    }),
    route('GET admin/deployment-admins', 'admin', async () => ok({ items: await admin.deploymentAdmins() })),
    route('GET admin/audit', 'admin', async ({ event }) => ok(await admin.listAudit(pageOf(event)))),
    route('GET admin/demands', 'admin', async ({ event }) => ok(await admin.listDemands(pageOf(event)))),
    route('GET admin/consents', 'admin', async ({ event }) => ok(await admin.listConsents(pageOf(event)))),
    route('GET admin/reports/usage', 'admin', async ({ event }) => ok(await admin.usageReport(periodOf(event)))),
    route('GET admin/reports/handoffs', 'admin', async ({ event }) => ok(await admin.handoffReport(periodOf(event)))),
    route('GET admin/crm', 'admin', async () => ok({ problems: await admin.crmProblems() })),
    ...crmRoutes(admin),
    ...(deadLetters ? deadLetterRoutes(deadLetters) : []),
  ];
}

/** A report's `?from=&to=`, checked by the report. */
function periodOf(event: { readonly queryStringParameters?: Readonly<Record<string, string | undefined>> | null }): { readonly from?: string; readonly to?: string } {
  const { from, to } = event.queryStringParameters ?? {};
  return { from, to };
}

const CRM_STATUSES: readonly string[] = Object.values(CrmSyncStatus);
const CRM_ID_MAX_LENGTH = 256;

/** The console's CRM view: rows by status, and an admin's retry or resolve of a problem row. */
function crmRoutes(admin: AdminConsole): Route[] {
  return [
    route('GET admin/crm/:status', 'admin', async ({ event, params }) => {
      if (!CRM_STATUSES.includes(params.status)) throw new HttpError('bad_id', `status must be one of ${CRM_STATUSES.join(', ')}`);
      return ok(await admin.listCrmRows(params.status as CrmSyncStatus, pageOf(event)));
    }),
    route('POST admin/crm/:sessionId/retry', 'admin', async (context) => {
      requireEmptyObjectOrNoBody(context.event);
      return ok({ crmSync: await admin.retryCrmSync(signedInOf(context).operator, context.params.sessionId) });
    }),
    route('POST admin/crm/:sessionId/resolve', 'admin', async (context) => {
      const body = context.body({
        contactId: { type: 'string', required: true, maxLength: CRM_ID_MAX_LENGTH },
        dealId: { type: 'string', required: true, maxLength: CRM_ID_MAX_LENGTH },
      });
      for (const field of ['contactId', 'dealId'] as const) {
        if (body[field].trim() === '') throw new HttpError('bad_field', `Field "${field}" must be the id the CRM shows`);
      }
      const ids = { contactId: body.contactId.trim(), dealId: body.dealId.trim() };
      return ok({ crmSync: await admin.resolveCrmSync(signedInOf(context).operator, context.params.sessionId, ids) });
    }),
  ];
}

/** The dead-letter screen: its snapshot, an explicit refresh, and the safe redrive of `npm run redrive` (the unusual records are never acted on here). */
function deadLetterRoutes(screen: DeadLetterScreen): Route[] {
  return [
    route('GET admin/dead-letters', 'admin', async (context) => ok(await screen.current(signedInOf(context).operator))),
    route('POST admin/dead-letters/refresh', 'admin', async (context) => {
      requireEmptyObjectOrNoBody(context.event);
      return ok(await screen.refresh(signedInOf(context).operator));
    }),
    route('POST admin/dead-letters/redrive', 'admin', async (context) => {
      const { dryRun } = context.body({ dryRun: { type: 'boolean', required: true } });
      const admin = signedInOf(context).operator;
      return ok({ outcomes: dryRun ? await screen.dryRun(admin) : await screen.redrive(admin) });
    }),
  ];
}
