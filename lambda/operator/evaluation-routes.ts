import { GATE_OVERRIDE_REASON_MAX_CHARACTERS } from '../../lib/contract/operator-setting-limits';
import type { PromptDrafts } from '../core/application/evaluation/prompt-drafts';
import type { ScenarioSuite } from '../core/application/evaluation/scenario-suite';
import { PROMPT_TEXT_FIELDS, requirePromptContent } from './admin-routes';
import { HttpError } from './http-kit';
import { created, ok, route, type Route, signedInOf } from './router';

/** The prompt gate's admin API (docs/OPERATOR-API.md, "The prompt gate"): drafts, the suite, evaluation runs, publishing. */
export function evaluationRoutes(drafts: PromptDrafts, suite: ScenarioSuite): Route[] {
  return [
    route('GET admin/prompts/:id/draft', 'admin', async ({ params }) => ok({ draft: (await drafts.draft(params.id)) ?? null })),
    route('PUT admin/prompts/:id/draft', 'admin', async (context) => {
      const edit = context.body(PROMPT_TEXT_FIELDS);
      requirePromptContent(edit.content);
      if (edit.expectedVersion < 0) throw new HttpError('bad_field', 'Field "expectedVersion" must be 0 (the first draft) or the draft version you edited');
      return ok({ draft: await drafts.saveDraft(signedInOf(context).operator, context.params.id, edit) });
    }),
    route('POST admin/prompts/:id/draft/publish', 'admin', async (context) => {
      const request = context.body({
        draftVersion: { type: 'integer', required: true },
        expectedVersion: { type: 'integer', required: true },
        overrideReason: { type: 'string', maxLength: GATE_OVERRIDE_REASON_MAX_CHARACTERS },
      });
      if (request.draftVersion < 1 || request.expectedVersion < 0) throw new HttpError('bad_field', 'Fields "draftVersion" (1 or more) and "expectedVersion" (0 or more) must be versions');
      return ok({ prompt: await drafts.publish(signedInOf(context).operator, context.params.id, request) });
    }),
    route('POST admin/prompts/:id/evaluations', 'admin', async (context) => {
      const { draftVersion } = context.body({ draftVersion: { type: 'integer', required: true } });
      if (draftVersion < 1) throw new HttpError('bad_field', 'Field "draftVersion" must be a draft version (1 or more)');
      return created({ evaluation: await drafts.startEvaluation(signedInOf(context).operator, context.params.id, draftVersion) });
    }),
    route('GET admin/prompts/:id/evaluations', 'admin', async ({ params }) => ok({ items: await drafts.runs(params.id) })),
    route('GET admin/prompts/:id/evaluations/:runId', 'admin', async ({ params }) => ok({ evaluation: await drafts.run(params.id, params.runId) })),
    route('GET admin/scenarios', 'admin', async () => ok({ items: await suite.list() })),
    route('PUT admin/scenarios/:id', 'admin', async (context) => {
      const { scenario, expectedVersion } = context.body({ scenario: { type: 'any', required: true }, expectedVersion: { type: 'integer', required: true } });
      if (expectedVersion < 0) throw new HttpError('bad_field', 'Field "expectedVersion" must be 0 (a new scenario) or the version you edited');
      return ok({ scenario: await suite.save(signedInOf(context).operator, context.params.id, scenario, expectedVersion) });
    }),
    route('DELETE admin/scenarios/:id', 'admin', async (context) => {
      await suite.remove(signedInOf(context).operator, context.params.id);
      return ok({ removed: true as const });
    }),
  ];
}
