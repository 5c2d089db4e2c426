import { knownCustomerNameOf } from '../../../lib/contract/customer-name';
import { renderTemplateBody, type TemplateRef, type WhatsAppTemplate } from '../domain/whatsapp-template';
import { fillTemplateParameters, takesMoreThanBody } from '../domain/template-parameters';
import { inertCustomerText } from '../domain/message-template';
import { customerDisplayName } from '../domain/operator';
import type { Session } from '../domain/session';
import type { OutboundTemplateMessage } from '../ports/whatsapp-sender';

/** A stored template ready to send to one person, and its body as they read it. */
export interface NamedTemplateSend {
  readonly ref: TemplateRef;
  readonly text: string;
  readonly message: Pick<OutboundTemplateMessage, 'templateName' | 'languageCode' | 'parameters'>;
}

/**
 * Why the pipeline cannot send this template by itself (the handoff notice, the re-engagement):
 * it fills no header, no button and at most one body value, the customer's name; `undefined` when
 * it can. Asked where such a template is named, so it is refused there rather than at each send.
 */
export function pipelineTemplateProblem(template: WhatsAppTemplate): string | undefined {
  if (template.status !== 'APPROVED') return `${template.name} (${template.language}) is ${template.status}, not approved`;
  if (takesMoreThanBody(template) || template.bodyParameters.length > 1) {
    return `${template.name} (${template.language}) takes values the pipeline cannot fill by itself (a header, a button, or more than the customer's name in the body): choose a template whose only value, if any, is the name`;
  }
  return undefined;
}

/**
 * The templates the pipeline sends by itself (the handoff notice, the re-engagement) take no body
 * parameter or one, the customer's name. Throws a RangeError naming what WhatsApp would refuse.
 */
export function namedTemplateSend(template: WhatsAppTemplate, name: string): NamedTemplateSend {
  const refused = pipelineTemplateProblem(template);
  if (refused !== undefined) throw new RangeError(refused);
  const values = template.bodyParameters.length === 0 ? [] : [name];
  const filled = fillTemplateParameters(template, { body: values });
  if ('problem' in filled) throw new RangeError(filled.problem);
  return {
    ref: { name: template.name, language: template.language },
    text: renderTemplateBody(template, values),
    message: { templateName: template.name, languageCode: template.language, parameters: filled.filled },
  };
}

/**
 * The customer's name as people call them (their WhatsApp profile name, else the name the agent
 * learned), made safe to put in a template's value; `''` when neither is known.
 */
export function templateNameOf(session: Session): string {
  const name = knownCustomerNameOf({ customerId: session.customerId, displayName: customerDisplayName(session), profileName: session.profileName });
  return inertCustomerText(name ?? '');
}
