import type { AdminConsole } from '../core/application/operator/admin-console';
import { CrmSyncStatus } from '../core/domain/crm-sync';
import type { OperatorAuditTrail } from '../core/application/operator/operator-audit';
import type { RedriveDeadLetters } from '../core/application/redrive-dead-letters';
import { HttpError, json, jsonBody } from './http-kit';
import { pageOf, requireEmptyObjectOrNoBody, type Route, signedInOf } from './operator-http';

// Leaves room in the 64 KiB body for multi-byte characters and JSON escapes.
const MAX_PROMPT_CHARS = 40_000;

/** The admin API (role `admin`; others get 403 before anything is read). */
export function adminRoutes(admin: AdminConsole, deadLetters?: DeadLetterAdmin): Route[] {
  const list = (path: string, read: (page: ReturnType<typeof pageOf>) => Promise<unknown>): Route => ({
    method: 'GET',
    path,
    access: 'admin',
    handle: async ({ event }) => json(200, await read(pageOf(event))),
  });
  return [
    list('admin/prompts', (page) => admin.listPrompts(page)),
    { method: 'GET', path: 'admin/prompts/:id', access: 'admin', handle: async ({ params }) => json(200, { prompt: await admin.getPrompt(params.id) }) },
    { method: 'GET', path: 'admin/prompts/:id/versions', access: 'admin', handle: async ({ event, params }) => json(200, await admin.listPromptVersions(params.id, pageOf(event))) },
    {
      method: 'PUT',
      path: 'admin/prompts/:id',
      access: 'admin',
      async handle(context) {
        const body = jsonBody(context.event, {
          content: { type: 'string', required: true, maxLength: MAX_PROMPT_CHARS },
          expectedVersion: { type: 'integer', required: true },
          description: { type: 'string', maxLength: 500 },
        });
        if ((body.content as string).trim() === '') throw new HttpError('bad_field', 'Field "content" must not be blank');
        if ((body.expectedVersion as number) < 0) throw new HttpError('bad_field', 'Field "expectedVersion" must be 0 (create) or the version you edited');
        const prompt = await admin.editPrompt(signedInOf(context).operator, context.params.id, {
          content: body.content as string,
          expectedVersion: body.expectedVersion as number,
          description: body.description as string | undefined,
        });
        return json(200, { prompt });
      },
    },
    {
      method: 'POST',
      path: 'admin/prompts/:id/rollback',
      access: 'admin',
      async handle(context) {
        const { targetVersion } = jsonBody(context.event, { targetVersion: { type: 'integer', required: true } });
        if ((targetVersion as number) < 1) throw new HttpError('bad_field', 'Field "targetVersion" must be a version number (1 or more)');
        return json(200, { prompt: await admin.rollbackPrompt(signedInOf(context).operator, context.params.id, targetVersion as number) });
      },
    },
    { method: 'GET', path: 'admin/config/:key', access: 'admin', handle: async ({ params }) => json(200, { config: await admin.getConfig(params.key) }) },
    {
      method: 'PUT',
      path: 'admin/config/:key',
      access: 'admin',
      async handle(context) {
        const body = jsonBody(context.event, { value: { type: 'any', required: true }, expectedVersion: { type: 'integer', required: true } });
        if ((body.expectedVersion as number) < 0) throw new HttpError('bad_field', 'Field "expectedVersion" must be 0 (create) or the version you read');
        return json(200, { config: await admin.setConfig(signedInOf(context).operator, context.params.key, body.value, body.expectedVersion as number) });
      },
    },
    list('admin/audit', (page) => admin.listAudit(page)),
    list('admin/demands', (page) => admin.listDemands(page)),
    list('admin/consents', (page) => admin.listConsents(page)),
    { method: 'GET', path: 'admin/crm', access: 'admin', handle: async () => json(200, { problems: await admin.crmProblems() }) },
    ...crmRoutes(admin),
    ...(deadLetters ? deadLetterRoutes(deadLetters) : []),
  ];
}

const CRM_STATUSES: readonly string[] = Object.values(CrmSyncStatus);
const CRM_ID_MAX_LENGTH = 256;

/** The console's CRM view: rows by status, and an admin's retry or resolve of a problem row. */
function crmRoutes(admin: AdminConsole): Route[] {
  return [
    {
      method: 'GET',
      path: 'admin/crm/:status',
      access: 'admin',
      async handle({ event, params }) {
        if (!CRM_STATUSES.includes(params.status)) throw new HttpError('bad_id', `status must be one of ${CRM_STATUSES.join(', ')}`);
        return json(200, await admin.listCrmRows(params.status as CrmSyncStatus, pageOf(event)));
      },
    },
    {
      method: 'POST',
      path: 'admin/crm/:sessionId/retry',
      access: 'admin',
      async handle(context) {
        requireEmptyObjectOrNoBody(context.event);
        return json(200, { crmSync: await admin.retryCrmSync(signedInOf(context).operator, context.params.sessionId) });
      },
    },
    {
      method: 'POST',
      path: 'admin/crm/:sessionId/resolve',
      access: 'admin',
      async handle(context) {
        const body = jsonBody(context.event, {
          contactId: { type: 'string', required: true, maxLength: CRM_ID_MAX_LENGTH },
          dealId: { type: 'string', required: true, maxLength: CRM_ID_MAX_LENGTH },
        });
        for (const field of ['contactId', 'dealId'] as const) {
          if ((body[field] as string).trim() === '') throw new HttpError('bad_field', `Field "${field}" must be the id the CRM shows`);
        }
        const ids = { contactId: (body.contactId as string).trim(), dealId: (body.dealId as string).trim() };
        return json(200, { crmSync: await admin.resolveCrmSync(signedInOf(context).operator, context.params.sessionId, ids) });
      },
    },
  ];
}

export interface DeadLetterAdmin {
  readonly redrive: RedriveDeadLetters;
  readonly trail: OperatorAuditTrail;
}

/** What `npm run redrive` shows, and its safe redrive (the unusual records are never acted on here). */
function deadLetterRoutes({ redrive, trail }: DeadLetterAdmin): Route[] {
  return [
    { method: 'GET', path: 'admin/dead-letters', access: 'admin', handle: async () => json(200, { items: await redrive.inspectAll() }) },
    {
      method: 'POST',
      path: 'admin/dead-letters/redrive',
      access: 'admin',
      async handle(context) {
        const { dryRun } = jsonBody(context.event, { dryRun: { type: 'boolean', required: true } });
        if (dryRun) return json(200, { outcomes: (await redrive.inspectAll()).map((inspection) => ({ inspection, action: 'inspected' })) });
        const outcomes = await redrive.run({ apply: true });
        const counts = Object.fromEntries(['dropped', 'redriven', 'held'].map((action) => [action, outcomes.filter((outcome) => outcome.action === action).length]));
        await trail.record({ author: signedInOf(context).operator.phone, action: 'dead_letters.redrive', resourceType: 'dead_letters', details: counts });
        return json(200, { outcomes });
      },
    },
  ];
}
