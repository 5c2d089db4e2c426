import type { MessageTemplate } from '../../lib/contract/operator-api';
import type { MessageTemplates } from '../core/application/message-templates';
import type { OperatorAuditTrail } from '../core/application/operator/operator-audit';
import type { WhatsAppTemplate } from '../core/domain/whatsapp-template';
import { HttpError } from './http-kit';
import { ok, pageOf, requireEmptyObjectOrNoBody, route, type Route, signedInOf } from './router';

/** The business's templates: every operator lists them (to send one), an admin syncs them from WhatsApp. */
export function templateRoutes(templates: MessageTemplates, trail: OperatorAuditTrail): Route[] {
  return [
    route('GET templates', 'operator', async ({ event }) => {
      const page = await templates.list(pageOf(event));
      return ok({ items: page.items.map(templateAnswer), cursor: page.cursor });
    }),
    route('POST admin/templates/sync', 'admin', async (context) => {
      requireEmptyObjectOrNoBody(context.event);
      if (!templates.canSync) throw new HttpError('conflict', 'No WhatsApp Business Account is configured: set messageTemplates.businessAccountId in the construct');
      const sync = await templates.sync();
      await trail.record({ author: signedInOf(context).operator.phone, action: 'templates.sync', resourceType: 'templates', details: { ...sync } });
      return ok({ sync });
    }),
  ];
}

function templateAnswer(template: WhatsAppTemplate): MessageTemplate {
  const { name, language, category, status, statusReason, body, bodyParameters, buttons, updatedAt } = template;
  return { name, language, category, status, statusReason, body, parameters: bodyParameters, buttons, updatedAt };
}
