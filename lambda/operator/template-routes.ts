import type { MessageTemplate, TemplateButtonParameter, TemplateHeaderParameter } from '../../lib/contract/operator-api';
import { pipelineTemplateProblem } from '../core/application/named-template';
import { templateParametersOf, type TemplateValues } from '../core/domain/template-parameters';
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
  const { name, language, category, status, statusReason, body, bodyParameters, buttons, header, updatedAt } = template;
  const parameters = templateParametersOf(template);
  const headerParameter = parameters.find((parameter) => parameter.component === 'header');
  return {
    name,
    language,
    category,
    status,
    statusReason,
    body,
    parameters: bodyParameters,
    buttons: buttons.map(({ type, text, url }) => ({ type, text, url })),
    headerFormat: header?.format,
    headerParameter: headerParameter && { kind: headerParameter.kind as TemplateHeaderParameter['kind'], text: header?.text, example: headerParameter.example },
    buttonParameters: parameters
      .filter((parameter) => parameter.button !== undefined)
      .map(({ button, kind, example }) => ({ index: button!.index, kind: kind as TemplateButtonParameter['kind'], text: button!.text, url: buttons[button!.index].url, example })),
    sendableByPipeline: pipelineTemplateProblem(template) === undefined,
    updatedAt,
  };
}

/** More values than any WhatsApp template takes (a body's, a header's, its buttons'). */
const MAX_TEMPLATE_VALUES = 20;

/** A template send's values as the request gives them (`values`, `header`, `buttons`), their shape checked; whether they fit the template is the send's to say. */
export function templateValuesOf(fields: { readonly values: unknown; readonly header?: string; readonly buttons?: unknown }): TemplateValues {
  const { values, header, buttons } = fields;
  if (!Array.isArray(values) || values.length > MAX_TEMPLATE_VALUES || !values.every((value) => typeof value === 'string')) {
    throw new HttpError('bad_field', `Field "values" must be a list of at most ${MAX_TEMPLATE_VALUES} texts, one per parameter of the template's body`);
  }
  const buttonValues = buttons ?? [];
  if (!Array.isArray(buttonValues) || buttonValues.length > MAX_TEMPLATE_VALUES || !buttonValues.every(isButtonValue)) {
    throw new HttpError('bad_field', 'Field "buttons" must be a list of { "index": the button\'s position, "value": a text }, one per button that takes a value');
  }
  return { body: values, ...(header === undefined ? {} : { header }), ...(buttons === undefined ? {} : { buttons: buttonValues.map(({ index, value }) => ({ index, value })) }) };
}

function isButtonValue(given: unknown): given is { index: number; value: string } {
  const { index, value } = (given ?? {}) as { index?: unknown; value?: unknown };
  return Number.isSafeInteger(index) && (index as number) >= 0 && typeof value === 'string' && value.length <= 2048;
}
