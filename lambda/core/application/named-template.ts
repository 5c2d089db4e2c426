import { knownCustomerNameOf } from '../../../lib/contract/customer-name';
import { renderTemplateBody, type TemplateRef, templateValuesProblem, type WhatsAppTemplate } from '../domain/whatsapp-template';
import { inertCustomerText } from '../domain/message-template';
import { customerDisplayName } from '../domain/operator';
import type { Session } from '../domain/session';
import type { OutboundTemplateMessage } from '../ports/whatsapp-sender';

/** A stored template ready to send to one person, and its body as they read it. */
export interface NamedTemplateSend {
  readonly ref: TemplateRef;
  readonly text: string;
  readonly message: Pick<OutboundTemplateMessage, 'templateName' | 'languageCode' | 'bodyValues' | 'parameterNames'>;
}

/**
 * The templates the pipeline sends by itself (the handoff notice, the re-engagement) take no body
 * parameter or one, the customer's name. Throws a RangeError naming what WhatsApp would refuse.
 */
export function namedTemplateSend(template: WhatsAppTemplate, name: string): NamedTemplateSend {
  const values = template.bodyParameters.length === 0 ? [] : [name];
  const problem = templateValuesProblem(template, values);
  if (problem !== undefined) throw new RangeError(problem);
  return {
    ref: { name: template.name, language: template.language },
    text: renderTemplateBody(template, values),
    message: {
      templateName: template.name,
      languageCode: template.language,
      bodyValues: values,
      parameterNames: template.parameterFormat === 'named' ? template.bodyParameters : undefined,
    },
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
