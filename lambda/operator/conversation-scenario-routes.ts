import type { ConversationScenarios } from '../core/application/evaluation/conversation-scenario';
import { ok, requireEmptyObjectOrNoBody, route, type Route, signedInOf } from './router';

/**
 * An admin drafts a scenario of the suite from a customer's latest conversation, pseudonymised
 * (docs/EVALUATION.md, "From a real conversation"): the answer is the draft; nothing is stored but
 * the audit of it.
 */
export function conversationScenarioRoutes(scenarios: ConversationScenarios): Route[] {
  return [
    route('POST admin/conversations/:customerId/scenario', 'admin', async (context) => {
      requireEmptyObjectOrNoBody(context.event);
      const { id, scenario } = await scenarios.draft(signedInOf(context).operator, context.params.customerId);
      return ok({ id, scenario: { ...scenario } });
    }),
  ];
}
